"""We test these aspects of `conformance.harness.workload.shapes` (no cluster):

- a Shape reads init containers, containers, volumes and mounts off API JSON,
  the template's own containers (main, then sidecars) and the root node's
  output parameters;
- the name and emissary checks give (clause, what, got, want) rows that pass on
  a conforming pod and show what was found on another;
- problems() words every failed row in order, verdict() fails under the pod's
  name with all of them;
- user_command_checks() accepts the template as JSON or `offloaded`, and not
  `offloaded` read back from the file.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.harness.workload import shapes

EMISSARY = "/var/run/argo/argoexec"
TEMPLATE = {
    "name": "shape",
    "container": {"command": ["sh"], "args": ["-c", "true"]},
    "sidecars": [{"name": "side", "command": ["sleep"], "args": ["1"]}],
}


def _wrapped(name: str, command: list[str], args: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "command": [EMISSARY, "emissary", "--loglevel", "info", "--", *command],
        "args": args,
        "volumeMounts": [{"name": "var-run-argo", "mountPath": "/var/run/argo"}],
    }


def _shape(template_param: Any = None) -> shapes.Shape:
    pod = {
        "metadata": {"name": "wf-shape-1"},
        "spec": {
            "initContainers": [{"name": "init"}],
            "containers": [
                {"name": "wait"},
                _wrapped("main", ["sh"], ["-c", "true"]),
                _wrapped("side", ["sleep"], ["1"]),
            ],
            "volumes": [{"name": "var-run-argo", "emptyDir": {}}],
        },
    }
    parameters = [{"name": "template", "value": template_param}]
    node = {"phase": "Succeeded", "outputs": {"parameters": parameters}}
    return shapes.Shape(pod=pod, template=TEMPLATE, node=node)


def test_a_shape_reads_containers_volumes_mounts_and_outputs():
    shape = _shape("x")
    assert shape.name == "wf-shape-1"
    assert [c["name"] for c in shape.inits] == ["init"]
    assert list(shape.containers) == ["init", "wait", "main", "side"]
    assert shape.volumes == {"var-run-argo": {"name": "var-run-argo", "emptyDir": {}}}
    assert shape.mounts["main"]["/var/run/argo"]["name"] == "var-run-argo"
    assert shape.mounts["wait"] == {}
    assert list(shape.user) == ["main", "side"]
    assert shape.parameters == {"template": "x"}


def test_name_and_emissary_rows_pass_on_a_conforming_pod():
    shape = _shape()
    rows = [
        shapes.init_names(shape, clause="C-1", want=["init"]),
        shapes.container_names(shape, clause="C-2", want=["wait", "main", "side"]),
        shapes.user_commands(shape, clause="C-3", emissary=EMISSARY),
    ]
    assert shapes.problems(rows) == []
    other = shapes.user_commands(shape, clause="C-3", emissary="/elsewhere")
    assert other[2] == {"main": None, "side": None}


def test_problems_word_every_failed_row_and_verdict_fails_with_them():
    rows = [("C-1", "a", 1, 1), ("C-2", "b", [2], [3]), ("C-3", "c", "x", "y")]
    assert shapes.problems(rows) == [
        "C-2: b: expected [3], got [2]",
        "C-3: c: expected 'y', got 'x'",
    ]
    with pytest.raises(
        AssertionError, match=r"pod wf-shape-1:\n\s*C-2: b: .*\n\s*C-3: c: "
    ):
        shapes.verdict(_shape(), rows)


@pytest.mark.parametrize(
    ("value", "passes"),
    [(json.dumps(TEMPLATE), True), ("offloaded", False), ("{}", False)],
)
def test_user_command_checks_want_the_template_read_from_the_file(value, passes):
    rows = shapes.user_command_checks(
        _shape(value), clause="C-7", binary=EMISSARY, reader="main read it"
    )
    assert [what for _, what, _, _ in rows] == [
        f"node of main's check that {EMISSARY} is executable",
        "/var/run/argo/template as main read it",
    ]
    assert (shapes.problems(rows) == []) is passes
    assert _shape(value).holds_template(value) is (value != "{}")
