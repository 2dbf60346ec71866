"""Run the suite against one faulty reference implementation and judge what it found.

For one row of `controls.yaml`, in order: install the row's layouts through the
`reference-faulty` profile with `--profile-var fault=<name>` (instances
`wpc-neg-<fault>-<layout>`, so faults never share a controller and can run side by
side), prove that each instance's running controller has the fault (`check_fault`:
the leader writes the fault it runs with on its Lease; the Deployment's env alone
proves nothing about the process), run pytest in a subprocess on the row's killers
and canaries only, read the ConformanceReport it writes, and uninstall, waiting
until the instances are gone (`run_faults` does that beside the next rows). A row
whose controller runs another fault, or none, is not judged: a RunnerError names
the expected and the observed fault. The subprocess is a real suite run: the plugin's own outcome mapping decides failed
versus error, and its report names each test's clauses.

Everything a fault's run writes goes to `<out_dir>/<fault>/`: `pytest.log`,
`conformance.yaml`, `junit.xml`, failure evidence; profile command logs go to
`<out_dir>/logs/`.
"""

from __future__ import annotations

import functools
import logging
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from collections.abc import Iterable
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.errors import ConformanceError
from conformance.errors import WaitTimeout
from conformance.harness.cluster import watching
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import driving
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice
from conformance.implementations.contexts import Environment
from conformance.plugin.selection import collection
from plumbing.waiting import Clock
from plumbing.waiting import NotYet
from reference_impl import common
from tests.negative import results
from tests.negative import scoring
from tests.negative.controls import Control
from tests.negative.controls import TestRef

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
PROFILE = collection.SUITE_DIR.parent / "profiles" / "reference-faulty.yaml"
RUN_TIMEOUT = 900.0
"""Budget of one fault's pytest subprocess; a hung run fails with its log."""


class RunnerError(Exception):
    """A fault's run could not be judged: the command, exit code and log say why."""


@dataclass(frozen=True)
class Target:
    """The cluster the faulty instances go to, and where results are written."""

    provider: str
    cluster: str
    kubeconfig: str
    kubectl: str
    cache_dir: Path
    out_dir: Path

    @classmethod
    def locate(cls, *, provider: str, cluster: str, out_dir: Path) -> Target:
        """Find a running cluster through `clusters`; RunnerError if it is down."""
        from clusters import providers

        found = providers.get(provider)
        if not found.status(cluster).running:
            raise RunnerError(
                f"the {provider} cluster {cluster!r} is not running: "
                f"run `python -m clusters up --provider {provider} --name {cluster}`"
            )
        return cls(
            provider=provider,
            cluster=cluster,
            kubeconfig=str(found.kubeconfig(cluster)),
            kubectl=str(found.kubectl(cluster)),
            cache_dir=Environment.from_env().cache_dir,
            out_dir=out_dir,
        )

    def placeholders(self) -> dict[str, str]:
        """The common placeholder values of profile commands."""
        return {
            "repo": str(REPO),
            "python": sys.executable,
            "kubeconfig": self.kubeconfig,
            "kubectl": self.kubectl,
            "provider": self.provider,
            "cluster": self.cluster,
            "cache_dir": str(self.cache_dir),
        }


def driver(target: Target, fault: str) -> driving.Driver:
    """The faulty profile's commands with `fault` filled in."""
    profile = profiles.load(str(PROFILE), variables={"fault": fault})
    return driving.Driver(
        profile=profile,
        values=target.placeholders(),
        log_dir=target.out_dir / "logs",
        timeout=Timeouts().install,
    )


def _each_layout(drv: driving.Driver, kind: str, layouts: Iterable[str]) -> None:
    with futures.ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [
            pool.submit(drv.control, kind, drv.profile.instance(layout))
            for layout in layouts
        ]
        for job in jobs:
            job.result()  # re-raises the CommandError, with its evidence


def prepare(target: Target) -> None:
    """Load the images and apply the shared objects (once per session).

    The suite's tools image too: the killers and canaries run their user
    commands from it, and on a cluster just made (`make negative-controls`
    alone) nothing else has loaded it: every workflow would sit in
    ImagePullBackOff, and every row would come out as timeouts.
    """
    preparing.load_tools_image(
        ClusterChoice(
            kubeconfig=None,
            provider=target.provider,
            cluster=target.cluster,
            allow_foreign=False,
        )
    )
    drv = driver(target, "")
    drv.prepare(drv.profile.layouts)


def install(target: Target, fault: str, layouts: Iterable[str]) -> None:
    """Install the fault's instances of `layouts` (and wait until they run)."""
    _each_layout(driver(target, fault), "install", layouts)


def uninstall(target: Target, fault: str, layouts: Iterable[str]) -> None:
    """Uninstall the fault's instances of `layouts` and wait until they are gone."""
    _each_layout(driver(target, fault), "uninstall", layouts)


LeaseReader = Callable[[str, str], dict[str, Any] | None]
"""(namespace, name) -> the Lease as JSON, or None when there is none."""
LEASE_POLL = 1.0
"""Seconds between two reads of a Lease not yet stamped."""


def read_lease(target: Target) -> LeaseReader:
    """A LeaseReader over the target cluster's API."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    from conformance.harness.cluster import kube

    api = kube.connect(target.kubeconfig).api
    leases = client.CoordinationV1Api(api)

    def read(namespace: str, name: str) -> dict[str, Any] | None:
        try:
            lease = leases.read_namespaced_lease(name, namespace)
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        found: dict[str, Any] = api.sanitize_for_serialization(lease)
        return found

    return read


def _published(lease: dict[str, Any] | None, where: str) -> tuple[str] | NotYet:
    """The fault a Lease's holder published, once it has (a tuple: "" is no fault)."""
    if lease is None:
        return NotYet(f"no Lease {where}")
    annotations = (lease.get("metadata") or {}).get("annotations") or {}
    holder = (lease.get("spec") or {}).get("holderIdentity")
    if not holder or common.ANNOTATION_REFERENCE_FAULT not in annotations:
        return NotYet(
            f"Lease {where} held by {holder or 'nobody'} without "
            f"{common.ANNOTATION_REFERENCE_FAULT}"
        )
    return (str(annotations[common.ANNOTATION_REFERENCE_FAULT]),)


def _await_published(
    read: Callable[[], dict[str, Any] | None],
    *,
    where: str,
    describe: str,
    timeout: float,
    clock: Clock | None,
) -> str:
    (found,) = watching.until(
        lambda: _published(read(), where),
        timeout=timeout,
        interval=LEASE_POLL,
        describe=describe,
        clock=clock,
    )
    return found


def check_fault(
    target: Target,
    control: Control,
    *,
    reader: LeaseReader | None = None,
    timeout: float | None = None,
    clock: Clock | None = None,
) -> None:
    """RunnerError unless every instance of the row runs a controller with its fault.

    Reads the leader Lease of each instance (`workflow-controller-<instance ID>` in
    the instance's namespace), on which the leading controller process writes the
    fault it was started with, and waits (at most `controller_ready`) for a leader
    to have written it.
    """
    read = reader or read_lease(target)
    profile = driver(target, control.fault).profile
    budget = Timeouts().controller_ready if timeout is None else timeout
    for layout in control.layouts:
        instance = profile.instance(layout)
        namespace = instance.namespace
        name = common.default_lease_name(instance.instance_id)
        where = f"{namespace}/{name}"
        try:
            observed = _await_published(
                functools.partial(read, namespace, name),
                where=where,
                describe=f"the controller of {instance.instance_id} to publish its fault",
                timeout=budget,
                clock=clock,
            )
        except WaitTimeout as exc:
            raise RunnerError(
                f"[{control.fault}] cannot tell which fault the controller of "
                f"{instance.instance_id} runs, so the row is not judged: {exc}"
            ) from exc
        if observed != control.fault:
            raise RunnerError(
                f"[{control.fault}] the controller of {instance.instance_id} runs with "
                f"fault {observed or '(none)'!r}, expected {control.fault!r} "
                f"(Lease {where}, annotation {common.ANNOTATION_REFERENCE_FAULT}); "
                "the row is not judged"
            )
        logger.info(
            "[%s] The controller of %s runs with the fault (Lease %s).",
            control.fault,
            instance.instance_id,
            where,
        )


def selection(tests: Iterable[TestRef]) -> str:
    """A `-k` expression selecting exactly these tests in these layouts."""
    return " or ".join(f"({t.path().name} and [{t.layout}])" for t in sorted(tests))


def run_dir(control: Control, target: Target) -> Path:
    """Where one fault's run writes: pytest.log, conformance.yaml, junit.xml, evidence."""
    return target.out_dir / control.fault


def pytest_argv(control: Control, target: Target, *, workers: int) -> list[str]:
    """The suite's invocation for one fault: its tests, its layouts, its reports."""
    folder = run_dir(control, target)
    layouts = control.layouts
    argv = [
        sys.executable,
        "-m",
        "pytest",
        *sorted({str(t.path()) for t in control.tests}),
        "--wpc-implementation",
        str(PROFILE),
        "--wpc-profile-var",
        f"fault={control.fault}",
        "--wpc-layout",
        layouts[0] if len(layouts) == 1 else "both",
        "--wpc-skip-install",
        "--wpc-provider",
        target.provider,
        "--wpc-cluster-name",
        target.cluster,
        "--wpc-report",
        str(folder / "conformance.yaml"),
        "--wpc-junit",
        str(folder / "junit.xml"),
        "--wpc-timeout-scale",
        str(control.timeout_scale),
        "-k",
        selection(control.tests),
        "-p",
        "no:cacheprovider",
        "-q",
        # Short tracebacks keep each failure's reason within the report's message.
        "--tb=short",
    ]
    count = len(set(control.tests))
    if workers > 1 and count > 1:
        argv += ["-n", str(min(workers, count))]
    return argv


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text().splitlines()[-lines:])
    except OSError as exc:
        return f"(no log: {exc})"


def run_tests(
    control: Control, target: Target, *, workers: int = 2
) -> dict[TestRef, results.Observed]:
    """Run the row's tests against the installed fault; return their results."""
    folder = run_dir(control, target)
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "conformance.yaml"
    report.unlink(missing_ok=True)
    log = folder / "pytest.log"
    argv = pytest_argv(control, target, workers=workers)
    logger.info("[%s] Running %s (log: %s).", control.fault, shlex.join(argv), log)
    with log.open("w") as out:
        try:
            proc = subprocess.run(  # an argv list, never a shell string
                argv,
                cwd=REPO,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=RUN_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise RunnerError(
                f"[{control.fault}] timed out after {RUN_TIMEOUT:g} s: "
                f"{shlex.join(argv)}\nlog {log}:\n{_tail(log)}"
            ) from exc
    if proc.returncode not in (0, 1) or not report.is_file():
        raise RunnerError(
            f"[{control.fault}] exit code {proc.returncode}, report "
            f"{'written' if report.is_file() else 'missing'}: {shlex.join(argv)}\n"
            f"log {log}:\n{_tail(log)}"
        )
    return results.read_report(report)


def judge_fault(
    control: Control, target: Target, *, workers: int = 2
) -> scoring.Verdict:
    """Install the fault, prove it runs, run its tests and judge; the caller uninstalls.

    The verdict's duration is the row's time in its slot: install to report. The
    uninstall (and the wait for deletion) is left to the caller, so that it can
    overlap the next row instead of holding a slot (about 10 s a row, measured).
    """
    started = time.monotonic()
    install(target, control.fault, control.layouts)
    check_fault(target, control)
    observed = run_tests(control, target, workers=workers)
    return scoring.judge(control, observed, duration=time.monotonic() - started)


def run_fault(control: Control, target: Target, *, workers: int = 2) -> scoring.Verdict:
    """Install the fault, prove it runs, run its tests, uninstall (and wait); judge."""
    try:
        return judge_fault(control, target, workers=workers)
    finally:
        uninstall(target, control.fault, control.layouts)


Outcome = scoring.Verdict | Exception


def run_faults(
    rows: Iterable[Control],
    target: Target,
    *,
    parallel: int = 2,
    workers: int = 2,
    done: Callable[[Control, Outcome], None] | None = None,
) -> dict[str, Outcome]:
    """Run several faults, `parallel` at a time, in the given order.

    Each fault has instances of its own, so runs never share a controller. A fault
    whose run could not be judged maps to its RunnerError or CommandError. A row
    leaves its slot once judged; its uninstall runs beside the next rows, and a row
    counts as done (`done` is called) only once its instances are gone, so nothing
    returns before every row's cleanup has finished. An uninstall that fails makes
    the row's outcome that error: a row that cannot clean up is not judged.
    """
    outcomes: dict[str, Outcome] = {}

    def finish(control: Control, outcome: Outcome | None) -> None:
        try:
            uninstall(target, control.fault, control.layouts)
        except (RunnerError, ConformanceError) as exc:
            logger.error("[%s] The uninstall failed: %s", control.fault, exc)
            if outcome is not None and not isinstance(outcome, Exception):
                outcome = exc
        if outcome is None:
            return  # the slot's unexpected error is raised by its own job
        outcomes[control.fault] = outcome
        if done is not None:
            done(control, outcome)

    # `cleaners` is listed first so that it shuts down last: every slot job has
    # handed its row over before the session waits for the uninstalls.
    with (
        futures.ThreadPoolExecutor(max_workers=parallel) as cleaners,
        futures.ThreadPoolExecutor(max_workers=parallel) as slots,
    ):
        cleanups: list[futures.Future[None]] = []

        def one(control: Control) -> None:
            outcome: Outcome | None = None
            try:
                outcome = judge_fault(control, target, workers=workers)
            except (RunnerError, ConformanceError) as exc:
                logger.error("[%s] The run could not be judged: %s", control.fault, exc)
                outcome = exc
            finally:
                cleanups.append(cleaners.submit(finish, control, outcome))

        for job in [slots.submit(one, control) for control in rows]:
            job.result()
        for cleanup in cleanups:
            cleanup.result()
    return outcomes
