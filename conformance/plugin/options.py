"""The suite's options, defined once for both front ends, and `RunSettings`.

`OPTIONS` is the one table: plain `pytest` registers it (`add`), and
`python -m conformance run` adds the same flags to its own parser
(`add_arguments`) and forwards what was given (`forwarded`), so both accept
the same names. Values come from the table's defaults, then the command
line; a name's first flag is its spelling, the others are old aliases kept
working (`--cluster-name` for `--cluster`). There is no options file.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.harness import layouts
from conformance.plugin import collection
from conformance.plugin.settings import RunSettings
from conformance.report import divergences

DEFAULT_IMPLEMENTATION = "reference"


@dataclass(frozen=True)
class Option:
    """One option of the suite, as both parsers take it."""

    flags: tuple[str, ...]
    """The spelling first, then aliases."""
    dest: str
    """Attribute name in `config.option` and in the CLI's namespace (`wpc_*`)."""
    help: str
    default: Any = None
    type: Callable[[str], Any] | None = None
    action: str | None = None
    """None (one value), "store_true" or "append"."""
    choices: tuple[str, ...] | None = None
    metavar: str | None = None

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `addoption` / `add_argument`."""
        found: dict[str, Any] = {"dest": self.dest, "help": self.help}
        if self.action == "store_true":
            found["action"] = "store_true"
            return found
        found["default"] = [] if self.action == "append" else self.default
        for key in ("type", "action", "choices", "metavar"):
            value = getattr(self, key)
            if value is not None:
                found[key] = value
        return found

    def given(self, value: Any) -> list[str]:
        """The flags that pass `value` on to pytest; none for the default."""
        if self.action == "store_true":
            return [self.flags[0]] if value else []
        if self.action == "append":
            return [arg for item in value or [] for arg in (self.flags[0], str(item))]
        if value is None or value == self.default:
            return []
        return [self.flags[0], str(value)]


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
        default="both",
        choices=("legacy", "initless", "both"),
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
        "cluster provider of `clusters` (default: local)",
        default="local",
    ),
    Option(
        ("--cluster", "--cluster-name"),
        "wpc_cluster_name",
        "cluster name for `clusters` (default: wpc)",
        default="wpc",
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
        "multiply every named timeout (recorded in the report)",
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
)
BY_DEST = {option.dest: option for option in OPTIONS}


def add(parser: pytest.Parser) -> None:
    """Register the suite's options with pytest (all `wpc_*` in `config.option`)."""
    group = parser.getgroup("wpc", "WPC workflow pod conformance")
    for option in OPTIONS:
        group.addoption(*option.flags, **option.kwargs())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the same options to the `python -m conformance run` parser."""
    for option in OPTIONS:
        parser.add_argument(*option.flags, **option.kwargs())


def forwarded(values: Mapping[str, Any], *, skip: frozenset[str]) -> list[str]:
    """Flags passing every given option in `values` on to pytest, but `skip`."""
    return [
        arg
        for option in OPTIONS
        if option.dest not in skip
        for arg in option.given(values.get(option.dest))
    ]


def is_active(config: pytest.Config) -> bool:
    """Active with --implementation, or when a command-line path is inside the suite."""
    if config.getoption("wpc_implementation"):
        return True
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0])
        if collection.in_suite(path):
            return True
    return False


def profile_vars(pairs: list[str]) -> dict[str, str]:
    """Parse repeated `--profile-var NAME=VALUE` options; UsageError on nonsense."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise pytest.UsageError(
                f"--profile-var must look like NAME=VALUE, not {pair!r}"
            )
        if name.strip() in values:
            raise pytest.UsageError(f"--profile-var {name.strip()} given twice")
        values[name.strip()] = value
    return values


def settings(config: pytest.Config) -> RunSettings:
    """Validate the options into RunSettings; UsageError on nonsense."""
    opt = config.getoption
    report: Path | None = opt("wpc_report")
    features = opt("wpc_features")
    scale = float(opt("wpc_timeout_scale"))
    if scale <= 0:
        raise pytest.UsageError(f"--timeout-scale must be positive, not {scale}")
    return RunSettings(
        implementation=opt("wpc_implementation") or DEFAULT_IMPLEMENTATION,
        layouts=layouts.parse_selection(opt("wpc_layout")),
        kubeconfig=opt("wpc_kubeconfig"),
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
        reports_dir=report.parent if report else Path(config.rootpath, "reports"),
        profile_vars=profile_vars(list(opt("wpc_profile_vars") or [])),
        negative_controls=opt("wpc_negative_controls"),
    )
