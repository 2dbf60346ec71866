"""The suite's options, defined once for both front ends, and `RunSettings`.

`OPTIONS` is the one table. `python -m conformance run` (and `wpc run`) takes
each under its front-end spelling (`--implementation`, `--layout`, ...;
`add_arguments`) and forwards what was given to pytest (`forwarded`). Plain
`pytest` takes the same options prefixed, `--wpc-implementation`,
`--wpc-layout`, ... (`add`), so the plugin never collides with another
project's `--report` or `--kubeconfig` (#12), and each also as an ini option
named after its pytest flag (`wpc_implementation`, `wpc_layout`, ...) in
`[tool.pytest.ini_options]` or `pytest.ini`. A value comes from the command
line, else the ini file, else the table's default (`value`). A name's first
flag is its spelling, the others are old aliases kept working
(`--cluster-name` for `--cluster`).

Without `--wpc-kubeconfig` (or `wpc_kubeconfig`) and without a provider or
cluster named on the command line or in the ini file, plain pytest uses the
cluster of `KUBECONFIG` when it is set (its first file), as kubectl would; the
marker check still refuses a cluster WPC did not make unless
`--wpc-allow-foreign-cluster`. The front ends always name the provider.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import DataError
from conformance.harness.cluster import timeouts
from conformance.harness.instances import layouts
from conformance.implementations import variables
from conformance.implementations.contexts import Environment
from conformance.plugin.selection import collection
from conformance.plugin.state import scheduling
from conformance.plugin.state.settings import RunSettings
from conformance.report.runs import divergences
from conformance.report.runs import durations

DEFAULT_IMPLEMENTATION = "reference"
PREFIX = "--wpc-"


@dataclass(frozen=True)
class Option:
    """One option of the suite, as both parsers take it."""

    flags: tuple[str, ...]
    """The front end's spelling first, then aliases (pytest's add `--wpc-`)."""
    dest: str
    """Attribute name in `config.option` and in the CLI's namespace (`wpc_*`)."""
    help: str
    default: Any = None
    type: Callable[[str], Any] | None = None
    action: str | None = None
    """None (one value), "store_true" or "append"."""
    metavar: str | None = None

    @property
    def pytest_flags(self) -> tuple[str, ...]:
        """The flags plain pytest takes: each front-end flag with the `--wpc-` prefix."""
        return tuple(
            flag if flag.startswith(PREFIX) else PREFIX + flag[2:]
            for flag in self.flags
        )

    @property
    def ini(self) -> str:
        """The ini option's name: the pytest spelling as an identifier."""
        return self.pytest_flags[0][2:].replace("-", "_")

    @property
    def unset(self) -> Any:
        """What the option is without a value from anywhere."""
        if self.action == "append":
            return []
        if self.action == "store_true":
            return False
        return self.default

    def kwargs(self, *, for_pytest: bool = False) -> dict[str, Any]:
        """Keyword arguments for `addoption` / `add_argument`.

        pytest's default is None, so `value` can tell an option not given on the
        command line (then the ini file decides) from one given as the default.
        """
        found: dict[str, Any] = {"dest": self.dest, "help": self.help}
        if self.action == "store_true":
            found["action"] = "store_true"
            if for_pytest:
                found["default"] = None
            return found
        if for_pytest:
            found["default"] = None
        else:
            found["default"] = [] if self.action == "append" else self.default
        for key in ("type", "action", "metavar"):
            value = getattr(self, key)
            if value is not None:
                found[key] = value
        return found

    def ini_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `addini`."""
        kind = {"store_true": "bool", "append": "linelist"}.get(
            self.action or "", "string"
        )
        return {"help": f"{self.help} (= {self.pytest_flags[0]})", "type": kind}

    def from_ini(self, raw: Any) -> Any:
        """An ini value as the command line would have given it; UsageError on nonsense."""
        if self.action in ("store_true", "append"):
            return raw
        text = str(raw).strip()
        try:
            return self.type(text) if self.type is not None else text
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise pytest.UsageError(f"ini option {self.ini}: {exc}") from exc

    def given(self, value: Any, *, flag: str | None = None) -> list[str]:
        """The pytest flags that pass `value` on to pytest; none for the default.

        `flag` spells it otherwise (the front end's `flags[0]` for a `wpc run` line).
        """
        flag = flag or self.pytest_flags[0]
        if self.action == "store_true":
            return [flag] if value else []
        if self.action == "append":
            return [arg for item in value or [] for arg in (flag, str(item))]
        if value is None or value == self.default:
            return []
        return [flag, str(value)]


OPTIONS = (
    Option(
        ("--implementation",),
        "wpc_implementation",
        "implementation profile: bundled name (reference, argo-workflows, ...) "
        "or path to a profile YAML; activates the suite",
    ),
    Option(
        ("--profile-var",),
        "wpc_profile_vars",
        "value of a variable the profile declares (repeatable), "
        "e.g. --profile-var fault=never-ready",
        action="append",
        metavar="NAME=VALUE",
    ),
    Option(
        ("--layout",),
        "wpc_layout",
        "pod layouts to run (default: both; unclaimed ones are skipped)",
        default=layouts.BOTH,
        type=layouts.selection_argument,
        metavar=layouts.metavar(),
    ),
    Option(
        ("--kubeconfig",),
        "wpc_kubeconfig",
        "kubeconfig of the cluster under test, used as it is "
        "(instead of --provider/--cluster)",
        type=Path,
    ),
    Option(
        ("--provider",),
        "wpc_provider",
        "cluster provider of `clusters` (default: local); existing: a cluster WPC "
        "did not make (wpc run finds it as kubectl does: KUBECONFIG, --context)",
        default="local",
    ),
    Option(
        ("--cluster", "--cluster-name"),
        "wpc_cluster_name",
        "cluster name for `clusters` (default: wpc); existing: one kubeconfig file",
        default="wpc",
    ),
    Option(
        ("--select",),
        "wpc_select",
        "run only the tests this names (repeatable): a ShortName (HelloWorld), a "
        "test's identity (HelloWorld[legacy]), a clause ID (WPC-KILL-003), an area "
        "(KILL), or a glob over those (Status*); `--list` shows the names",
        action="append",
        metavar="NAME",
    ),
    Option(
        ("--features",),
        "wpc_features",
        "comma list of claimed features (default: what the profile claims)",
    ),
    Option(
        ("--report",),
        "wpc_report",
        "write the ConformanceReport YAML here",
        type=Path,
    ),
    Option(
        ("--wpc-junit",),
        "wpc_junit",
        "write JUnit XML with WPC's outcome mapping here",
        type=Path,
    ),
    Option(
        ("--timeout-scale",),
        "wpc_timeout_scale",
        "multiply every harness timeout by this finite factor of at least 1 "
        "(recorded in the report)",
        default=1.0,
        type=float,
    ),
    Option(
        ("--allow-foreign-cluster",),
        "wpc_allow_foreign",
        "run against a cluster without the WPC marker ConfigMap",
        action="store_true",
    ),
    Option(
        ("--skip-install",),
        "wpc_skip_install",
        "assume the implementation is installed already",
        action="store_true",
    ),
    Option(
        ("--wpc-spec",),
        "wpc_spec",
        "requirements file to judge against (default: the bundled spec)",
        type=Path,
    ),
    Option(
        ("--wpc-divergences",),
        "wpc_divergences",
        "expected layout divergences (default: conformance/divergences.yaml)",
        type=Path,
    ),
    Option(
        ("--negative-controls",),
        "wpc_negative_controls",
        "NegativeControlsReport (make negative-controls) whose mutation score "
        "the ConformanceReport carries; only for the implementation whose broken "
        "variants were run (reference)",
        type=Path,
        metavar="PATH",
    ),
    Option(
        ("--require-must-coverage",),
        "wpc_require_must",
        "fail the run when a MUST clause has no test",
        action="store_true",
    ),
    Option(
        ("--shard",),
        "wpc_shard",
        "run shard I of N (e.g. 2/4): a deterministic part of the selection, "
        "balanced by the durations file; `wpc merge` joins the shards' reports",
        metavar="I/N",
    ),
    Option(
        ("--durations-file",),
        "wpc_durations",
        "item durations that order the run (longest first) and balance shards "
        "(default: conformance/durations.json)",
        type=Path,
        metavar="PATH",
    ),
    Option(
        ("--update-durations",),
        "wpc_update_durations",
        "after the run, fold its items' durations into the durations file",
        action="store_true",
    ),
    Option(
        ("--history-result",),
        "wpc_history_result",
        "HistoryResult (make history) whose historical mutation score, fixed bugs "
        "caught / in scope, the ConformanceReport carries",
        type=Path,
        metavar="PATH",
    ),
)
BY_DEST = {option.dest: option for option in OPTIONS}


def add(parser: pytest.Parser) -> None:
    """Register the suite's options with pytest: `--wpc-*` flags and `wpc_*` ini keys."""
    group = parser.getgroup("wpc", "WPC workflow pod conformance")
    for option in OPTIONS:
        group.addoption(*option.pytest_flags, **option.kwargs(for_pytest=True))
        parser.addini(option.ini, **option.ini_kwargs())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the same options to the `python -m conformance run` parser."""
    for option in OPTIONS:
        parser.add_argument(*option.flags, **option.kwargs())


def forwarded(values: Mapping[str, Any], *, skip: frozenset[str]) -> list[str]:
    """pytest flags passing every given option in `values` on to pytest, but `skip`."""
    return [
        arg
        for option in OPTIONS
        if option.dest not in skip
        for arg in option.given(values.get(option.dest))
    ]


def _from_command_line(config: pytest.Config, dest: str) -> Any:
    given = config.getoption(dest)
    return None if given in (None, []) else given


def _from_ini(config: pytest.Config, dest: str) -> Any:
    option = BY_DEST[dest]
    raw = config.getini(option.ini)
    if raw in (None, "", [], False):
        return None
    return option.from_ini(raw)


def is_given(config: pytest.Config, dest: str) -> bool:
    """Whether the command line or the ini file sets the option."""
    return (
        _from_command_line(config, dest) is not None
        or _from_ini(config, dest) is not None
    )


def value(config: pytest.Config, dest: str) -> Any:
    """The option's value: the command line, else the ini file, else the default."""
    for found in (_from_command_line(config, dest), _from_ini(config, dest)):
        if found is not None:
            return found
    return BY_DEST[dest].unset


def is_active(config: pytest.Config) -> bool:
    """Active with --wpc-implementation (or its ini key), or a path inside the suite."""
    if value(config, "wpc_implementation"):
        return True
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0])
        if collection.in_suite(path):
            return True
    return False


def profile_vars(pairs: list[str]) -> dict[str, str]:
    """Parse repeated `--profile-var NAME=VALUE` options; UsageError on nonsense."""
    try:
        return variables.parse(pairs, source="--wpc-profile-var")
    except DataError as exc:
        raise pytest.UsageError(str(exc)) from exc


def kubeconfig(config: pytest.Config) -> Path | None:
    """--wpc-kubeconfig, else `KUBECONFIG` unless a provider or cluster is named."""
    given: Path | None = value(config, "wpc_kubeconfig")
    if given is not None:
        return given
    if is_given(config, "wpc_provider") or is_given(config, "wpc_cluster_name"):
        return None
    return Environment.from_env().kubeconfig


def settings(config: pytest.Config) -> RunSettings:
    """Validate the options into RunSettings; UsageError on nonsense."""

    def opt(dest: str) -> Any:
        return value(config, dest)

    report: Path | None = opt("wpc_report")
    features = opt("wpc_features")
    scale_option = BY_DEST["wpc_timeout_scale"]
    scale_name = (
        scale_option.pytest_flags[0]
        if _from_command_line(config, "wpc_timeout_scale") is not None
        else f"ini option {scale_option.ini}"
    )
    shard = opt("wpc_shard")
    try:
        scale = timeouts.checked_scale(float(opt("wpc_timeout_scale")), scale_name)
        parsed = (
            scheduling.parse_shard(shard, flag="--wpc-shard")
            if shard is not None
            else None
        )
    except DataError as exc:
        raise pytest.UsageError(str(exc)) from exc
    return RunSettings(
        implementation=opt("wpc_implementation") or DEFAULT_IMPLEMENTATION,
        layouts=layouts.parse_selection(opt("wpc_layout")),
        kubeconfig=kubeconfig(config),
        provider=opt("wpc_provider"),
        cluster_name=opt("wpc_cluster_name"),
        features=frozenset(f.strip() for f in features.split(",") if f.strip())
        if features is not None
        else None,
        report=report,
        junit=opt("wpc_junit"),
        timeout_scale=scale,
        allow_foreign_cluster=bool(opt("wpc_allow_foreign")),
        skip_install=bool(opt("wpc_skip_install")),
        spec_path=opt("wpc_spec"),
        divergences_path=opt("wpc_divergences") or divergences.DEFAULT_PATH,
        require_must_coverage=bool(opt("wpc_require_must")),
        history_result=opt("wpc_history_result"),
        reports_dir=report.parent if report else Path(config.rootpath, "reports"),
        profile_vars=profile_vars(list(opt("wpc_profile_vars") or [])),
        negative_controls=opt("wpc_negative_controls"),
        shard=parsed,
        durations_path=opt("wpc_durations") or durations.DEFAULT_PATH,
        update_durations=bool(opt("wpc_update_durations")),
    )
