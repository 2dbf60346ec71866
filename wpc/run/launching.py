"""`python -m conformance run`: cluster up, then the suite with its reports.

The pytest plugin does the rest once pytest starts (cluster marker check,
install, tests, reports). Kept to building argv lists; the report's
`reproduce` line is the `wpc run` command they come from
(`conformance.plugin.reporting.reproducing` reads it back from pytest's arguments).
"""

from __future__ import annotations

import logging
import os
import shlex
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clusters.access import kubeconfigs
from conformance.errors import CommandError
from conformance.exitcodes import ExitCode
from conformance.implementations import profiles
from conformance.plugin.selection import collection
from conformance.plugin.selection import listing
from conformance.plugin.selection import options
from conformance.plugin.state import preloaded
from conformance.report.rendering import html
from wpc.run import targeting

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRequest:
    """What `python -m conformance run` was asked for.

    `options` holds the suite's options (`conformance.plugin.selection.options.OPTIONS`,
    keyed by their `wpc_*` dest) as the CLI parsed them; they are passed on to
    pytest under their own spelling. The rest is the launcher's own.
    """

    options: Mapping[str, Any]
    reports_dir: Path
    """Where the report, JUnit XML and allure results go by default."""
    workers: int = 0
    """pytest-xdist workers (0: none)."""
    pytest_args: tuple[str, ...] = ()
    context: str | None = None
    """--context: the kubeconfig's context to use (`targeting`); None: the current one."""
    profile: profiles.Profile | None = None
    """The profile as the preflight loaded and checked it, passed on so that
    the launcher loads it once; None (`--list`, tests): loaded where needed."""

    def option(self, dest: str) -> Any:
        """One option's value, or its default when the CLI did not set it."""
        value = self.options.get(dest)
        return options.BY_DEST[dest].default if value is None else value


def implementation_name(request: RunRequest) -> str:
    """The profile's name, for the report file names."""
    if request.profile is not None:
        return request.profile.name
    return profiles.load(str(request.option("wpc_implementation"))).name


def cluster_commands(request: RunRequest) -> list[list[str]]:
    """Commands that make sure the cluster runs (none for a cluster WPC did not make)."""
    if (
        request.option("wpc_kubeconfig") is not None
        or request.option("wpc_provider") == targeting.EXISTING
    ):
        return []
    return [
        [
            sys.executable,
            "-m",
            "clusters",
            "up",
            "--provider",
            str(request.option("wpc_provider")),
            "--name",
            str(request.option("wpc_cluster_name")),
        ]
    ]


LAUNCHER_OWNED = frozenset(
    {
        "wpc_implementation",
        "wpc_layout",
        "wpc_report",
        "wpc_junit",
        "wpc_timeout_scale",
        "wpc_kubeconfig",
        "wpc_provider",
        "wpc_cluster_name",
    }
)
"""Options the launcher always spells out itself, in a fixed order."""


def _flag(dest: str) -> str:
    """The pytest spelling of one of the suite's options (`--wpc-...`)."""
    return options.BY_DEST[dest].pytest_flags[0]


def report_path(request: RunRequest) -> Path:
    """The ConformanceReport YAML of the run (its HTML goes beside it)."""
    given: Path | None = request.option("wpc_report")
    if given is not None:
        return given
    name = implementation_name(request)
    return request.reports_dir / f"conformance-{name}.yaml"


def pytest_command(request: RunRequest, *, chosen: Path | None = None) -> list[str]:
    """The pytest invocation of the suite with the plugin's options and reports.

    `chosen`: the kubeconfig `targeting.written` made for the run, which stands
    for the user's (`--kubeconfig`) or is the existing provider's cluster.
    """
    implementation = str(request.option("wpc_implementation"))
    name = implementation_name(request)
    reports_dir = request.reports_dir
    report = report_path(request)
    junit = request.option("wpc_junit") or reports_dir / f"junit-{name}.xml"
    argv = [
        sys.executable,
        "-m",
        "pytest",
        str(collection.SUITE_DIR),
        _flag("wpc_implementation"),
        implementation,
        _flag("wpc_layout"),
        str(request.option("wpc_layout")),
        _flag("wpc_report"),
        str(report),
        _flag("wpc_junit"),
        str(junit),
        "--alluredir",
        str(reports_dir / f"allure-{name}"),
        "--clean-alluredir",
        _flag("wpc_timeout_scale"),
        str(request.option("wpc_timeout_scale")),
    ]
    kubeconfig = request.option("wpc_kubeconfig")
    if kubeconfig is not None:
        argv += [_flag("wpc_kubeconfig"), str(chosen or kubeconfig)]
    elif chosen is not None:
        argv += [
            _flag("wpc_provider"),
            targeting.EXISTING,
            _flag("wpc_cluster_name"),
            str(chosen),
        ]
    else:
        # Always named, so a KUBECONFIG in the environment never redirects the run.
        argv += [
            _flag("wpc_provider"),
            str(request.option("wpc_provider")),
            _flag("wpc_cluster_name"),
            str(request.option("wpc_cluster_name")),
        ]
    argv += options.forwarded(request.options, skip=LAUNCHER_OWNED)
    if request.workers:
        argv += ["-n", str(request.workers)]
    return argv + list(request.pytest_args)


LIST_SKIPS = frozenset(
    {"wpc_implementation", "wpc_layout", "wpc_report", "wpc_junit"}
    | {"wpc_negative_controls", "wpc_require_must"}
    | {"wpc_history_result"}
)
"""Options that only matter to a run's reports; `--list` writes none."""


def list_arguments(request: RunRequest) -> list[str]:
    """The plugin's options for `run --list`: the same selection a run would make."""
    return [
        _flag("wpc_implementation"),
        str(request.option("wpc_implementation")),
        _flag("wpc_layout"),
        str(request.option("wpc_layout")),
        *options.forwarded(request.options, skip=LIST_SKIPS),
        *request.pytest_args,
    ]


def collect(request: RunRequest) -> listing.Listing:
    """The suite collected in this process as a run would select it (`listing`).

    With the profile the preflight loaded, if any: the plugin takes that one.
    """
    given = None
    if request.profile is not None:
        given = preloaded.Preloaded(
            profile=request.profile,
            implementation=str(request.option("wpc_implementation")),
            variables=options.profile_vars(
                list(request.option("wpc_profile_vars") or [])
            ),
        )
    return listing.collect(list_arguments(request), profile=given)


def list_tests(request: RunRequest) -> int:
    """Print what `run` would run and why anything would not; change nothing.

    No `clusters up`, no install, no cluster client: pytest collects the suite
    in this process (`conformance.plugin.selection.listing`).
    """
    cluster = targeting.describe(
        request.options, request.context, targeting.Lookup.from_env()
    )
    found = collect(request)
    sys.stdout.write("".join(f"{line}\n" for line in [cluster, *found.lines()]))
    return found.exit_code


def run(request: RunRequest) -> int:
    """Bring the cluster up, run the suite; return pytest's exit code.

    `ExitCode.CLUSTER_FAILED` when the cluster does not come up; pytest's
    INTERRUPTED (2) when a signal stopped `clusters up` (which rolls back first).
    """
    chosen = targeting.choose(
        request.options, request.context, targeting.Lookup.from_env()
    )
    with targeting.written(chosen) as kubeconfig:
        return _run_on(request, kubeconfig)


def _run_on(request: RunRequest, kubeconfig: Path | None) -> int:
    """`run` once the cluster is chosen; `kubeconfig` is the file `targeting` wrote."""
    # Imported here: `--list` runs pytest in this process, and a plumbing module
    # imported before it could not get pytest's assertion rewriting.
    from plumbing.forwarding import run_forwarding
    from plumbing.forwarding import run_to_end

    for command in cluster_commands(request):
        logger.info("Running %s.", shlex.join(command))
        # Not plumbing.commands: `clusters up` reports its progress on the
        # console as it goes, which a captured or logged run would hide. Not
        # subprocess.run either: on Ctrl-C it kills `clusters up` 0.25 s later,
        # in the middle of its rollback; run_to_end passes the signal on and
        # waits for the rollback to finish. One SIGINT, whatever came: `clusters
        # up` rolls back on SIGINT and SIGTERM only (SIGHUP would kill it).
        ended = run_to_end(command, once=signal.SIGINT)
        if ended.signals:
            logger.error(
                "Interrupted by %s while the cluster came up: `clusters up` "
                "stopped (exit %d) after rolling back; no test ran.",
                ended.signals[0],
                ended.status,
            )
            return pytest.ExitCode.INTERRUPTED
        if ended.status != 0:
            logger.error(
                "%s",
                CommandError(
                    command=command,
                    returncode=ended.status,
                    output="(see the output above)",
                ),
            )
            return ExitCode.CLUSTER_FAILED
    command = pytest_command(request, chosen=kubeconfig)
    logger.info("Running %s.", shlex.join(command))
    # Not plumbing.commands: pytest's live progress belongs on the console, and
    # its exit code is this command's, not an error. Not subprocess.run either:
    # on Ctrl-C it kills pytest 0.25 s later, before any teardown, sweep or
    # report; run_forwarding passes the signal on and waits for all three.
    started = time.time()
    # KUBECONFIG too: a tool that reads it by itself finds the run's context alone.
    env = (
        None
        if kubeconfig is None
        else {**os.environ, kubeconfigs.VARIABLE: str(kubeconfig)}
    )
    returncode = run_forwarding(command, env=env)
    page = html.path_beside(report_path(request))
    if page.exists() and page.stat().st_mtime >= started - 1:
        # The last line of the run: where to look first.
        sys.stdout.write(f"HTML report: {page}\n")
    return returncode
