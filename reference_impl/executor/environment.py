"""The environment the user's command sees: its own, minus what packaging added.

The pod adds TMPDIR for argoexec (see the "Executor start-up and temp
directory" paragraph of `protocol`), and the launcher's hand-over puts back
what the interpreter's start changed (`launching.adopt`). None of that may
reach the user's command, which must see exactly what the container spec gave
it. Earlier packagings (staticx, then PyInstaller's one-file loader) added
these, still removed should such a build run:

    STATICX_BUNDLE_DIR, STATICX_PROG_PATH                 staticx
    _PYI_APPLICATION_HOME_DIR, _PYI_ARCHIVE_FILE,
    _PYI_PARENT_PROCESS_LEVEL, _PYI_LINUX_PROCESS_NAME     PyInstaller
    LD_LIBRARY_PATH (original kept in LD_LIBRARY_PATH_ORIG, if there was one)
"""

from __future__ import annotations

from collections.abc import Mapping

from reference_impl import common

ENV_EXECUTOR_TMPDIR = common.ENV_EXECUTOR_TMPDIR
"""Set by the controller, equal to TMPDIR, when TMPDIR was set only for argoexec."""
ENV_USER_TMPDIR = common.ENV_USER_TMPDIR
"""Set by the controller to the container's own TMPDIR when it had to override it."""

_BOOTLOADER_PREFIXES = ("STATICX_", "_PYI_", "_MEIPASS")
_LD_PATH = "LD_LIBRARY_PATH"
_LD_PATH_ORIG = "LD_LIBRARY_PATH_ORIG"


def user_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """Return `environ` as the container spec defined it, without packaging artefacts."""
    env = {k: v for k, v in environ.items() if not k.startswith(_BOOTLOADER_PREFIXES)}
    # PyInstaller points LD_LIBRARY_PATH at its unpack dir and keeps the
    # original (if any) in LD_LIBRARY_PATH_ORIG; a frozen parent only.
    if _LD_PATH_ORIG in env:
        env[_LD_PATH] = env.pop(_LD_PATH_ORIG)
    elif "_PYI_APPLICATION_HOME_DIR" in environ:
        env.pop(_LD_PATH, None)
    executor_tmpdir = env.pop(ENV_EXECUTOR_TMPDIR, None)
    user_tmpdir = env.pop(ENV_USER_TMPDIR, None)
    if executor_tmpdir is not None and env.get("TMPDIR") == executor_tmpdir:
        del env["TMPDIR"]
    if user_tmpdir is not None:
        env["TMPDIR"] = user_tmpdir
    return env
