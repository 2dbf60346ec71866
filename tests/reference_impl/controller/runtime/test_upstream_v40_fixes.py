"""We test that the reference does what upstream's fixed controller does for four bugs
`conformance/spec/history.yaml` records between v4.0.0 and v4.1.0 (each a black-box
scenario in conformance/tests/; here pass by pass against a fake cluster):

- `retry-node-running-after-terminate` (upstream 4cb7eb4e): a DAG task's Retry node whose
  attempt pod runs when the workflow is shut down ends `Failed` with the shutdown
  message once the attempt is done, with Terminate and with Stop; the DAG fails at once
  and is never executed again, so only the sweep over podless nodes can end it;
- `dag-exit-handler-stopped` (upstream 0fac33e1): under Stop a workflow exit handler that
  is a DAG runs all its tasks, in order, and ends `Succeeded`; the workflow still ends
  `Failed` with the Stop message;
- `exit-node-rerun` (upstream d81ac3f7, #14392): with `spec.parallelism: 1` a DAG target
  task's exit hook, whose pod takes the only slot, leaves the DAG and the workflow
  `Succeeded` (upstream v4.0.0 ran the hook twice per pass and errored the DAG with
  `Max parallelism reached`); the `exit-hook-twice` fault brings that bug back;
- `retry-backoff-overflow` (upstream b8cf9ed8): a backoff `duration * factor^n` beyond
  Go's int64 nanoseconds saturates there: with `maxDuration` the retry node fails with
  `Backoff would exceed max duration limit` instead of starting the next attempt at
  once; with `cap` the wait is the cap, also for exponents too large for a float (the
  reference raised OverflowError there before it followed upstream's saturation).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from reference_impl.controller.faults import Fault
from reference_impl.controller.templates.nodes import retries
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.conftest import workflow

Json = dict[str, Any]

RETRY_DAG = """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: slow}
  - name: slow
    retryStrategy: {limit: 2}
    container: {image: busybox, command: [sleep, "120"]}
"""


@pytest.mark.parametrize("strategy", ["Terminate", "Stop"])
def test_a_dag_tasks_retry_node_fails_after_a_shutdown_during_its_attempt(
    strategy: str,
) -> None:
    h = Harness(workflow(RETRY_DAG))
    h.reconcile()
    h.set_pod("wf.a(0)", pod_status("Running", main=running(), wait=running()))
    h.report("wf.a(0)", complete=False)  # wait's placeholder, as the scenario waits for
    h.reconcile()
    h.wf["spec"]["shutdown"] = strategy
    h.reconcile()
    assert h.node("wf")["phase"] == "Failed"
    assert h.node("wf.a(0)")["taskResultSynced"] is False  # upstream's buggy path
    assert h.node("wf.a")["phase"] == "Running"
    h.set_pod(
        "wf.a(0)",
        pod_status("Failed", main=terminated(143, reason="Error"), wait=terminated(0)),
    )
    h.report("wf.a(0)")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == f"Stopped with strategy '{strategy}'"
    retry = h.node("wf.a")
    assert (retry["type"], retry["phase"], retry["message"]) == (
        "Retry",
        "Failed",
        f"Stopped with strategy '{strategy}'",
    )
    assert h.node("wf.a(0)")["phase"] in ("Failed", "Error")
    still = [
        n["name"]
        for n in h.wf["status"]["nodes"].values()
        if n["phase"] in ("Pending", "Running")
    ]
    assert not still
    assert len(h.effects.created) == 1


EXIT_DAG = """
spec:
  entrypoint: main
  onExit: cleanup
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: slow}
  - name: slow
    container: {image: busybox, command: [sleep, "120"]}
  - name: cleanup
    dag:
      tasks:
      - {name: first, template: quick}
      - {name: second, template: quick, depends: first}
  - name: quick
    container: {image: busybox, command: ["true"]}
"""


def test_stop_runs_every_task_of_a_dag_exit_handler() -> None:
    h = Harness(workflow(EXIT_DAG))
    h.reconcile()
    h.set_pod("wf.a", pod_status("Running", main=running(), wait=running()))
    h.reconcile()
    h.wf["spec"]["shutdown"] = "Stop"
    h.reconcile()
    h.set_pod(
        "wf.a",
        pod_status("Failed", main=terminated(143, reason="Error"), wait=terminated(0)),
    )
    h.report("wf.a")
    h.reconcile()
    assert h.node("wf.onExit")["phase"] == "Running"
    assert h.node("wf.onExit.first")["phase"] == "Pending"
    h.succeed("wf.onExit.first")
    h.reconcile()
    assert h.node("wf.onExit.second")["phase"] == "Pending"
    h.succeed("wf.onExit.second")
    h.reconcile()
    assert h.node("wf.onExit")["phase"] == "Succeeded"
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == "Stopped with strategy 'Stop'"


HOOKED_TASK = """
spec:
  entrypoint: main
  parallelism: 1
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: quick, hooks: {exit: {template: quick}}}
  - name: quick
    container: {image: busybox, command: ["true"]}
"""


def test_a_target_tasks_exit_hook_in_the_last_parallelism_slot_leaves_the_dag_green() -> (
    None
):
    h = Harness(workflow(HOOKED_TASK))
    h.reconcile()
    h.succeed("wf.a")
    h.reconcile()
    assert h.node("wf.a.onExit")["phase"] == "Pending"
    assert h.node("wf")["phase"] == "Running"
    h.set_pod("wf.a.onExit", pod_status("Running", main=running(), wait=running()))
    h.reconcile()
    assert h.node("wf")["phase"] == "Running"
    h.succeed("wf.a.onExit")
    h.reconcile()
    assert h.node("wf")["phase"] == "Succeeded"
    assert h.wf["status"]["phase"] == "Succeeded"
    assert len(h.effects.created) == 2


OVERFLOW = """
spec:
  entrypoint: main
  templates:
  - name: main
    retryStrategy:
      limit: 2
      backoff: {duration: "5s", factor: 2147483647, maxDuration: "10m"}
    container: {image: busybox, command: ["false"]}
"""


def fail_at(h: Harness, node: str, finished: datetime.datetime) -> None:
    stamp = finished.strftime("%Y-%m-%dT%H:%M:%SZ")
    h.set_pod(
        node,
        pod_status(
            "Failed",
            main=terminated(1, reason="Error", finished=stamp),
            wait=terminated(0, finished=stamp),
        ),
    )
    h.report(node)


def test_a_backoff_beyond_int64_nanoseconds_exceeds_max_duration_instead_of_wrapping() -> (
    None
):
    h = Harness(workflow(OVERFLOW))
    h.reconcile()
    fail_at(h, "wf(0)", NOW)
    h.reconcile()
    assert h.node("wf")["message"] == "Backoff for 5 seconds"
    h.now = NOW + datetime.timedelta(seconds=6)
    h.reconcile()
    assert h.node("wf(1)")["phase"] == "Pending"
    fail_at(h, "wf(1)", h.now)
    h.reconcile()
    retry = h.node("wf")
    assert (retry["phase"], retry["message"]) == (
        "Failed",
        "Backoff would exceed max duration limit",
    )
    assert h.last is not None
    assert h.last.node("wf(2)") is None
    assert h.wf["status"]["phase"] == "Failed"


CAPPED = """
spec:
  entrypoint: main
  templates:
  - name: main
    retryStrategy:
      limit: 40
      backoff: {duration: "1s", factor: 2147483647, cap: "1s"}
    container: {image: busybox, command: ["false"]}
"""


def test_a_capped_backoff_keeps_retrying_when_factor_to_the_attempt_overflows_a_float() -> (
    None
):
    h = Harness(workflow(CAPPED))
    h.reconcile()
    for attempt in range(36):  # 2147483647**34 is beyond a float's range
        fail_at(h, f"wf({attempt})", h.now)
        h.reconcile()
        assert h.node("wf")["message"] == "Backoff for 1 second", attempt
        h.now += datetime.timedelta(seconds=1)
        h.reconcile()
        assert h.node(f"wf({attempt + 1})")["phase"] == "Pending"


@pytest.mark.parametrize(
    ("duration", "factor", "exponent", "wait"),
    [
        (5.0, 0, 7, 5.0),  # no factor: the duration
        (5.0, 2, 3, 40.0),
        (0.5, 3, 2, 4.5),
        (5.0, 2147483647, 0, 5.0),  # the first retry waits the duration
        (5.0, 2147483647, 1, retries.MAX_WAIT_SECONDS),  # 340 years > 2^63 ns
        (1.0, 2147483647, 40, retries.MAX_WAIT_SECONDS),  # beyond a float
        (0.0, 2147483647, 40, 0.0),
    ],
)
def test_the_backoff_wait_saturates_at_gos_largest_duration(
    duration: float, factor: int, exponent: int, wait: float
) -> None:
    assert retries.backoff_wait(duration, factor, exponent) == wait


def test_gos_largest_duration_is_about_292_years() -> None:
    years = retries.MAX_WAIT_SECONDS / (365.25 * 86400)
    assert 292.2 < years < 292.3


ON_EXIT_TASK = HOOKED_TASK.replace("hooks: {exit: {template: quick}}", "onExit: quick")


@pytest.mark.parametrize(
    "manifest", [HOOKED_TASK, ON_EXIT_TASK], ids=["hooks", "onExit"]
)
def test_exit_hook_twice_errors_the_dag_when_the_hook_takes_the_last_slot(
    manifest: str,
) -> None:
    # The negative control for WPC-STATUS-020: upstream v4.0.0's bug, on purpose.
    h = Harness(workflow(manifest), settings=settings(fault=Fault.EXIT_HOOK_TWICE))
    h.reconcile()
    assert h.node("wf")["phase"] == "Running"  # a's own pod: no hook yet
    h.succeed("wf.a")
    h.reconcile()
    assert h.node("wf.a.onExit")["phase"] == "Pending"
    assert (h.node("wf")["phase"], h.node("wf")["message"]) == (
        "Error",
        "Max parallelism reached",
    )
    assert h.wf["status"]["phase"] == "Error"
    assert len(h.effects.created) == 2  # the hook ran once: its second call was refused


def test_exit_hook_twice_leaves_a_dag_without_a_limit_alone() -> None:
    unlimited = HOOKED_TASK.replace("  parallelism: 1\n", "")
    h = Harness(workflow(unlimited), settings=settings(fault=Fault.EXIT_HOOK_TWICE))
    h.reconcile()
    h.succeed("wf.a")
    h.reconcile()
    h.succeed("wf.a.onExit")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"
    assert len(h.effects.created) == 2
