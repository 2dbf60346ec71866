"""We test these aspects of `retryStrategy.affinity.nodeAntiAffinity` (upstream v4.1.2,
`workflow/util/retry/retry.go` and `workflow/controller/retry_tweak.go`):

- a retried pod gets a required node affinity `kubernetes.io/hostname NotIn` the hosts
  its failed attempts ran on, newest attempt's host first, and the first attempt none;
- a retry strategy without `nodeAntiAffinity`, or `RETRY_HOST_NAME_LABEL_KEY` set
  empty, adds nothing; another label key is used when configured;
- the Retry node is found through the pod's boundary too (a retried steps template);
- the requirement merges into the template's own affinity as upstream merges it;
- the `retry-on-failed-host` negative control pins the retry there with `In`.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controller.config import settings as settings_module
from reference_impl.controller.faults import Fault
from reference_impl.controller.pods import retryhosts
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import workflow

Json = dict[str, Any]

LEAF_RETRY = """
metadata: {name: anti}
spec:
  entrypoint: work
  templates:
  - name: work
    retryStrategy: {limit: 2, retryPolicy: Always, affinity: {nodeAntiAffinity: {}}}
    container: {image: busybox, command: ["true"]}
"""


def _fail_on(h: Harness, node: str, host: str) -> None:
    h.pod_of(node)["spec"]["nodeName"] = host
    h.fail(node)
    h.reconcile()


def _required(pod: Json) -> Any:
    return pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]


def test_each_retry_avoids_the_hosts_earlier_attempts_failed_on() -> None:
    h = Harness(workflow(LEAF_RETRY))
    h.reconcile()
    assert "affinity" not in h.pod_of("anti(0)")["spec"]
    _fail_on(h, "anti(0)", "worker-a")
    assert h.node("anti(0)")["hostNodeName"] == "worker-a"
    assert _required(h.pod_of("anti(1)")) == {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {
                        "key": "kubernetes.io/hostname",
                        "operator": "NotIn",
                        "values": ["worker-a"],
                    }
                ]
            }
        ]
    }
    _fail_on(h, "anti(1)", "worker-b")
    expression = _required(h.pod_of("anti(2)"))["nodeSelectorTerms"][0][
        "matchExpressions"
    ][0]
    assert expression["values"] == ["worker-b", "worker-a"]


def test_the_retry_on_failed_host_fault_pins_the_retry_to_those_hosts() -> None:
    h = Harness(
        workflow(LEAF_RETRY), settings=settings(fault=Fault.RETRY_ON_FAILED_HOST)
    )
    h.reconcile()
    _fail_on(h, "anti(0)", "worker-a")
    _fail_on(h, "anti(1)", "worker-b")
    expressions = _required(h.pod_of("anti(2)"))["nodeSelectorTerms"][0][
        "matchExpressions"
    ]
    assert expressions == [
        {
            "key": "kubernetes.io/hostname",
            "operator": "In",
            "values": ["worker-b", "worker-a"],
        }
    ]


def test_a_retry_strategy_without_node_anti_affinity_adds_nothing() -> None:
    h = Harness(workflow(LEAF_RETRY.replace(", affinity: {nodeAntiAffinity: {}}", "")))
    h.reconcile()
    _fail_on(h, "anti(0)", "worker-a")
    assert "affinity" not in h.pod_of("anti(1)")["spec"]


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"RETRY_HOST_NAME_LABEL_KEY": ""}, None),
        ({"RETRY_HOST_NAME_LABEL_KEY": "example.com/host"}, "example.com/host"),
        ({}, "kubernetes.io/hostname"),
    ],
)
def test_the_label_key_comes_from_the_environment(
    environ: dict[str, str], expected: str | None
) -> None:
    loaded = settings_module.ControllerSettings.from_env(environ)
    h = Harness(
        workflow(LEAF_RETRY),
        settings=settings(retry_host_label=loaded.retry_host_label),
    )
    h.reconcile()
    _fail_on(h, "anti(0)", "worker-a")
    spec = h.pod_of("anti(1)")["spec"]
    if expected is None:
        assert "affinity" not in spec
    else:
        expression = _required(h.pod_of("anti(1)"))["nodeSelectorTerms"][0][
            "matchExpressions"
        ][0]
        assert expression["key"] == expected


def test_a_retried_steps_template_is_found_through_the_pods_boundary() -> None:
    h = Harness(
        workflow("""
metadata: {name: outer}
spec:
  entrypoint: main
  templates:
  - name: main
    retryStrategy: {limit: 1, affinity: {nodeAntiAffinity: {}}}
    steps:
    - - {name: leaf, template: leaf}
  - name: leaf
    container: {image: busybox, command: ["true"]}
""")
    )
    h.reconcile()
    _fail_on(h, "outer(0)[0].leaf", "worker-a")
    h.reconcile()
    pod = h.pod_of("outer(1)[0].leaf")
    expression = _required(pod)["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert expression["values"] == ["worker-a"]


def test_the_requirement_merges_into_the_templates_own_affinity() -> None:
    own = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "zone", "operator": "In", "values": ["z1"]}
                        ]
                    }
                ]
            }
        },
        "podAffinity": {"x": 1},
    }
    merged = retryhosts.exclude_hosts(own, "kubernetes.io/hostname", ["a"])
    assert merged is not None
    assert merged["podAffinity"] == {"x": 1}
    assert _required({"spec": {"affinity": merged}})["nodeSelectorTerms"][0][
        "matchExpressions"
    ] == [
        {"key": "zone", "operator": "In", "values": ["z1"]},
        {"key": "kubernetes.io/hostname", "operator": "NotIn", "values": ["a"]},
    ]
    assert (
        own["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ][0]["matchExpressions"][-1]["key"]
        == "zone"
    ), "the input is not modified"
    again = retryhosts.exclude_hosts(merged, "kubernetes.io/hostname", ["b", "a"])
    assert again is not None
    assert _required({"spec": {"affinity": again}})["nodeSelectorTerms"][0][
        "matchExpressions"
    ][1]["values"] == ["a", "b"]


def test_an_empty_term_or_only_preferred_rules_take_the_requirement() -> None:
    preferred = {
        "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}
    }
    merged = retryhosts.exclude_hosts(preferred, "h", ["a"])
    assert merged is not None
    assert set(merged["nodeAffinity"]) == {
        "preferredDuringSchedulingIgnoredDuringExecution",
        "requiredDuringSchedulingIgnoredDuringExecution",
    }
    empty_term = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": []}, {"matchExpressions": []}]
            }
        }
    }
    merged = retryhosts.exclude_hosts(empty_term, "h", ["a"])
    assert merged is not None
    terms = merged["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert terms[0]["matchExpressions"] == [
        {"key": "h", "operator": "NotIn", "values": ["a"]}
    ]
    assert retryhosts.exclude_hosts(None, "h", []) is None


def test_failed_hosts_walks_the_retry_subtree_last_child_first() -> None:
    nodes = {
        "r": {"id": "r", "type": "Retry", "children": ["a0", "a1", "a2"]},
        "a0": {"id": "a0", "type": "Pod", "phase": "Failed", "hostNodeName": "x"},
        "a1": {"id": "a1", "type": "Pod", "phase": "Error"},
        "a2": {"id": "a2", "type": "Pod", "phase": "Succeeded", "hostNodeName": "y"},
    }
    assert retryhosts.failed_hosts(nodes, "r") == ["", "x"]
    assert retryhosts.retry_node_of(nodes, "a1") is nodes["r"]
    assert retryhosts.retry_node_of(nodes, "r") is None
