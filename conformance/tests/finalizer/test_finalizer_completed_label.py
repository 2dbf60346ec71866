"""FinalizerCompletedLabel: pods are labelled completed only after their node is.

We test these aspects, on a two-step workflow without `podGC` (`first`, then
`held`, which runs until the suite releases it), watching its pods: whenever
a pod's label `workflows.argoproj.io/completed` turns `"true"`, or the pod
loses the status finalizer it had, a read of the Workflow made right then must
show the pod's node in a completed phase (WPC-FINALIZER-004). `first`'s pod is
labelled while the workflow still runs, `held`'s after it completed, each
within the cleanup timeout.

Matrix: legacy and initless; whether the instance adds the status finalizer
does not matter (the finalizer part is judged only for pods that had it).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import watching

COMPLETED_LABEL = "workflows.argoproj.io/completed"
NODE_ID = "workflows.argoproj.io/node-id"
NODE_NAME = "workflows.argoproj.io/node-name"
DONE = frozenset({"Succeeded", "Failed", "Error", "Skipped", "Omitted"})


class Judge:
    """Check every pod version; note each premature cleanup step."""

    def __init__(self, workflows: Any, name: str) -> None:
        self.workflows = workflows
        self.name = name
        self.labelled: dict[str, str] = {}
        """Step -> workflow phase read when its pod's label turned "true"."""
        self.had_finalizer: set[str] = set()
        self.judged: set[str] = set()
        self.violations: list[str] = []

    def _node_done(self, pod: Any, what: str) -> str:
        workflow = self.workflows.get(self.name)
        status = workflow.get("status") or {}
        node = (status.get("nodes") or {}).get(pod.metadata.annotations[NODE_ID], {})
        if node.get("phase") not in DONE:
            self.violations.append(
                f"{pod.metadata.name}: {what} while its node is {node.get('phase')!r}"
            )
        return str(status.get("phase"))

    def __call__(self, pod: Any, until_step: str) -> bool | NotYet:
        step = pod.metadata.annotations[NODE_NAME].rsplit(".", 1)[-1]
        uid = pod.metadata.uid
        if (pod.metadata.labels or {}).get(
            COMPLETED_LABEL
        ) == "true" and step not in self.labelled:
            self.labelled[step] = self._node_done(pod, "labelled completed")
        if contract.STATUS_FINALIZER in (pod.metadata.finalizers or []):
            self.had_finalizer.add(uid)
        elif uid in self.had_finalizer and uid not in self.judged:
            self.judged.add(uid)
            self._node_done(pod, "lost the status finalizer")
        return until_step in self.labelled or NotYet(
            f"labelled so far: {self.labelled}"
        )


@pytest.mark.conformance(
    short_name="FinalizerCompletedLabel", clauses=["WPC-FINALIZER-004"]
)
def test_pods_are_labelled_completed_only_after_the_workflow_records_their_node(
    workflows, manifest, kube_clients, namespace, timeouts, shell
):
    name = workflows.submit(manifest())
    judge = Judge(workflows, name)

    def watch_until_labelled(step: str) -> None:
        watching.watch_until(
            kube_clients.core.list_namespaced_pod,
            namespace,
            check=lambda pod: judge(pod, step),
            timeout=timeouts.workflow_completed + timeouts.cleanup,
            describe=f"the pod of step {step} of {name} to be labelled completed",
            label_selector=f"workflows.argoproj.io/workflow={name}",
        )

    watch_until_labelled("first")
    held = until(
        lambda: (
            next(
                (
                    p.metadata.name
                    for p in kube_clients.core.list_namespaced_pod(
                        namespace,
                        label_selector=f"workflows.argoproj.io/workflow={name}",
                    ).items
                    if p.metadata.annotations[NODE_NAME].endswith(".held")
                ),
                None,
            )
            or NotYet("no pod for step held yet")
        ),
        timeout=timeouts.pod_created,
        interval=timeouts.poll_interval,
        describe=f"the pod of step held of {name}",
    )
    shell.wait_started(held)
    shell.release(held)
    watch_until_labelled("held")

    assert not judge.violations, "WPC-FINALIZER-004: cleaned up early:\n" + "\n".join(
        judge.violations
    )
    assert judge.labelled["first"] == "Running", (
        f"the pod of step first was labelled only once the workflow was {judge.labelled['first']}"
    )
    assert workflows.wait_completed(name)["status"]["phase"] == "Succeeded"
