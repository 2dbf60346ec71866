"""HTTP servers the suite runs in a test's namespace, from its own tools image.

Artifact and handshake scenarios need a server the workflow's pods can reach:
`start()` creates one pod running `script` (a busybox `httpd` or `nc` loop on
port 8080, readiness by TCP), waits until it is Ready and returns its IP. The
pod carries the test's labels and goes with the namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.cluster.watching import until
from plumbing.waiting import NotYet

PORT = 8080

ARTIFACT_FILES = """
mkdir -p /www /src/sub
printf '%s' "$FILE_TEXT" > /www/file.txt
printf 'alpha\\n' > /src/a.txt
printf 'beta\\n' > /src/sub/b.txt
tar -czf /www/dir.tgz -C /src a.txt sub
exec httpd -f -p 8080 -h /www
"""
"""An httpd serving `file.txt` (holding $FILE_TEXT) and `dir.tgz` (a.txt, sub/b.txt)."""


def start(
    clients: kube.Clients,
    *,
    namespace: str,
    name: str,
    labels: dict[str, str],
    image: str,
    script: str,
    timeouts: Timeouts,
    container: str = "httpd",
    env: dict[str, str] | None = None,
    grace_seconds: int = 1,
) -> str:
    """Run `sh -c script` in pod `name`; return the pod's IP once it is Ready."""
    spec: dict[str, Any] = {
        "name": container,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["sh", "-c", script],
        "readinessProbe": {"tcpSocket": {"port": PORT}, "periodSeconds": 1},
    }
    if env:
        spec["env"] = [{"name": k, "value": v} for k, v in env.items()]
    clients.core.create_namespaced_pod(
        namespace,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": labels},
            "spec": {
                "containers": [spec],
                "terminationGracePeriodSeconds": grace_seconds,
            },
        },
    )

    def ready() -> str | NotYet:
        status = clients.core.read_namespaced_pod(name, namespace).status
        conditions = {c.type: c.status for c in status.conditions or []}
        if conditions.get("Ready") == "True" and status.pod_ip:
            return str(status.pod_ip)
        return NotYet(f"phase={status.phase} conditions={conditions}")

    return until(
        ready,
        timeout=timeouts.artifact_server_ready,
        interval=timeouts.poll_interval,
        describe=f"the suite's HTTP server pod {namespace}/{name} to be ready",
    )


def artifact_files(start: Callable[..., str], *, image: str, text: str) -> str:
    """Serve `ARTIFACT_FILES` with `start` (the `http_server` fixture); its base URL."""
    address = start(
        name="artifact-server",
        image=image,
        script=ARTIFACT_FILES,
        env={"FILE_TEXT": text},
        grace_seconds=0,
    )
    return f"http://{address}:{PORT}"
