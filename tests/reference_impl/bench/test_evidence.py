"""We test these aspects of failure evidence: a pod's state summary names each
container's state, reason and exit code, and a missing status is summarized
rather than raising.
"""

from __future__ import annotations

from reference_impl.bench import evidence
from reference_impl.bench.settings import Timeouts


def test_pod_state_names_each_containers_state_reason_and_exit_code():
    pod = {
        "status": {
            "phase": "Failed",
            "initContainerStatuses": [
                {
                    "name": "init",
                    "state": {"terminated": {"reason": "Completed", "exitCode": 0}},
                }
            ],
            "containerStatuses": [
                {
                    "name": "wait",
                    "state": {"terminated": {"reason": "Error", "exitCode": 2}},
                },
                {"name": "main", "state": {"running": {"startedAt": "t"}}},
            ],
        }
    }
    assert evidence.pod_state(pod) == (
        "phase=Failed containers=[init=terminated(Completed exit 0), "
        "wait=terminated(Error exit 2), main=running]"
    )


def test_pod_state_without_status():
    assert evidence.pod_state({}) == "phase=None containers=[]"


def test_failure_evidence_without_a_pod_says_so():
    assert evidence.failed_pod(
        None, namespace="ns", pod_name=None, timeouts=Timeouts()
    ) == {"pod": None}
