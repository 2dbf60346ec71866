"""We test these aspects of node and pod naming: FNV-1a, node IDs, v2 pod names, node names.

Vectors come from Argo's own tests (`cmd/argo/commands/common/get_test.go`,
`workflow/controller/operator_test.go` `TestResolvePodNameInRetries`).
"""

from __future__ import annotations

import pytest

from reference_impl.controller.formats import naming


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0x811C9DC5), ("a", 0xE40C292C), ("foobar", 0xBF9CF968)],
)
def test_fnv32a_matches_the_published_test_vectors(text, expected):
    assert naming.fnv32a(text) == expected


@pytest.mark.parametrize(
    ("node_name", "expected"),
    [
        ("many-items-z26lj[0].sleep(9:nine)", "many-items-z26lj-2619926859"),
        ("many-items-z26lj[0].sleep(10:ten)", "many-items-z26lj-1052882686"),
        ("many-items-z26lj[0].sleep(11:eleven)", "many-items-z26lj-3011405271"),
    ],
)
def test_node_id_is_workflow_name_and_fnv32a_of_node_name(node_name, expected):
    assert naming.node_id("many-items-z26lj", node_name) == expected


def test_root_node_id_is_the_workflow_name() -> None:
    assert naming.node_id("wf", "wf") == "wf"


def test_pod_name_v2_joins_workflow_template_and_hash() -> None:
    pod = naming.pod_name(
        workflow_name="output-value-placeholders-wf",
        node_name="output-value-placeholders-wf(0)",
        template_name="tell-pod-name",
    )
    assert pod == "output-value-placeholders-wf-tell-pod-name-3033990984"


def test_root_pod_is_named_like_the_workflow() -> None:
    assert (
        naming.pod_name(workflow_name="hello", node_name="hello", template_name="main")
        == "hello"
    )


def test_pod_name_prefix_is_truncated_to_242_characters() -> None:
    pod = naming.pod_name(
        workflow_name="w" * 200, node_name="w[0].x", template_name="t" * 100
    )
    prefix, _, digits = pod.rpartition("-")
    assert len(prefix) == 242
    assert digits == str(naming.fnv32a("w[0].x"))


def test_node_names_follow_argo_shapes() -> None:
    group = naming.step_group_name("wf", 0)
    assert group == "wf[0]"
    assert naming.step_name(group, "hello") == "wf[0].hello"
    assert naming.task_name("wf", "A") == "wf.A"
    assert naming.retry_child_name("wf[0].hello", 2) == "wf[0].hello(2)"
    assert naming.on_exit_name("wf") == "wf.onExit"


@pytest.mark.parametrize(
    ("node", "boundary", "expected"),
    [
        ("wf[0].hello", "wf", "hello"),
        ("wf[0]", "wf", "[0]"),
        ("wf.A", "wf", "A"),
        ("wf", None, "wf"),
    ],
)
def test_display_name_strips_the_boundary_and_one_separator(node, boundary, expected):
    assert naming.display_name(node, boundary) == expected
