"""We test these aspects of a DAG's phase (upstream `assessDAGPhase`, issue #16):

a failure handled by one dependent (`depends: ... && b.Failed`) but not by another, which
is Omitted, fails the DAG and the workflow; a failure handled by every dependent does not;
and an Omitted target reached only from succeeded branches stays a success.
"""

from __future__ import annotations

from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import workflow

PARTLY_HANDLED = """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: echo}
      - {name: b, template: echo, depends: a}
      - {name: handler, template: echo, depends: "a && b.Failed"}
      - {name: after-b, template: echo, depends: "a && b"}
  - name: echo
    container: {image: busybox, command: [echo, hi]}
"""

FULLY_HANDLED = """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: echo}
      - {name: b, template: echo, depends: a}
      - {name: handler, template: echo, depends: "a && b.Failed"}
  - name: echo
    container: {image: busybox, command: [echo, hi]}
"""


def _run_with_b_failing(text: str) -> Harness:
    h = Harness(workflow(text))
    h.reconcile()
    h.succeed("wf.a")
    h.reconcile()
    h.fail("wf.b")
    h.reconcile()
    h.succeed("wf.handler")
    h.reconcile()
    return h


def test_a_failure_handled_by_one_dependent_but_omitting_another_fails_the_dag():
    h = _run_with_b_failing(PARTLY_HANDLED)
    assert h.node("wf.after-b")["phase"] == "Omitted"
    assert h.node("wf.handler")["phase"] == "Succeeded"
    assert h.node("wf")["phase"] == "Failed"
    assert h.wf["status"]["phase"] == "Failed"


def test_a_failure_handled_by_every_dependent_lets_the_dag_succeed():
    h = _run_with_b_failing(FULLY_HANDLED)
    assert h.node("wf")["phase"] == "Succeeded"
    assert h.wf["status"]["phase"] == "Succeeded"


def test_an_omitted_target_reached_only_from_succeeded_branches_is_a_success():
    h = Harness(workflow(PARTLY_HANDLED))
    h.reconcile()
    h.succeed("wf.a")
    h.reconcile()
    h.succeed("wf.b")
    h.reconcile()
    h.succeed("wf.after-b")
    h.reconcile()
    assert h.node("wf.handler")["phase"] == "Omitted"
    assert h.wf["status"]["phase"] == "Succeeded"
