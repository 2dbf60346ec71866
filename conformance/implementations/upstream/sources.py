"""Where upstream Argo Workflows' source comes from: a local directory, at a git ref.

Vendors with forks and Argo contributors judge a tree before it is released, and
the module proxy may refuse the module altogether, so a build can start from a
source directory instead (`--source DIR`, the profile variable `source`, or
`WPC_ARGO_SOURCE`). Three kinds of directory are accepted:

- a git repository (bare or not) with `--ref`: that commit is exported once
  into `<cache>/src/argo-workflows-<commit12>` and built there, so several
  versions sit side by side; blobs a partial clone lacks are left out by path
  (they are named in the log), which is how a snapshot without the large
  `manifests/quick-start-*.yaml` files still builds;
- a git work tree without `--ref`: built where it stands, uncommitted changes
  included; its cache key is the commit, plus a digest of the changes when the
  tree is dirty;
- a plain directory (an unpacked release tarball): built where it stands, keyed
  by a digest of its Go sources.

Whatever the kind, the directory must hold Argo Workflows v4: the
`github.com/argoproj/argo-workflows/v4` module, or `.../v3`, the path v4.0.0 and
v4.0.1 still carried; anything else is refused before a build starts or
anything is installed. The module path read from go.mod is what the build
stamps its version into and what the description names.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from conformance.errors import CommandError
from conformance.errors import DataError
from conformance.implementations.upstream import pins
from plumbing import commands

logger = logging.getLogger(__name__)

SOURCE_ENV = "WPC_ARGO_SOURCE"
"""Environment variable naming the source directory when no flag gives one."""

_STAMP = ".exported"


@dataclass(frozen=True)
class Source:
    """A source tree ready to build, and what to call it."""

    directory: Path
    """The module's root (holds go.mod)."""
    key: str
    """Cache key of the build: a commit (12 hex), with `-dirty-<digest>` or a digest."""
    version: str
    """What the report calls it: a tag such as `v4.1.2`, `git describe` output, or `unknown`."""
    commit: str
    """The full commit, or '' for a plain directory."""
    dirty: bool
    """True when the tree holds changes no commit has (built as they stand)."""
    module: str = pins.MODULE
    """The module path its go.mod declares (one of `pins.MODULES`)."""

    @property
    def describe(self) -> str:
        """One line for humans and the report: version, commit, state, module.

        The module is named only when it is not the pinned `/v4` one, so the
        description of a v4.1 build reads as it always did.
        """
        module = "" if self.module == pins.MODULE else f", module {self.module}"
        if not self.commit:
            return f"{self.version} (source directory, digest {self.key}{module})"
        state = ", uncommitted changes" if self.dirty else ""
        return f"{self.version} (commit {self.commit[:12]}{state}{module})"


def ref_key(commit: str) -> str:
    """The cache key of a build of a git repository at `commit`: its first 12 hex digits.

    One function, so whoever asks whether a ref is built (`make history`'s
    `--substitute-built`) names the cache entry exactly as `resolve` does.
    """
    return commit[:12]


def from_env(flag: str | None) -> Path | None:
    """The source directory: the flag if given, else `WPC_ARGO_SOURCE`, else None."""
    value = flag or os.environ.get(SOURCE_ENV, "")
    return Path(value) if value else None


def _git(directory: Path, *args: str) -> str:
    return commands.capture(["git", "-C", str(directory), *args], error=CommandError)


def _is_git(directory: Path) -> bool:
    """True for a work tree's root or a bare repository (not a folder inside one)."""
    bare = (directory / "HEAD").is_file() and (directory / "objects").is_dir()
    return (directory / ".git").exists() or bare


def accepts_module(module: str) -> bool:
    """Whether a tree whose go.mod names `module` can be built here.

    One rule for `check_module` and for `make history`, which asks it of a tag's
    go.mod before deciding to run that tag at all.
    """
    return module in pins.MODULES


def check_module(directory: Path) -> str:
    """The module path of an Argo Workflows v4 tree; DataError naming anything else."""
    gomod = directory / "go.mod"
    if not gomod.is_file():
        raise DataError(
            f"{directory}: not an Argo Workflows source tree (no go.mod); give the "
            f"root of an argoproj/argo-workflows checkout, or a git repository with --ref"
        )
    first = next(
        (
            line.split()[1]
            for line in gomod.read_text().splitlines()
            if line.startswith("module ")
        ),
        "",
    )
    if not accepts_module(first):
        raise DataError(
            f"{gomod}: module {first or '(none)'}, not {' or '.join(pins.MODULES)}: "
            f"only Argo Workflows v4 source trees can be built"
        )
    return first


def _describe(directory: Path, commit: str) -> str:
    done = commands.attempt(
        ["git", "-C", str(directory), "describe", "--tags", "--always", commit]
    )
    return done.stdout.strip() or "unknown"


def _missing_paths(directory: Path, commit: str) -> list[str]:
    """Paths at `commit` whose blobs the repository lacks (a partial snapshot)."""
    listing = _git(directory, "ls-tree", "-r", "-z", "--full-tree", commit)
    entries = [e for e in listing.split("\0") if e]
    blobs = {}
    for entry in entries:
        meta, path = entry.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind == "blob":
            blobs[sha] = path
    checked = commands.capture(
        ["git", "-C", str(directory), "cat-file", "--batch-check"],
        stdin="\n".join(blobs) + "\n",
        error=CommandError,
    )
    return sorted(
        blobs[line.split()[0]]
        for line in checked.splitlines()
        if line.endswith(" missing")
    )


def _export(repo: Path, commit: str, cache_dir: Path) -> Path:
    """Export `commit` once into the cache; return the tree's root."""
    target = cache_dir / "src" / f"argo-workflows-{commit[:12]}"
    if (target / _STAMP).is_file():
        return target
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    missing = _missing_paths(repo, commit)
    if missing:
        logger.warning(
            "The repository %s lacks %d blobs at %s; exporting without: %s.",
            repo,
            len(missing),
            commit[:12],
            ", ".join(missing),
        )
    archive = target.parent / f"argo-workflows-{commit[:12]}.tar"
    excludes = [f":(exclude,literal){path}" for path in missing]
    log = cache_dir / "logs" / f"export-argo-workflows-{commit[:12]}.log"
    commands.run(
        [
            "git",
            "-C",
            str(repo),
            "archive",
            "--output",
            str(archive),
            commit,
            "--",
            ".",
            *excludes,
        ],
        log_path=log,
        error=CommandError,
    )
    commands.run(
        ["tar", "-xf", str(archive), "-C", str(target)],
        log_path=log,
        error=CommandError,
    )
    archive.unlink()
    (target / _STAMP).write_text(commit + "\n")
    return target


def _tree_digest(directory: Path) -> str:
    """A digest of the files a Go build reads (go.mod, go.sum, *.go, embedded assets aside)."""
    digest = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        if path.is_file() and (
            path.suffix == ".go" or path.name in ("go.mod", "go.sum")
        ):
            digest.update(str(path.relative_to(directory)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def resolve(directory: Path, *, ref: str | None, cache_dir: Path) -> Source:
    """Check `directory` and return the tree to build; errors name what is wrong."""
    if not directory.is_dir():
        raise DataError(
            f"{directory}: no such source directory (from --source or {SOURCE_ENV})"
        )
    if ref:
        if not _is_git(directory):
            raise DataError(
                f"{directory}: --ref {ref} needs a git repository, and this is none"
            )
        try:
            commit = _git(
                directory, "rev-parse", "--verify", f"{ref}^{{commit}}"
            ).strip()
        except CommandError as exc:
            raise DataError(
                f"{directory}: no commit named {ref!r} ({exc.output.strip()})"
            ) from exc
        tree = _export(directory, commit, cache_dir)
        module = check_module(tree)
        return Source(
            tree,
            ref_key(commit),
            _describe(directory, commit),
            commit,
            dirty=False,
            module=module,
        )
    module = check_module(directory)
    if not _is_git(directory):
        digest = _tree_digest(directory)
        return Source(
            directory, f"tree-{digest}", "unknown", "", dirty=False, module=module
        )
    commit = _git(directory, "rev-parse", "HEAD").strip()
    changes = _git(directory, "status", "--porcelain", "--untracked-files=no")
    key = commit[:12]
    if changes.strip():
        key += f"-dirty-{_tree_digest(directory)}"
    version = _describe(directory, commit) + ("-dirty" if changes.strip() else "")
    return Source(
        directory, key, version, commit, dirty=bool(changes.strip()), module=module
    )
