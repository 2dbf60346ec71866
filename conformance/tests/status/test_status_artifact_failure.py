"""StatusArtifactFailure: an input download that fails before main, in each layout.

The suite's HTTP server (busybox httpd in the test namespace, serving no
files) answers 404 for the template's input artifact. We test these aspects:

- legacy: `init` exits non-zero and the node is `Error` with
  `init: <Reason> (exit code N)[: <msg>]` (WPC-STATUS-004);
- initless: the supervisor's marker cause starts with `failed to load
  non-plugin input artifacts: ` (WPC-HANDSHAKE-005); `main` exits 65 without
  running its command, with `supervisor reported pre-main failure: <cause>`
  (WPC-HANDSHAKE-006); the supervisor exits 64 with the termination message
  `<cause>`, no earlier than `main`, after completing its task result
  (`report-outputs-completed: "true"`, no output parameters)
  (WPC-HANDSHAKE-011); the node is `Error` with the supervisor's outcome
  `supervisor: <Reason> (exit code 64): <cause>` (WPC-STATUS-005).

The marker itself cannot be read: the pod is over within a second of the 404,
before an exec could look; `main`'s message carries the cause it read from
the marker, and the supervisor's carries the cause it wrote.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.inspecting import recording
from conformance.harness.workload import pods

SERVER = "mkdir -p /www && exec httpd -f -p 8080 -h /www"
CAUSE_PREFIX = "failed to load non-plugin input artifacts: "
COMPLETED = "workflows.argoproj.io/report-outputs-completed"


def run_failing_download(
    workflows: Any, manifest: Any, http_server: Any, kube_clients: kube.Clients
) -> tuple[dict[str, Any], Any]:
    """Submit the workflow against the 404 server; return it completed, and its pod."""
    body = manifest()
    template = body["spec"]["templates"][0]
    image = template["container"]["image"]
    address = http_server(name="http-server", image=image, script=SERVER)
    template["inputs"]["artifacts"][0]["http"]["url"] = (
        f"http://{address}:8080/missing.txt"
    )
    name = workflows.submit(body)
    workflow = workflows.wait_completed(name)
    return workflow, pods.only_pod(kube_clients, workflows.namespace, name)


def outcome(name: str, term: Any) -> str:
    """`<name>: <Reason> (exit code N)[: <msg>]`."""
    text = f"{name}: {term.reason} (exit code {term.exit_code})"
    return f"{text}: {term.message}" if term.message else text


@pytest.mark.conformance(
    short_name="StatusArtifactFailure",
    clauses=["WPC-STATUS-004"],
    features=["INPUT_ARTIFACTS_HTTP"],
)
def test_a_failed_download_in_init_makes_the_node_error(workflows, scene, http_server):
    workflow, pod = run_failing_download(
        workflows, scene.manifest, http_server, scene.clients
    )
    init = pods.terminated(pod, "init")
    assert init.exit_code != 0, f"init exited 0: {init}"
    node = workflow["status"]["nodes"][workflow["metadata"]["name"]]
    assert (node["phase"], node.get("message")) == ("Error", outcome("init", init)), (
        f"WPC-STATUS-004: node {node['phase']} {node.get('message')!r}"
    )


@pytest.mark.conformance(
    short_name="StatusArtifactFailure",
    clauses=[
        "WPC-HANDSHAKE-005",
        "WPC-HANDSHAKE-006",
        "WPC-HANDSHAKE-011",
        "WPC-STATUS-005",
    ],
    features=["INPUT_ARTIFACTS_HTTP"],
)
def test_a_failed_download_in_the_supervisor_stops_main_and_makes_the_node_error(
    workflows, scene, http_server
):
    from kubernetes import client

    api = client.ApiClient(scene.clients.api.configuration)
    results = recording.Recorder(
        api,
        client.CustomObjectsApi(api).list_namespaced_custom_object,
        contract.WORKFLOW_GROUP,
        contract.WORKFLOW_VERSION,
        scene.namespace,
        "workflowtaskresults",
    )
    with results:
        workflow, pod = run_failing_download(
            workflows, scene.manifest, http_server, scene.clients
        )
        node_id = workflow["metadata"]["name"]

        def completed() -> dict[str, Any] | NotYet:
            versions = [
                e.obj for e in results.events() if e.obj["metadata"]["name"] == node_id
            ]
            done = [
                v for v in versions if v["metadata"]["labels"].get(COMPLETED) == "true"
            ]
            return done[-1] if done else NotYet(f"{len(versions)} incomplete versions")

        result = until(
            completed,
            timeout=scene.timeouts.task_result_reported,
            interval=scene.timeouts.poll_interval,
            describe=f"task result {node_id} to be recorded as complete",
        )

    supervisor, main = pods.terminated(pod, "supervisor"), pods.terminated(pod, "main")
    cause = supervisor.message or ""
    assert cause.startswith(CAUSE_PREFIX), (
        f"WPC-HANDSHAKE-005: supervisor's message {cause!r}"
    )
    assert (main.exit_code, main.message) == (
        65,
        f"supervisor reported pre-main failure: {cause}",
    ), "main must exit 65 without running the user command (which exits 42)"
    assert supervisor.exit_code == 64, (
        f"WPC-HANDSHAKE-011: supervisor exited {supervisor.exit_code}"
    )
    assert supervisor.finished_at >= main.finished_at, "supervisor ended before main"
    params = (result.get("outputs") or {}).get("parameters") or []
    assert not params, (
        f"task result reports parameters after a pre-main failure: {params}"
    )
    node = workflow["status"]["nodes"][node_id]
    assert (node["phase"], node.get("message")) == (
        "Error",
        outcome("supervisor", supervisor),
    )
