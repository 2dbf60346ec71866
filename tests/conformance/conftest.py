"""Shared helpers for the plugin's own tests: pytester runs without a cluster."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import textwrap
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from plumbing.waiting import Abort
from plumbing.waiting import NotYet
from plumbing.waiting import until

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "plugin"
SPEC = FIXTURES / "spec.yaml"
PROFILE = FIXTURES / "profile.yaml"
PROFILE_LEGACY_ONLY = FIXTURES / "profile-legacy-only.yaml"
DIVERGENCES = FIXTURES / "divergences.yaml"

# Implements the plugin's hook so a run needs no cluster; counts its calls in a
# file so a pytest-xdist test can prove it ran once per run, not per worker.
FAKE_CLUSTER_CONFTEST = textwrap.dedent(
    """
    from conformance.implementations.contexts import RunContext


    def pytest_wpc_prepare_run(config, settings, profile, timeouts):
        with open(config.invocation_params.dir / "prepared.log", "a") as log:
            log.write("prepared\\n")
        return RunContext(
            session_id="test-session",
            started_at="2026-01-01T00:00:00+00:00",
            kubeconfig="/nonexistent/kubeconfig",
            kubectl="kubectl",
            instances=tuple(profile.instance(l) for l in settings.layouts if l in profile.layouts),
            environment={
                "provider": "fake",
                "kubernetesVersion": "v1.36.4",
                "containerRuntimeVersions": ["containerd://2.3.7"],
                "nodes": [{"name": "n1", "osImage": "Debian 12", "kernelVersion": "6.1",
                           "containerRuntimeVersion": "containerd://2.3.7"}],
                "featureGates": {},
            },
            images={"example.test/executor:1.2.3": "sha256:" + "0" * 64},
        )
    """
)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory with the fake cluster hook installed."""
    pytester.makeconftest(FAKE_CLUSTER_CONFTEST)
    pytester.makeini(
        "[pytest]\n"
    )  # keep the repository's pyproject.toml out of the run
    return pytester


def wpc_args(*extra: str, profile: Path = PROFILE) -> list[str]:
    """The options of a run against the fixture spec and the fake profile."""
    return [
        "--wpc-implementation",
        str(profile),
        "--wpc-spec",
        str(SPEC),
        "--wpc-divergences",
        str(DIVERGENCES),
        "-p",
        "no:cacheprovider",
        # In-process runs re-import the already imported `conformance` package.
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *extra,
    ]


MEASURED_ON: dict[str, Any] = {
    "commit": "0123456789abcdef0123456789abcdef01234567",
    "dirty": False,
    "changes": None,
    "specVersion": "1.0",
}
"""The `measuredOn` of `negative_report()`: a clean tree at a commit no run is at."""
NOT_RUN: list[dict[str, Any]] = [
    {"fault": "early-finalizer-removal", "reason": "chaos", "detail": "chaos only"},
    {"fault": "never-ready", "reason": "not-selected", "detail": "deselected"},
]


def negative_report(**changes: Any) -> dict[str, Any]:
    """A small valid NegativeControlsReport, with top-level keys replaced."""
    document: dict[str, Any] = {
        "apiVersion": "wpc.dev/v1alpha1",
        "kind": "NegativeControlsReport",
        "date": "2026-11-22T04:54:10+00:00",
        "implementation": "reference",
        "durationSeconds": 500.7,
        "measuredOn": dict(MEASURED_ON),
        "mutationScore": {
            "counting": "clause-assertion",
            "killed": 2,
            "total": 8,
            "score": 0.25,
            "killedClauses": ["WPC-POD-001", "WPC-POD-002"],
        },
        "faultScore": {
            "killed": 1,
            "total": 2,
            "score": 0.5,
            "survivors": ["slow-heartbeat"],
        },
        "notRun": [dict(e) for e in NOT_RUN],
        "faults": [],
    }
    document.update(changes)
    return document


def mutation_score(
    *, implementation: str, source: Path, stale_reason: str | None = None
) -> dict[str, Any]:
    """The ConformanceReport's `mutationScore` read from `negative_report()`."""
    return {
        "killed": 2,
        "counting": "clause-assertion",
        "total": 8,
        "score": 0.25,
        "killedClauses": ["WPC-POD-001", "WPC-POD-002"],
        "faults": {"killed": 1, "total": 2, "survivors": ["slow-heartbeat"]},
        "implementation": implementation,
        "source": str(source),
        "date": "2026-11-22T04:54:10+00:00",
        "measuredOn": dict(MEASURED_ON),
        "notRun": [dict(e) for e in NOT_RUN],
        "stale": stale_reason is not None,
        "staleReason": stale_reason,
    }


def write_yaml(path: Path, document: Any) -> Path:
    """Write `document` as YAML at `path` and return the path."""
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


CHILD_STEP_TIMEOUT = 60.0
"""A child process's next step (start-up, a marker file, a line of output)."""


def wait_while_running(
    proc: subprocess.Popen[bytes],
    output: Path,
    found: Callable[[], bool],
    describe: str,
    *,
    timeout: float = CHILD_STEP_TIMEOUT,
) -> None:
    """Wait until `found()`; stop at once, with `output`'s tail, if `proc` exits first."""

    def check() -> bool | NotYet:
        if found():
            return True
        if proc.poll() is not None:
            raise Abort(
                f"it ended first (exit {proc.returncode}):\n{output.read_text()[-3000:]}"
            )
        return NotYet(f"not yet; output tail: {output.read_text()[-300:]!r}")

    until(check, timeout=timeout, interval=0.05, describe=describe)


@contextlib.contextmanager
def alone(
    argv: Sequence[str], output: Path, *, cwd: Path = ROOT
) -> Iterator[subprocess.Popen[bytes]]:
    """`argv` in a session of its own, its output into `output`, this checkout first
    on its path; killed with its group if it still runs at the end.

    A session of its own: a signal the test sends to its group reaches nothing
    else, not this pytest.
    """
    with output.open("wb") as sink:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
