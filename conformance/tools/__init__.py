"""The suite's own tools image: busybox plus `probe`, a small static Go helper.

Scenarios run their main containers from it (sh, echo, cat, sleep, ...), and
the suite serves an injecting mutating webhook and plain HTTP from it. It is
part of the suite, not of any implementation, so every implementation is
judged with the same tools.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from conformance import contract
from conformance.errors import CommandError
from plumbing import gobuilding

TAG = contract.TOOLS_IMAGE
PROBE_SOURCE = Path(__file__).resolve().parent / "probe"
BUSYBOX = Path("/bin/busybox")
APPLETS = (
    "sh",
    "cat",
    "echo",
    "sleep",
    "ls",
    "wget",
    "nslookup",
    "kill",
    "test",
    "true",
    "false",
    "printf",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "tar",
    "gzip",
    "env",
    "id",
    "pidof",
    "head",
    "tail",
    "grep",
    "sed",
    "wc",
    "date",
    "touch",
    "stat",
    "readlink",
    "ln",
    "seq",
    "trap",
    "exit",
    "yes",
    "httpd",
    "nc",
    "sha256sum",
    "dd",
    "chmod",
    "ps",
)
DOCKERFILE = 'FROM scratch\nCOPY rootfs/ /\nENV PATH=/bin\nENTRYPOINT ["/bin/sh"]\n'


def _digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def build_probe(cache_dir: Path) -> Path:
    """Compile the probe (static, cached by source hash) and return its path."""
    sources = sorted(PROBE_SOURCE.glob("*"))
    spec = gobuilding.GoBuild(
        name="probe",
        version=_digest(sources),
        packages=(".",),
        module_dir=PROBE_SOURCE,
        static=True,
    )
    return gobuilding.build(spec, cache_dir=cache_dir, error=CommandError) / "probe"


def prepare_context(cache_dir: Path) -> Path:
    """Write the tools image's build context (Dockerfile + rootfs) and return it."""
    ctx = cache_dir / "tools" / "context"
    shutil.rmtree(ctx, ignore_errors=True)
    bindir = ctx / "rootfs" / "bin"
    bindir.mkdir(parents=True)
    shutil.copy2(BUSYBOX, bindir / "busybox")
    for applet in APPLETS:
        (bindir / applet).symlink_to("busybox")
    shutil.copy2(build_probe(cache_dir), bindir / "probe")
    (ctx / "rootfs" / "tmp").mkdir(mode=0o1777)
    (ctx / "Dockerfile").write_text(DOCKERFILE)
    return ctx
