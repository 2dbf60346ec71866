"""EmissaryFiles: the files the emissary keeps under /var/run/argo, seen from inside the pod.

We test these aspects, in a two-step workflow whose first step (`produce`, a
script template) prints `out-line` to stdout and `err-line` to stderr, writes
the output parameter file `/tmp/param.txt` and then waits for the suite:

- while `produce` still runs, `kubectl exec` finds `/var/run/argo/ctr/main/`
  and `/var/run/argo/ctr/probe/` (the sidecar) as directories with mode 0777
  and no `exitcode` yet; the user command itself found `ctr/main/` with mode
  0777 when it started (WPC-EMISSARY-001);
- after `main` ended, the `probe` sidecar (stopped only once `main`'s
  `exitcode` exists) finds `exitcode` holding `0` without a trailing newline
  (WPC-EMISSARY-001), `stdout` holding exactly `out-line\\n` and `combined`
  holding both lines, because the next step references the result
  (WPC-EMISSARY-006), and the parameter staged at
  `/var/run/argo/outputs/parameters/tmp/param.txt` (WPC-EMISSARY-007).

Not covered here: the `.tgz` staging of output artifacts (WPC-EMISSARY-007),
which needs an artifact repository the suite does not provide yet.
Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.workload import pods

NODE_NAME = "workflows.argoproj.io/node-name"
DIRECTORY = "777 directory"
WHILE_RUNNING = (
    "cat /tmp/ctr-at-start; "
    "stat -c '%a %F' /var/run/argo/ctr/main /var/run/argo/ctr/probe; "
    "test -e /var/run/argo/ctr/main/exitcode && echo exitcode || echo no-exitcode"
)


def _produce_pod(kube_clients: kube.Clients, namespace: str, workflow: str) -> Any:
    for pod in kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={workflow}"
    ).items:
        if (pod.metadata.annotations or {}).get(NODE_NAME, "").endswith(".produce"):
            return pod
    return None


def _sections(report: str) -> dict[str, str]:
    """Split the probe's report into `key=value` lines and `@section` bodies."""
    head, _, rest = report.partition("@stdout\n")
    found = dict(line.split("=", 1) for line in head.splitlines() if "=" in line)
    found["stdout"], _, rest = rest.partition("@combined\n")
    found["combined"], _, rest = rest.partition("@param\n")
    found["param"], _, _ = rest.partition("\n@end")
    return found


@pytest.mark.conformance(
    short_name="EmissaryFiles",
    clauses=["WPC-EMISSARY-001", "WPC-EMISSARY-006", "WPC-EMISSARY-007"],
)
def test_emissary_keeps_exit_code_output_and_parameters_under_var_run_argo(
    workflows, manifest, observations, kube_clients, namespace, timeouts, shell
):
    name = workflows.submit(manifest())

    def armed():
        pod = _produce_pod(kube_clients, namespace, name)
        if pod is None or not pods.running(pod, "main", "probe"):
            return NotYet("produce's main and probe are not both running yet")
        out = {
            c: shell.sh(pod.metadata.name, "ls /tmp/armed", container=c)
            for c in ("main", "probe")
        }
        ready = all(o.strip() == "/tmp/armed" for o in out.values())
        return pod if ready else NotYet(out)

    pod = until(
        armed,
        timeout=timeouts.user_command_started,
        interval=timeouts.poll_interval,
        describe="produce's main and probe sidecar to start their commands",
    )
    during = shell.sh(pod.metadata.name, WHILE_RUNNING)
    shell.release(pod.metadata.name)

    workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    nodes = "\n".join(
        f"{n['displayName']}: {n['phase']} {n.get('message', '')!r}"
        for n in workflow["status"]["nodes"].values()
    )
    assert workflow["status"]["phase"] == "Succeeded", f"nodes:\n{nodes}"

    assert during.splitlines() == [DIRECTORY, DIRECTORY, DIRECTORY, "no-exitcode"], (
        "WPC-EMISSARY-001: while main ran: ctr/main at the command's start, "
        "ctr/main and ctr/probe "
        f"now, exitcode presence: {during!r}"
    )
    pod = _produce_pod(kube_clients, namespace, name)
    probe = next(s for s in pod.status.container_statuses if s.name == "probe")
    assert probe.state.terminated, f"probe sidecar did not terminate: {probe.state}"
    report = probe.state.terminated.message or ""
    found = _sections(report)
    assert found.get("ctr") == DIRECTORY, f"WPC-EMISSARY-001: ctr/main: {report!r}"
    assert (found.get("exitcode"), found.get("exitcode_bytes", "").strip()) == (
        "[0]",
        "1",
    ), f"WPC-EMISSARY-001: exitcode must hold `0` without a newline: {report!r}"
    assert found["stdout"] == "out-line\n", f"WPC-EMISSARY-006: stdout: {report!r}"
    assert sorted(found["combined"].splitlines()) == ["err-line", "out-line"], (
        f"WPC-EMISSARY-006: combined: {report!r}"
    )
    assert found["combined"].endswith("\n"), f"WPC-EMISSARY-006: combined: {report!r}"
    assert found["param"] == "param-value", (
        f"WPC-EMISSARY-007: the staged parameter: {report!r}"
    )
