"""The OCI runtime dockerd runs containers with where the host withholds capabilities.

Docker 20.10 grants a `--privileged` container every capability the kernel
knows of. On a host whose capability bounding set lacks one (CAP_SYS_RESOURCE
on the project's machines), runc then fails with `unable to apply caps:
operation not permitted`, and kind, which always starts its nodes privileged,
cannot run (issue 15). This program sits between containerd's shim and runc:
it removes the withheld capabilities from the OCI document runc is about to
read (the bundle's `config.json` for `create` and `run`, the `--process` file
for `exec`) and then becomes runc. Every other call passes straight through.

It runs as a standalone script (the standard library only): `runtimes.install`
copies this file next to a JSON file `<name>.json` holding `runc` (the real
runtime) and `drop` (the capability names to remove).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CAPABILITY_SETS = ("bounding", "effective", "inheritable", "permitted", "ambient")
GLOBAL_OPTIONS_WITH_VALUE = frozenset(
    {"--root", "--log", "--log-format", "--criu", "--rootless"}
)
"""runc's global options that take a value: skipped when looking for the verb."""


def _option(args: Sequence[str], names: tuple[str, ...]) -> str | None:
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            return args[i + 1]
        for name in names:
            if name.startswith("--") and arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def verb_and_args(argv: Sequence[str]) -> tuple[str, list[str]]:
    """Split runc's arguments (without argv[0]) into its verb and the verb's arguments."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in GLOBAL_OPTIONS_WITH_VALUE:
            i += 2
        elif arg.startswith("-"):
            i += 1
        else:
            return arg, list(argv[i + 1 :])
    return "", []


def document_to_edit(argv: Sequence[str], cwd: Path) -> tuple[Path, bool] | None:
    """The OCI file runc will read, and whether it is a whole config (True) or a process."""
    verb, args = verb_and_args(argv)
    if verb in ("create", "run"):
        bundle = _option(args, ("--bundle", "-b"))
        return (Path(bundle) if bundle else cwd) / "config.json", True
    if verb == "exec":
        process = _option(args, ("--process", "-p"))
        return (Path(process), False) if process else None
    return None


def strip(process: dict[str, Any], drop: Sequence[str]) -> bool:
    """Remove `drop` from every capability set of an OCI process; True if anything went."""
    caps = process.get("capabilities") or {}
    changed = False
    for name in CAPABILITY_SETS:
        kept = [c for c in caps.get(name) or [] if c not in drop]
        if name in caps and kept != caps[name]:
            caps[name] = kept
            changed = True
    return changed


def edit(path: Path, *, whole_config: bool, drop: Sequence[str]) -> bool:
    """Rewrite the OCI file at `path` without the dropped capabilities."""
    doc = json.loads(path.read_text())
    process = doc.get("process") if whole_config else doc
    if not isinstance(process, dict) or not strip(process, drop):
        return False
    tmp = path.with_name(path.name + ".wpc-tmp")
    tmp.write_text(json.dumps(doc))
    tmp.replace(path)
    return True


def main(argv: Sequence[str]) -> None:
    """Edit the OCI document of this call if there is one, then exec the real runc."""
    settings = json.loads(Path(__file__).with_suffix(".json").read_text())
    runc, drop = str(settings["runc"]), list(settings["drop"])
    target = document_to_edit(argv[1:], Path.cwd())
    if target is not None and drop:
        try:
            edit(target[0], whole_config=target[1], drop=drop)
        except (OSError, ValueError) as exc:
            # runc reads the same file next and reports the real problem itself.
            sys.stderr.write(f"wpc-runc: left {target[0]} unedited: {exc}\n")
    os.execv(runc, [runc, *argv[1:]])


if __name__ == "__main__":
    main(sys.argv)
