"""We test that the reference controller refuses, with "not supported by the reference
controller", a pod that could only start through upstream's ConfigMap offloading (the
spec's LARGE_ARGUMENTS feature, which it does not claim; upstream fix a739d3c6):

- a main argument over 128 KiB errors the node, in both layouts, and no pod is created;
- args whose JSON passes 131072 bytes, each argument short, do the same (upstream
  offloads by the JSON's size);
- a template too long for `ARGO_TEMPLATE` (a long script, no args) errors the node with
  its own message;
- args and a template just under the limits still make a pod.
"""

from __future__ import annotations

import pytest

from reference_impl.controller.pods import execlimits
from reference_impl.controller.templates.checks import coverage
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import workflow

CONTAINER = """
spec:
  entrypoint: main
  templates:
  - name: main
    container: {image: busybox, command: [sh, -c], args: ["echo $1", sh]}
"""


def run(args: list[str], *, initless: bool = False) -> Harness:
    wf = workflow(CONTAINER)
    wf["spec"]["templates"][0]["container"]["args"] += args
    h = Harness(wf, initless=initless)
    h.reconcile()
    return h


@pytest.mark.parametrize("initless", [False, True])
def test_an_argument_over_the_limit_errors_the_node_without_a_pod(initless: bool):
    h = run(["x" * 140_000], initless=initless)
    node = h.node("wf")
    assert node["phase"] == "Error"
    assert node["message"] == (
        "templates.main: the args of container main are longer than 131072 bytes as "
        "JSON; moving them to a ConfigMap (ARGO_CONTAINER_ARGS_FILE) "
        + coverage.UNSUPPORTED
    )
    assert h.effects.created == []
    assert h.wf["status"]["phase"] == "Error"


def test_many_short_arguments_over_the_limit_as_json_error_the_node_too():
    h = run(["y" * 60_000, "y" * 60_000, "y" * 20_000])
    assert h.node("wf")["phase"] == "Error"
    assert "ARGO_CONTAINER_ARGS_FILE" in h.node("wf")["message"]
    assert h.effects.created == []


def test_a_template_too_long_for_its_env_entry_errors_the_node():
    wf = workflow(
        """
spec:
  entrypoint: main
  templates:
  - name: main
    script: {image: busybox, command: [sh]}
"""
    )
    wf["spec"]["templates"][0]["script"]["source"] = "#" + "z" * 140_000
    h = Harness(wf)
    h.reconcile()
    node = h.node("wf")
    assert node["phase"] == "Error"
    assert node["message"].startswith(
        "templates.main: the template is too long for ARGO_TEMPLATE"
    )
    assert node["message"].endswith(coverage.UNSUPPORTED)


def test_args_just_under_the_limits_still_make_a_pod():
    # 100000 bytes of args, and the template that holds them, fit exec's limit.
    h = run(["x" * 100_000])
    assert h.node("wf")["phase"] == "Pending"
    assert len(h.effects.created) == 1
    main = h.effects.created[0]["spec"]["containers"][1]
    assert main["args"][-1] == "x" * 100_000


def test_the_limit_is_upstreams_max_env_var_len():
    assert execlimits.LIMIT == 131072
