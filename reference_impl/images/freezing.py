"""Freeze a Python program into one static executable: PyInstaller, then staticx.

Used for the controller. The executor is bundled instead (`bundling`): every
container of every workflow pod starts it, and self-extraction made that start
slow and left a window in which a SIGTERM killed it (#13).

Why both (emissary-packaging-notes.md): PyInstaller `--onefile` bundles the
interpreter and modules but still needs the host's libc and loader; staticx
bundles those too, so the result runs in a FROM-scratch image and from the
read-only /argo-bin image volume. Both unpack into $TMPDIR at start; see
`reference_impl.executor.protocol` for how the pod provides one.

Choices, measured on the project's machine (median of 5-7 runs of a program
that does nothing): PyInstaller one-file alone 0.154 s; staticx over it with
its default xz archive 0.457 s, with `--no-compress` 0.178 s (+2.3 MB); and
PyInstaller's own archive stored uncompressed (`cdict`, spec-file only) brings
that to 0.106 s for twice the size (10.5 -> 20.7 MB). Start-up is paid by every
container of every workflow pod, size once per node, so both are uncompressed.
Stdlib modules the programs never import are excluded.

Everything is cached under $WPC_CACHE_DIR/packaging, keyed by a hash of the
inputs (tool pins, interpreter version, pinned requirements, the program's
source files, the options below): an unchanged program is never rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from plumbing import commands
from reference_impl.images import pins
from reference_impl.images import sources
from reference_impl.images.errors import BuildError
from reference_impl.images.settings import PackagingSettings

logger = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
"""Where `reference_impl/` lives; a var, not a const, so tests can point it elsewhere."""

EXCLUDES = (
    "tkinter", "unittest", "pydoc", "doctest", "pdb", "lib2to3", "distutils",
    "setuptools", "pip", "test", "sqlite3", "curses", "readline", "xmlrpc",
    "multiprocessing", "decimal", "_decimal", "bz2", "_bz2", "lzma", "_lzma",
    "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr",
    "_codecs_tw", "_multibytecodec",
)  # fmt: skip
"""Stdlib parts the executor never imports (tarfile imports bz2/lzma only on demand)."""

CONTROLLER_EXCLUDES = ("tkinter", "lib2to3", "test", "sqlite3", "curses", "readline")
"""Fewer for the controller: the kubernetes client imports multiprocessing and pydoc."""

LIBGCC_S = Path("/lib/x86_64-linux-gnu/libgcc_s.so.1")
"""glibc dlopen()s libgcc_s when a thread exits through pthread_exit, which CPython
does for daemon threads still running at interpreter shutdown. Nothing links it,
so neither PyInstaller nor staticx bundles it, and in an image without it the
process aborts at exit ("libgcc_s.so.1 must be installed for pthread_exit to
work", seen as exit 134 in about one run in six). Bundled explicitly."""


@dataclass(frozen=True)
class Program:
    """A program to freeze."""

    name: str
    """The executable's file name, e.g. `argoexec`."""
    package: str
    """Run as `python -m <package>`, e.g. `reference_impl.executor`."""
    excludes: tuple[str, ...] = EXCLUDES
    binaries: tuple[Path, ...] = (LIBGCC_S,)
    """Shared libraries to bundle although nothing links them."""


EXECUTOR = Program(name="argoexec", package="reference_impl.executor")
CONTROLLER = Program(
    name="workflow-controller",
    package="reference_impl.controller",
    excludes=CONTROLLER_EXCLUDES,
)


def _run(command: Sequence[str], *, log_path: Path, cwd: Path | None = None) -> None:
    commands.run(command, log_path=log_path, cwd=cwd, error=BuildError)


def _python_version(python: Path) -> str:
    version = commands.capture(
        [str(python), "-c", "import sys; print(sys.version)"], error=BuildError
    )
    return version.strip()


@contextlib.contextmanager
def exclusive(settings: PackagingSettings, name: str) -> Iterator[None]:
    """Hold an exclusive lock on the cache entry `name` (blocks until it is free).

    pytest-xdist workers, worktrees and concurrent `make` targets share the
    cache: two builders of one entry would share (and delete) one work
    directory. The lock goes with the process, so a killed build never
    leaves it held.
    """
    locks = settings.packaging_dir / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / f"{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_venv(*, settings: PackagingSettings, requirements: Sequence[str]) -> Path:
    """A venv of Debian's Python with the pinned tools and `requirements`; cached."""
    pinned = sorted(requirements)
    spec = {
        "python": _python_version(settings.python),
        "tools": list(pins.TOOLS),
        "requirements": pinned,
    }
    key = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]
    venv = settings.packaging_dir / f"venv-{key}"
    with exclusive(settings, f"venv-{key}"):
        stamp = venv / ".complete"
        if not stamp.exists():
            _build_venv(settings=settings, venv=venv, key=key, requirements=pinned)
            stamp.write_text(json.dumps(spec, indent=2))
    return venv


def _build_venv(
    *, settings: PackagingSettings, venv: Path, key: str, requirements: list[str]
) -> None:
    shutil.rmtree(venv, ignore_errors=True)
    log = settings.logs_dir / f"packaging-venv-{key}.log"
    _run([str(settings.python), "-m", "venv", str(venv)], log_path=log)
    pip = [
        str(venv / "bin" / "pip"),
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]
    _run([*pip, *pins.TOOLS, *requirements], log_path=log)


def build_key(
    *, program: Program, source_set: sources.SourceSet, spec: dict[str, object]
) -> str:
    """Hash of everything that determines the frozen binary."""
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode())
    digest.update(program.name.encode())
    for rel in sorted(source_set.files):
        digest.update(rel.encode())
        digest.update(source_set.files[rel].read_bytes())
    return digest.hexdigest()[:16]


_UNCOMPRESSED_TYPES = (
    "EXTENSION", "DATA", "BINARY", "EXECUTABLE", "PYSOURCE", "PYMODULE", "SPLASH", "PYZ",
    "SYMLINK",
)  # fmt: skip


def _spec(*, program: Program, entry: Path, src: Path) -> str:
    """A one-file PyInstaller spec (the CLI cannot turn archive compression off)."""
    uncompressed = {kind: False for kind in _UNCOMPRESSED_TYPES}
    return (
        "# Generated by reference_impl.images.freezing.\n"
        f"a = Analysis([{str(entry)!r}], pathex=[{str(src)!r}],\n"
        f"    binaries={[(str(b), '.') for b in program.binaries]!r},\n"
        f"    hiddenimports=[{program.package + '.__main__'!r}],\n"
        f"    excludes={list(program.excludes)!r}, noarchive=False, optimize=0)\n"
        "pyz = PYZ(a.pure)\n"
        "exe = EXE(pyz, a.scripts, a.binaries, a.datas, [],\n"
        f"    name={program.name!r}, debug=False, bootloader_ignore_signals=False,\n"
        f"    strip=False, upx=False, console=True, runtime_tmpdir=None,\n"
        f"    cdict={uncompressed!r})\n"
    )


def freeze(
    *, program: Program, settings: PackagingSettings, root: Path = REPO_ROOT
) -> Path:
    """Return the static executable for `program`, building it only if its inputs changed."""
    source_set = sources.closure(root=root, entry=f"{program.package}.__main__")
    requirements = sources.requirements(source_set.third_party)
    spec: dict[str, object] = {
        "python": _python_version(settings.python),
        "tools": list(pins.TOOLS),
        "requirements": requirements,
        "excludes": list(program.excludes),
        "staticx": ["--no-compress", "--strip"],
        "archive": "uncompressed",
        "binaries": [
            f"{b}:{hashlib.sha256(b.read_bytes()).hexdigest()}"
            for b in program.binaries
        ],
        "package": program.package,
    }
    key = build_key(program=program, source_set=source_set, spec=spec)
    with exclusive(settings, f"{program.name}-{key}"):
        return _build(
            program=program,
            settings=settings,
            source_set=source_set,
            requirements=requirements,
            key=key,
        )


def _build(
    *,
    program: Program,
    settings: PackagingSettings,
    source_set: sources.SourceSet,
    requirements: Sequence[str],
    key: str,
) -> Path:
    out = settings.packaging_dir / "bin" / f"{program.name}-{key}"
    if out.exists():
        logger.info("Reusing %s (inputs unchanged).", out)
        return out
    venv = ensure_venv(settings=settings, requirements=requirements)
    work = settings.packaging_dir / "work" / f"{program.name}-{key}"
    shutil.rmtree(work, ignore_errors=True)
    src = work / "src"
    for rel, path in source_set.files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, src / rel)
    entry = work / f"{program.name}.py"
    entry.write_text(
        '"""Generated entry point: python -m ' + program.package + '."""\n'
        "import runpy\n\n"
        f"runpy.run_module({program.package!r}, run_name='__main__', alter_sys=True)\n"
    )
    log = settings.logs_dir / f"freeze-{program.name}-{key}.log"
    spec_file = work / f"{program.name}.spec"
    spec_file.write_text(_spec(program=program, entry=entry, src=src))
    _run(
        [str(venv / "bin" / "pyinstaller"), "--noconfirm", "--clean", "--log-level", "WARN",
         "--distpath", str(work / "dist"), "--workpath", str(work / "build"), str(spec_file)],
        log_path=log,
        cwd=work,
    )  # fmt: skip
    static = work / f"{program.name}.static"
    _run(
        [str(venv / "bin" / "staticx"), "--no-compress", "--strip",
         str(work / "dist" / program.name), str(static)],
        log_path=log,
    )  # fmt: skip
    os.chmod(static, 0o755)
    out.parent.mkdir(parents=True, exist_ok=True)
    static.replace(out)
    shutil.rmtree(work, ignore_errors=True)
    # Other builds of the program stay: the cache is keyed by content and shared
    # by worktrees that run in parallel, so "stale" may be someone's current one.
    logger.info(
        "Froze %s into %s (%d bytes).", program.package, out, out.stat().st_size
    )
    return out
