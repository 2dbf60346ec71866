"""We test these aspects of the finalizer and pod GC faults (negative controls of the
FINALIZER clauses, issue 28 item 3), against the fake API of test_controlling, no
cluster:

- `pod-gc-delay-ignored` queues the deletion of a succeeded pod under `OnPodSuccess`
  with `deleteDelayDuration: 20s` at once, not 20 s later (WPC-FINALIZER-010), and
  is inert when not selected;
- `early-workflow-pod-gc` queues the deletion of `first`'s pod under
  `OnWorkflowCompletion` as soon as its node completed, while the workflow runs
  (WPC-FINALIZER-011); without the fault the pod only loses its finalizer, and
  `OnWorkflowSuccess` is untouched;
- `keep-orphan-finalizer` leaves the status finalizer on a pod whose Workflow is gone
  when the pod was created before the controller started (WPC-FINALIZER-007), being
  deleted or not; an orphan created since, and any orphan without the fault, loses
  it (the delete handler's path, WPC-FINALIZER-006, is another one);
- `label-before-record` queues the label of `first`'s pod, once it succeeded, and
  pauses `LABEL_LEAD_SECONDS` before the update recording its node is written
  (WPC-FINALIZER-004); without the fault the label is queued only after the write,
  with no pause; a pass that completes no node does not pause.
"""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.controller import faults
from reference_impl.controller.runtime.controlling import WorkflowController
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.runtime.test_controlling import AT_THE_RESTART
from tests.reference_impl.controller.runtime.test_controlling import BEFORE_THE_RESTART
from tests.reference_impl.controller.runtime.test_controlling import FakeApi
from tests.reference_impl.controller.runtime.test_controlling import advance
from tests.reference_impl.controller.runtime.test_controlling import controller
from tests.reference_impl.controller.runtime.test_controlling import drain
from tests.reference_impl.controller.runtime.test_controlling import leftover_pod
from tests.reference_impl.controller.runtime.test_layout_faults import two_steps

Json = dict[str, Any]


def with_pod_gc(pod_gc: Json | None) -> Json:
    """A workflow of two container steps, `first` then `second`, with `podGC`."""
    wf = two_steps("wf", "uid-1")
    if pod_gc is not None:
        wf["spec"]["podGC"] = pod_gc
    return wf


def first_completed(
    fault: faults.Fault | None, pod_gc: Json | None
) -> tuple[WorkflowController, FakeApi, list[str]]:
    """The clean-up ready at once for `first`'s pod once it succeeded (the workflow
    still runs): the action names of the keys the clean-up queue hands out now."""
    wfc, api = controller(fault)
    wfc.workflows.apply("ADDED", with_pod_gc(pod_gc))
    wfc.process_workflow("ns/wf")
    wfc.workflows.apply("MODIFIED", api.replaced[-1])
    pod = copy.deepcopy(api.created[0])
    pod["metadata"]["resourceVersion"] = "7"
    pod["status"] = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    wfc.pods.apply("ADDED", pod)
    drain(wfc.cleaner.queue)
    wfc.process_workflow("ns/wf")
    phase = api.replaced[-1]["status"]["phase"]
    assert phase == "Running", phase
    key = f"ns/{pod['metadata']['name']}/"
    return (
        wfc,
        api,
        [k[len(key) :] for k in drain(wfc.cleaner.queue) if k.startswith(key)],
    )


ON_POD_SUCCESS_DELAYED = {"strategy": "OnPodSuccess", "deleteDelayDuration": "20s"}


def test_pod_gc_delay_ignored_deletes_at_once_what_should_wait() -> None:
    fault = faults.Fault.POD_GC_DELAY_IGNORED
    assert first_completed(None, ON_POD_SUCCESS_DELAYED)[2] == []
    assert first_completed(fault, ON_POD_SUCCESS_DELAYED)[2] == ["deletePod"]
    assert first_completed(fault, None)[2] == ["labelPodCompleted"]  # no pod GC


def test_early_workflow_pod_gc_deletes_a_pod_while_its_workflow_runs() -> None:
    fault = faults.Fault.EARLY_WORKFLOW_POD_GC
    on_workflow = {"strategy": "OnWorkflowCompletion"}
    assert first_completed(None, on_workflow)[2] == ["removeFinalizer"]
    assert first_completed(fault, on_workflow)[2] == ["deletePod"]
    on_success = {"strategy": "OnWorkflowSuccess"}
    assert first_completed(fault, on_success)[2] == ["removeFinalizer"]


def orphan_cleanup(fault: faults.Fault | None, created: str, **meta: Any) -> list[str]:
    """The clean-up queued, two minutes on, for a pod whose Workflow is gone."""
    wfc, _ = controller(fault)
    pod = leftover_pod(creationTimestamp=created, **meta)
    pod["status"]["conditions"] = [
        {"type": "Ready", "lastTransitionTime": AT_THE_RESTART}
    ]
    wfc.pods.apply("ADDED", pod)
    advance(wfc, 120)
    return drain(wfc.cleaner.queue)


def test_keep_orphan_finalizer_strands_the_orphans_from_before_the_start() -> None:
    fault = faults.Fault.KEEP_ORPHAN_FINALIZER
    removal = ["ns/hello/removeFinalizer"]
    deleting = {"deletionTimestamp": AT_THE_RESTART}
    assert orphan_cleanup(None, BEFORE_THE_RESTART) == removal
    assert orphan_cleanup(None, BEFORE_THE_RESTART, **deleting) == removal
    assert orphan_cleanup(fault, BEFORE_THE_RESTART) == []
    assert orphan_cleanup(fault, BEFORE_THE_RESTART, **deleting) == []
    assert orphan_cleanup(fault, AT_THE_RESTART) == removal
    assert orphan_cleanup(fault, AT_THE_RESTART, **deleting) == removal


class Pause:
    """Stands for the controller's stop event: records each pause and what was
    written and queued by then."""

    def __init__(self, wfc: WorkflowController, api: FakeApi) -> None:
        self.wfc, self.api = wfc, api
        self.seen: list[tuple[float, list[str], int]] = []

    def wait(self, seconds: float) -> bool:
        queued = drain(self.wfc.cleaner.queue)
        self.seen.append((seconds, queued, len(self.api.replaced)))
        return False


def label_and_record(fault: faults.Fault | None) -> tuple[list[Any], list[str]]:
    """The pauses while `first`'s pod completes (`first`'s pod is named `first`),
    and the clean-up queued after them."""
    wfc, api = controller(fault)
    pause = Pause(wfc, api)
    wfc._stopping = pause  # type: ignore[assignment]
    wfc.workflows.apply("ADDED", with_pod_gc(None))
    wfc.process_workflow("ns/wf")
    wfc.workflows.apply("MODIFIED", api.replaced[-1])
    assert pause.seen == []  # no node completed yet
    pod = copy.deepcopy(api.created[0])
    pod["metadata"]["resourceVersion"] = "7"
    pod["status"] = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    wfc.pods.apply("ADDED", pod)
    drain(wfc.cleaner.queue)
    written = len(api.replaced)
    wfc.process_workflow("ns/wf")
    assert len(api.replaced) == written + 1
    name = pod["metadata"]["name"]
    return (
        [
            (s, [k.replace(name, "first") for k in q], n - written)
            for s, q, n in pause.seen
        ],
        [k.replace(name, "first") for k in drain(wfc.cleaner.queue)],
    )


def test_label_before_record_labels_the_pod_before_its_node_is_written() -> None:
    label = "ns/first/labelPodCompleted"
    lead, queued_after = label_and_record(faults.Fault.LABEL_BEFORE_RECORD)
    assert lead == [(faults.LABEL_LEAD_SECONDS, [label], 0)]
    assert label in queued_after  # and again after the write, as without the fault
    assert label_and_record(None) == ([], [label])
