"""The hand-over from the static launcher (`reference_impl/images/executor/launcher.c`).

The packaged argoexec is a small static launcher beside an unpacked bundle (its
own loader, libc, interpreter and modules; `reference_impl/images/bundling.py`).
The launcher blocks every signal except synchronous faults before anything else
and execs the bundled interpreter. Blocked signals stay pending across exec, so
nothing can kill the executor, nor be dropped by it as PID 1, while Python
starts. The executor calls `release_signals()` once its own handlers exist
(`SignalForwarder.install`, the wait/supervisor SIGTERM handler) or at once
where it has none (`init`, `kill`); pending signals then reach those handlers,
so a signal that arrives at any moment after exec is handled per the contract.

Launch arguments come first and end with `--wpc-end`:

    --wpc-launcher=PATH    the launcher; `init` copies it and PATH.bundle/
    --wpc-env=NAME=VALUE   NAME had this value: moved aside by the launcher
                           (LD_PRELOAD, LD_AUDIT of the image) or changed by the
                           interpreter's start (LC_CTYPE, PEP 538 coercion)
    --wpc-unset=NAME       NAME was not set

`adopt` strips them and gives the process back the environment the container
spec defined, which the user's command then inherits.
"""

from __future__ import annotations

import signal
from collections.abc import MutableMapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

LAUNCHER = "--wpc-launcher="
ENV = "--wpc-env="
UNSET = "--wpc-unset="
END = "--wpc-end"
BUNDLE_SUFFIX = ".bundle"
"""The bundle is the launcher's path plus this (`argoexec.bundle/`), as launcher.c finds it."""


@dataclass(frozen=True)
class Launch:
    """What the launcher said, and the command line meant for argoexec."""

    launcher: Path | None
    """None when not started by the launcher (`python -m reference_impl.executor`)."""
    argv: list[str]


def adopt(argv: Sequence[str], environ: MutableMapping[str, str]) -> Launch:
    """Strip the launch arguments from `argv` and apply them to `environ`."""
    if END not in argv:
        return Launch(launcher=None, argv=list(argv))
    end = list(argv).index(END)
    launcher: Path | None = None
    for arg in argv[:end]:
        if arg.startswith(LAUNCHER):
            launcher = Path(arg.removeprefix(LAUNCHER))
        elif arg.startswith(ENV):
            name, _, value = arg.removeprefix(ENV).partition("=")
            environ[name] = value
        elif arg.startswith(UNSET):
            environ.pop(arg.removeprefix(UNSET), None)
    return Launch(launcher=launcher, argv=list(argv[end + 1 :]))


def release_signals() -> None:
    """Unblock what the launcher blocked: pending signals reach their handlers now.

    A no-op when nothing is blocked (not launched, or already released).
    """
    signal.pthread_sigmask(signal.SIG_UNBLOCK, signal.valid_signals())
