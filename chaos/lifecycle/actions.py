"""Experiment-level actions: set the stage, submit the workload, end cleanly.

Every experiment's method starts with `begin_experiment` (its namespace, with
the executor RBAC and the artifact repository's Secrets, and the history
recorder watching it) and its rollbacks end with `end_experiment` (settle,
stop the recording, delete the namespace and wait). The targets' own actions
live beside their probes: `chaos.controller`, `chaos.pod`, `chaos.node`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from chaos import sessions
from chaos.activities import activity
from chaos.history.recording import HistoryRecorder
from chaos.lifecycle import ending
from chaos.lifecycle import servers
from conformance.harness.cluster import kube
from conformance.harness.inspecting import executing
from conformance.harness.stage import namespaces
from conformance.harness.stage import secrets
from conformance.harness.stage import servers as harness_servers
from conformance.harness.workload import workflows as workflow_ops

logger = logging.getLogger(__name__)

WORKFLOWS_DIR = Path(__file__).resolve().parents[1] / "experiments" / "workflows"
"""The workflow manifests experiments submit (`${<role>_image}` filled in, and
`${server_url}`: the artifact server's, or a port nothing listens on)."""
SERVER_URL = "server-url"
"""Memo key: the base URL of the experiment's artifact server."""

__all__ = [
    "begin_experiment",
    "end_experiment",
    "open_artifact_server",
    "start_artifact_server",
    "submit_workflow",
]


@activity
def begin_experiment(
    api_outage_seconds: float = 0.0, configuration: dict[str, Any] | None = None
) -> str:
    """Create the experiment's namespace and start recording its history.

    `api_outage_seconds`: how long the recording may lose the API server (an
    experiment that stops it on purpose); 0 fails the recording at once.
    """
    session = sessions.current(configuration)
    if session.namespace:
        return session.namespace
    name = namespaces.unique_name(
        short_name=f"Chaos{session.experiment.title().replace('-', '')}",
        layout=session.settings.layout,
    )
    namespaces.create(session.clients, name=name, labels=session.labels)
    session.namespace = name
    secrets.copy_into(
        session.clients,
        secrets=session.profile.repository_secrets,
        namespace=name,
        labels=session.labels,
    )
    # Its own ApiClient: exec streams swap call_api on the client they use.
    recorder_api = kube.connect(str(session.driver.values["kubeconfig"])).api
    session.history_path.parent.mkdir(parents=True, exist_ok=True)
    session.history_path.unlink(missing_ok=True)
    session.recorder = HistoryRecorder.for_namespace(
        recorder_api, name, session.history_path, outage_seconds=api_outage_seconds
    )
    session.recorder.start()
    session.recorded = True
    logger.info(
        "[%s] Recording %s to %s.", session.experiment, name, session.history_path
    )
    return name


@activity
def submit_workflow(
    manifest: str, alias: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """Submit `chaos/experiments/workflows/<manifest>` to the chaos instance."""
    session = sessions.current(configuration)
    substitutions = {f"{k}_image": v for k, v in session.profile.images.items()}
    substitutions["server_url"] = str(
        session.memo.get(SERVER_URL, "http://127.0.0.1:9")
    )
    substitutions["controller_node"] = _controller_node(session)
    body = workflow_ops.load_manifest(
        WORKFLOWS_DIR / manifest, substitutions=substitutions
    )
    name = session.workflow_ops().submit(body)
    session.workflows[alias] = name
    logger.info("[%s] Submitted workflow %s as %r.", session.experiment, name, alias)
    return name


def _controller_node(session: sessions.Session) -> str:
    """The node of the chaos controller's pod (`none` without one).

    Manifests keep the steps a worker fault hits off it (`${controller_node}`).
    """
    from chaos.controller import pods as controller_pods

    nodes = [
        p.spec.node_name for p in controller_pods.listed(session) if p.spec.node_name
    ]
    return str(nodes[0]) if nodes else "none"


@activity
def end_experiment(configuration: dict[str, Any] | None = None) -> list[str]:
    """Let the namespace settle, stop the recording, delete the namespace.

    Returns what was still unclean when the settling time ran out (the
    invariants judge it; this does not fail for it).
    """
    session = sessions.current(configuration)
    if not session.namespace:
        return []
    left = ending.settle(session)
    ending.stop_recording(session)
    ending.delete_namespace(session)
    return left


@activity
def start_artifact_server(
    script: str = "gated", configuration: dict[str, Any] | None = None
) -> str:
    """Start the experiment's artifact server (`chaos.lifecycle.servers`); return its URL."""
    session = sessions.current(configuration)
    address = harness_servers.start(
        session.clients,
        namespace=session.namespace,
        name=servers.NAME,
        labels=session.labels,
        image=session.profile.images["tools"],
        script=servers.SCRIPTS[script],
        timeouts=session.timeouts,
        grace_seconds=0,
    )
    url = f"http://{address}:{harness_servers.PORT}"
    session.memo[SERVER_URL] = url
    return url


@activity
def open_artifact_server(configuration: dict[str, Any] | None = None) -> None:
    """Let the gated artifact server answer (create `/tmp/open` in its pod)."""
    session = sessions.current(configuration)
    executing.Shell(
        clients=session.clients, namespace=session.namespace, timeouts=session.timeouts
    ).touch(servers.NAME, "/tmp/open", container="httpd")
