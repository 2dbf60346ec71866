"""The report's `reproduce` line: the `wpc run` command that makes this run again.

Written for a person on another machine, so it is the installed console
script's command, not a pytest line with this checkout's paths: the profile by
its bundled name (else its path, relative to where the run started when it is
below it), every suite option that changes what runs or how it is judged (from
the command line or the ini file), the workers, and the pytest arguments given
after `--` (for example `-k`). Left out: where the run writes (report, JUnit
XML, allure results, the durations update) and what the launcher itself adds.
The same line comes out whether the run was started by `wpc run`,
`python -m conformance run` or plain pytest.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import DataError
from conformance.implementations import profiles
from conformance.plugin.selection import collection
from conformance.plugin.selection import options

OUTPUTS = frozenset({"wpc_report", "wpc_junit", "wpc_update_durations"})
"""Options that say where the run writes, not what it runs or how it judges."""
ALWAYS = frozenset({"wpc_implementation", "wpc_layout"})
"""Spelled out even at their defaults: what was tested, and in which layouts."""
LAUNCHER_VALUED = frozenset({"--alluredir", "-n", "--numprocesses", "--dist"})
"""pytest options the launcher adds (with a value), or that `-n` stands for."""
LAUNCHER_FLAGS = frozenset({"--clean-alluredir"})


def _portable(value: Any, base: Path) -> str:
    """A path relative to `base` when it lies below it; anything else as it is."""
    if not isinstance(value, Path):
        return str(value)
    found = value if value.is_absolute() else base / value
    resolved = found.resolve()
    if resolved.is_relative_to(base.resolve()):
        return resolved.relative_to(base.resolve()).as_posix()
    return str(value)


def implementation(given: str, base: Path) -> str:
    """A bundled profile by its name, else the profile file's portable path."""
    try:
        path = profiles.resolve(given)
    except DataError:
        return given  # the run stopped on it; shown as it was given
    if path.resolve().parent == profiles.PROFILES_DIR.resolve():
        return path.stem
    return _portable(Path(given), base)


def _options(config: pytest.Config, base: Path) -> Iterator[str]:
    for option in options.OPTIONS:
        if option.dest in OUTPUTS:
            continue
        value = options.value(config, option.dest)
        flag = option.flags[0]
        if option.dest == "wpc_implementation":
            name = value or options.DEFAULT_IMPLEMENTATION
            yield from (flag, implementation(str(name), base))
        elif option.dest in ALWAYS:
            yield from (flag, str(value))
        elif option.action == "append":
            for item in value or []:
                yield from (flag, _portable(item, base))
        elif option.action == "store_true" or value in (None, option.default):
            yield from option.given(value, flag=flag)
        else:
            yield from (flag, _portable(value, base))


def _wpc_flags() -> tuple[frozenset[str], frozenset[str]]:
    """The suite's pytest flags that take a value, and those that take none."""
    valued = {
        f for o in options.OPTIONS if o.action != "store_true" for f in o.pytest_flags
    }
    flags = {
        f for o in options.OPTIONS if o.action == "store_true" for f in o.pytest_flags
    }
    return frozenset(valued | LAUNCHER_VALUED), frozenset(flags | LAUNCHER_FLAGS)


def _dropped(
    arg: str, base: Path, valued: frozenset[str], flags: frozenset[str]
) -> bool:
    """Whether `arg` is the suite's or the launcher's own (a flag without a value here)."""
    if arg in flags or arg.partition("=")[0] in valued:
        return True
    if arg.startswith("-n") and arg[2:].isdigit():
        return True
    return not arg.startswith("-") and (base / arg).resolve() == collection.SUITE_DIR


def pytest_arguments(args: Sequence[str], base: Path) -> list[str]:
    """The arguments a person gave pytest besides the suite's own and the suite folder."""
    valued, flags = _wpc_flags()
    kept: list[str] = []
    words = iter(args)
    for arg in words:
        if arg in valued:
            next(words, None)  # its value
        elif not _dropped(arg, base, valued, flags):
            kept.append(arg)
    return kept


def command(config: pytest.Config) -> str:
    """The `wpc run` line of this run."""
    base = Path(config.invocation_params.dir)
    words = ["wpc", "run", *_options(config, base)]
    workers = int(getattr(config.option, "numprocesses", 0) or 0)
    if workers:
        words += ["-n", str(workers)]
    extra = pytest_arguments([str(a) for a in config.invocation_params.args], base)
    if extra:
        words += ["--", *extra]
    return shlex.join(words)
