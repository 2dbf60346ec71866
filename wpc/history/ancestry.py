"""What git says about the source repository: tags, commits, ancestry, the module.

Read-only questions of a git repository (bare or not), each one `git`
command: which commit a tag names, whether a commit is an ancestor of a tag
(so the tag has the fix), how many commits separate two tags (so the closest
stand-in can be chosen), and which Go module a tag's go.mod names (the
profile builds only the v4 module). Errors name the repository and the ref.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conformance.errors import CommandError
from conformance.errors import DataError
from plumbing import commands


@dataclass(frozen=True)
class GitRepository:
    """A git repository holding the tags the history names."""

    path: Path

    def check(self) -> None:
        """DataError unless `path` is a git repository."""
        if not self.path.is_dir():
            raise DataError(f"--source {self.path}: no such directory")
        done = commands.attempt(["git", "-C", str(self.path), "rev-parse", "--git-dir"])
        if done.returncode != 0:
            raise DataError(
                f"--source {self.path}: not a git repository "
                f"({(done.stderr or done.stdout).strip()})"
            )

    def _git(self, *args: str) -> str:
        return commands.capture(
            ["git", "-C", str(self.path), *args], error=CommandError
        )

    def commit(self, ref: str) -> str:
        """The full commit a ref names; DataError naming the ref when there is none."""
        done = commands.attempt(
            [
                "git",
                "-C",
                str(self.path),
                "rev-parse",
                "--verify",
                "--quiet",
                f"{ref}^{{commit}}",
            ]
        )
        if done.returncode != 0 or not done.stdout.strip():
            raise DataError(
                f"{self.path}: no commit named {ref!r} (is the tag fetched?)"
            )
        return done.stdout.strip()

    def tags(self) -> dict[str, str]:
        """Every tag and the commit it names (annotated tags peeled)."""
        out = self._git(
            "for-each-ref",
            "refs/tags",
            "--format=%(refname:short) %(objectname) %(*objectname)",
        )
        found: dict[str, str] = {}
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 2:
                found[parts[0]] = parts[-1]
        return found

    def is_ancestor(self, commit: str, ref: str) -> bool:
        """Whether `commit` is `ref` or one of its ancestors (`ref` has that change)."""
        done = commands.attempt(
            ["git", "-C", str(self.path), "merge-base", "--is-ancestor", commit, ref]
        )
        if done.returncode not in (0, 1):
            raise DataError(
                f"{self.path}: cannot tell whether {commit[:12]} is in {ref}: "
                f"{(done.stderr or done.stdout).strip()}"
            )
        return done.returncode == 0

    def module(self, ref: str) -> str:
        """The module path `go.mod` names at `ref` ('' when there is no go.mod)."""
        done = commands.attempt(["git", "-C", str(self.path), "show", f"{ref}:go.mod"])
        if done.returncode != 0:
            return ""
        return next(
            (
                line.split()[1]
                for line in done.stdout.splitlines()
                if line.startswith("module ") and len(line.split()) > 1
            ),
            "",
        )

    def distance(self, a: str, b: str) -> int:
        """Commits in one of the two refs' histories but not the other's."""
        out = self._git("rev-list", "--count", f"{a}...{b}")
        return int(out.strip())
