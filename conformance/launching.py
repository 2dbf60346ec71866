"""`python -m conformance run`: cluster up, then the suite with its reports.

The pytest plugin does the rest once pytest starts (cluster marker check,
install, tests, reports). Kept to building argv lists, so the command that
ran is the one the report's `reproduce` line shows.
"""

from __future__ import annotations

import logging
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance.errors import CommandError
from conformance.implementations import profiles
from conformance.plugin import collection

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRequest:
    """What `python -m conformance run` was asked for."""

    implementation: str
    layout: str
    provider: str
    cluster: str
    kubeconfig: Path | None
    reports_dir: Path
    report: Path | None
    features: str | None
    timeout_scale: float
    skip_install: bool
    allow_foreign_cluster: bool
    workers: int
    pytest_args: tuple[str, ...]
    negative_controls: Path | None = None
    """A NegativeControlsReport whose mutation score the report carries."""


def implementation_name(implementation: str) -> str:
    """The profile's name, for the report file names."""
    return profiles.load(implementation).name


def cluster_commands(request: RunRequest) -> list[list[str]]:
    """Commands that make sure the cluster runs (none for a given kubeconfig)."""
    if request.kubeconfig is not None:
        return []
    return [
        [
            sys.executable,
            "-m",
            "clusters",
            "up",
            "--provider",
            request.provider,
            "--name",
            request.cluster,
        ]
    ]


def pytest_command(request: RunRequest) -> list[str]:
    """The pytest invocation of the suite with the plugin's options and reports."""
    name = implementation_name(request.implementation)
    report = request.report or request.reports_dir / f"conformance-{name}.yaml"
    argv = [
        sys.executable,
        "-m",
        "pytest",
        str(collection.SUITE_DIR),
        "--implementation",
        request.implementation,
        "--layout",
        request.layout,
        "--report",
        str(report),
        "--wpc-junit",
        str(request.reports_dir / f"junit-{name}.xml"),
        "--alluredir",
        str(request.reports_dir / f"allure-{name}"),
        "--clean-alluredir",
        "--timeout-scale",
        str(request.timeout_scale),
    ]
    if request.kubeconfig is not None:
        argv += ["--kubeconfig", str(request.kubeconfig)]
    else:
        argv += ["--provider", request.provider, "--cluster-name", request.cluster]
    if request.features is not None:
        argv += ["--features", request.features]
    if request.skip_install:
        argv.append("--skip-install")
    if request.allow_foreign_cluster:
        argv.append("--allow-foreign-cluster")
    if request.negative_controls is not None:
        argv += ["--negative-controls", str(request.negative_controls)]
    if request.workers:
        argv += ["-n", str(request.workers)]
    return argv + list(request.pytest_args)


def run(request: RunRequest) -> int:
    """Bring the cluster up, run the suite; return pytest's exit code."""
    for command in cluster_commands(request):
        logger.info("Running %s.", shlex.join(command))
        # Not plumbing.commands: `clusters up` reports its progress on the
        # console as it goes, which a captured or logged run would hide.
        proc = subprocess.run(command, check=False)
        if proc.returncode != 0:
            raise CommandError(
                command=command,
                returncode=proc.returncode,
                output="(see the output above)",
            )
    command = pytest_command(request)
    logger.info("Running %s.", shlex.join(command))
    # Not plumbing.commands: pytest's live progress belongs on the console, and
    # its exit code is this command's, not an error.
    return subprocess.run(command, check=False).returncode
