"""The executor as a static launcher beside an unpacked bundle, delivered whole.

    argoexec                 static launcher (gcc -static, `executor/launcher.c`)
    argoexec.bundle/bin/python3                      Debian's interpreter
    argoexec.bundle/lib/ld-linux-x86-64.so.2, *.so*  its loader and libraries
    argoexec.bundle/lib/python311.zip                stdlib + executor, as .pyc
    argoexec.bundle/lib/python3.11/lib-dynload/      stdlib extension modules

The image volume (init-less) carries it as it is; `init` copies both (legacy).
The launcher blocks signals, then execs the bundle's loader on its interpreter
(`reference_impl.executor.launching` takes the hand-over). Nothing of the
user's image is used, nothing is unpacked, nothing is written at start.

Why, measured on the project's 2-core machine (shared: a 1-min load average of
7-11 from other work) with `python -m reference_impl.images bench-start
--executable OLD --executable NEW --runs 20` (starts alternate; exec -> the
user's command runs, median / p90; CPU per start, median):

                              as it is              + 2 busy processes per core
    one-file + staticx        170 / 334 ms, 139 ms   1023 / 2183 ms, 168 ms
    this bundle                63 / 120 ms,  66 ms    279 / 1332 ms,  81 ms

    SIGTERM at 0..1500 ms     exit 2 up to 100 ms    exit 2 at 14 of 31 delays,
    (staticx)                                        up to 900 ms
    SIGTERM (this bundle)     143 at every delay     143 at every delay
                              but 0 ms (dropped)     but 0 ms (dropped)

At 0 ms the signal is sent as exec returns, before the launcher's first
instruction; the kernel drops it for PID 1 (a sender racing an exec, which
meets any program so; upstream's Go argoexec installs its handlers later).

Earlier probes, same machine: PyInstaller one-dir run by its bundled loader
took ~77 ms CPU per start (its bootloader re-executes itself to set
LD_LIBRARY_PATH, which then leaks to the child) against ~60 ms for Debian's
python3 -I -S reading a zip, so the bundle is a plain interpreter.

Self-extraction was the bulk of the cost (35 MB written per container start),
and the signal window came from the bootloaders: staticx, PID 1, forwards
SIGTERM to a child that has no handler yet, and reports its death as exit 2.
Blocking in a launcher closes the window whatever the start-up time, so it no
longer depends on how loaded the node is; the bundle makes the start cheap.
The launcher needs the interpreter to be exec()ed in the same process (a
blocked signal stays pending on the process it was sent to): staticx and
one-file PyInstaller fork a child, so neither could stay between them.

Cached under $WPC_CACHE_DIR/packaging/bundles/argoexec-<key>, keyed by every
input (interpreter, sources, this module, the launcher); other entries,
perhaps another worktree's, are never touched.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from plumbing import commands
from reference_impl.images import freezing
from reference_impl.images import sources
from reference_impl.images.errors import BuildError
from reference_impl.images.errors import BundleError
from reference_impl.images.errors import SourceError
from reference_impl.images.settings import PackagingSettings

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
LAUNCHER_SOURCE = HERE / "executor" / "launcher.c"
ARCHIVER = HERE / "archiving.py"
LOADER = "ld-linux-x86-64.so.2"
BUNDLE_SUFFIX = ".bundle"
"""As in launcher.c and `reference_impl.executor.launching`."""
ENTRY = "reference_impl.executor.__main__"

STDLIB_EXCLUDES = (
    *freezing.EXCLUDES, "idlelib", "ensurepip", "turtledemo", "turtle", "venv",
    "pydoc_data", "dbm", "_dbm", "_gdbm", "nis", "ossaudiodev", "audioop", "crypt",
    "_crypt", "_curses", "_curses_panel", "_sqlite3", "_ctypes_test", "_uuid", "_lsprof",
    "_multiprocessing", "_posixshmem",
)  # fmt: skip
"""Never imported by the executor (nor by anything it imports)."""


@dataclass(frozen=True)
class Interpreter:
    """Where the bundled interpreter and its standard library are."""

    binary: Path
    stdlib: Path
    dynload: Path
    version: str
    """`sys.version` of it."""
    tag: str
    """e.g. `3.11`."""


def _interpreter(python: Path) -> Interpreter:
    probe = (
        "import os, sys, _json; "
        "print(os.path.realpath(sys.executable)); print(os.path.dirname(os.__file__)); "
        "print(os.path.dirname(_json.__file__)); "
        "print('%d.%d' % sys.version_info[:2]); print(sys.version)"
    )
    out = commands.capture([str(python), "-I", "-S", "-c", probe], error=BuildError)
    binary, stdlib, dynload, tag, version = out.strip().split("\n", 4)
    return Interpreter(Path(binary), Path(stdlib), Path(dynload), version, tag)


def _extensions(interpreter: Interpreter) -> list[Path]:
    """Stdlib extension modules to ship (not built in, not excluded, not tests)."""
    chosen = []
    for path in sorted(interpreter.dynload.glob("*.so")):
        name = path.name.split(".")[0]
        if name in STDLIB_EXCLUDES or name.startswith(("_test", "xx", "_xx")):
            continue
        chosen.append(path)
    return chosen


def _libraries(elves: list[Path]) -> dict[str, Path]:
    """Soname -> file of every shared library `elves` need, as `ldd` resolves them."""
    found: dict[str, Path] = {}
    for elf in elves:
        listing = commands.capture(["ldd", str(elf)], error=BuildError)
        for line in listing.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
                found[parts[0]] = Path(parts[2]).resolve()
            elif parts and parts[0].startswith("/") and LOADER in parts[0]:
                found[LOADER] = Path(parts[0]).resolve()
    return found


def key(*, settings: PackagingSettings, source_set: sources.SourceSet) -> str:
    """Hash of every input of the bundle."""
    interpreter = _interpreter(settings.python)
    spec = {
        "python": interpreter.version,
        "excludes": list(STDLIB_EXCLUDES),
        "entry": ENTRY,
    }
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode())
    for path in (interpreter.binary, LAUNCHER_SOURCE, ARCHIVER, Path(__file__)):
        digest.update(path.read_bytes())
    for rel in sorted(source_set.files):
        digest.update(rel.encode())
        digest.update(source_set.files[rel].read_bytes())
    return digest.hexdigest()[:16]


def build(*, settings: PackagingSettings, root: Path = freezing.REPO_ROOT) -> Path:
    """Return the launcher `argoexec` (its bundle beside it), building it if needed."""
    source_set = sources.closure(root=root, entry=ENTRY)
    if source_set.third_party:
        raise SourceError(
            f"the executor imports {sorted(source_set.third_party)}; the bundle "
            "ships the standard library only"
        )
    name = f"argoexec-{key(settings=settings, source_set=source_set)}"
    out = settings.packaging_dir / "bundles" / name
    with freezing.exclusive(settings, name):
        if not (out / "argoexec").exists():
            _assemble(settings=settings, source_set=source_set, root=root, out=out)
    return out / "argoexec"


def _assemble(
    *,
    settings: PackagingSettings,
    source_set: sources.SourceSet,
    root: Path,
    out: Path,
) -> None:
    interpreter = _interpreter(settings.python)
    work = settings.packaging_dir / "work" / f"{out.name}.tmp"
    shutil.rmtree(work, ignore_errors=True)
    bundle = work / f"argoexec{BUNDLE_SUFFIX}"
    lib = bundle / "lib"
    dynload = lib / f"python{interpreter.tag}" / "lib-dynload"
    for directory in (bundle / "bin", dynload):
        directory.mkdir(parents=True)
    shutil.copy2(interpreter.binary, bundle / "bin" / "python3")
    extensions = _extensions(interpreter)
    for extension in extensions:
        shutil.copy2(extension, dynload / extension.name)
    needed = [interpreter.binary, *extensions, *freezing.EXECUTOR.binaries]
    for soname, path in _libraries(needed).items():
        shutil.copy2(path, lib / soname)
    for extra in freezing.EXECUTOR.binaries:  # dlopen()ed, linked by nothing
        shutil.copy2(extra, lib / extra.name)
    log = settings.logs_dir / f"bundle-{out.name}.log"
    listing = work / "sources.txt"
    listing.write_text("\n".join(sorted(source_set.files)) + "\n")
    zip_name = f"python{interpreter.tag.replace('.', '')}.zip"
    excludes = [arg for name in STDLIB_EXCLUDES for arg in ("--exclude", name)]
    commands.run(
        [str(settings.python), "-I", "-S", str(ARCHIVER), str(lib / zip_name),
         str(interpreter.stdlib), f"{root}={listing}", *excludes],
        log_path=log, error=BuildError,
    )  # fmt: skip
    commands.run(
        ["gcc", "-static", "-Os", "-s", "-Wall", "-Wextra", "-Werror",
         "-Wl,-e,launcher_entry", "-o", str(work / "argoexec"), str(LAUNCHER_SOURCE)],
        log_path=log, error=BuildError,
    )  # fmt: skip
    listing.unlink()
    # It must start and import its CLI from the bundle alone, or it is no build.
    usage = commands.capture([str(work / "argoexec"), "--help"], error=BuildError)
    if "usage: argoexec" not in usage:
        raise BundleError(f"the built argoexec printed {usage!r} for --help")
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out, ignore_errors=True)  # a half-built one of ours (same key)
    os.replace(work, out)
    logger.info("Bundled the executor into %s.", out)
