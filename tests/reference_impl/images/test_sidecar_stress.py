"""Issue #13's stress test: 50 plain sidecar workflows on a node loaded to 2x its cores.

Each workflow's main echoes while a plain sidecar sleeps; once main is done
the sidecar is terminated (by its own emissary and by the controller's kill).
A SIGTERM that reached argoexec before its handlers existed used to fail such
a workflow with `side: Error (exit code 2)`, about 1 run in 5 on a loaded node.
We test, per layout, that all 50 succeed and that no container of their pods
ended with exit code 2.

It builds and loads this tree's images into the shared cluster and installs a
controller instance of its own in a namespace of its own (labelled
`app.kubernetes.io/managed-by=wpc-dev`, instance ID = namespace name), which it
deletes afterwards. Run it under the cluster lock, one layout at a time:

    flock /work/wt/cluster.lock .venv/bin/python -m pytest -m "cluster and slow" \
        -p no:cacheprovider tests/reference_impl/images/test_sidecar_stress.py -k legacy
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from plumbing import waiting
from reference_impl import common
from reference_impl.images import burning

pytestmark = [pytest.mark.cluster, pytest.mark.slow, pytest.mark.stress]

CLUSTER = "wpc"
COUNT = 50
CONCURRENCY = 10
"""Workflows in flight at once: the node also carries 2 busy processes per core."""
ALL_DONE_TIMEOUT = 900.0
"""50 one-pod workflows on a loaded 2-core node took about 4 min; 15 min is ample."""
ROLLOUT_TIMEOUT = 300.0
PY = sys.executable


def _capture(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


class Kubectl:
    """`kubectl --kubeconfig ... -n <namespace>`, as subprocesses."""

    def __init__(self, namespace: str) -> None:
        self.binary = _capture(PY, "-m", "clusters", "kubectl-path", "--name", CLUSTER)
        self.kubeconfig = _capture(
            PY, "-m", "clusters", "kubeconfig", "--name", CLUSTER
        )
        self.namespace = namespace

    def __call__(self, *args: str, stdin: str | None = None) -> str:
        command = [self.binary.strip(), "--kubeconfig", self.kubeconfig.strip()]
        result = subprocess.run(
            [*command, "-n", self.namespace, *args],
            input=stdin, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 0, f"kubectl {' '.join(args)}: {result.stderr}"
        return result.stdout


def _executor_rbac(namespace: str) -> list[dict[str, object]]:
    """What the conformance harness gives each test namespace: task results only."""
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "wpc-executor", "namespace": namespace},
            "rules": [
                {
                    "apiGroups": ["argoproj.io"],
                    "resources": ["workflowtaskresults"],
                    "verbs": ["create", "patch"],
                }
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "wpc-executor", "namespace": namespace},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "Role",
                "name": "wpc-executor",
            },
            "subjects": [{"kind": "ServiceAccount", "name": "default"}],
        },
    ]


def _workflow(instance_id: str) -> dict[str, object]:
    image = {"image": common.TEST_IMAGE, "imagePullPolicy": "IfNotPresent"}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {
            "generateName": "sidecar-stress-",
            "labels": {
                "workflows.argoproj.io/controller-instanceid": instance_id,
                "app.kubernetes.io/managed-by": "wpc-dev",
            },
        },
        "spec": {
            "entrypoint": "main",
            "templates": [
                {
                    "name": "main",
                    "container": {**image, "command": ["echo", "hello"]},
                    "sidecars": [
                        {**image, "name": "side", "command": ["sleep", "3600"]}
                    ],
                }
            ],
        },
    }


@pytest.fixture
def instance(request: pytest.FixtureRequest) -> Iterator[tuple[Kubectl, str]]:
    """Load this tree's images; a controller instance of our own; gone afterwards."""
    layout = request.param
    namespace = f"wpc-dev-i13-{layout}-{uuid.uuid4().hex[:6]}"
    workdir = Path(os.environ.get("WPC_CACHE_DIR", Path.home() / ".cache/wpc"))
    subprocess.run(
        [PY, "-m", "conformance", "load-images", "--provider", "local", "--cluster",
         CLUSTER, "--workdir", str(workdir / "images" / "reference"), "--",
         PY, "-m", "reference_impl.images", "build"],
        check=True,
    )  # fmt: skip
    kubectl = Kubectl(namespace)
    namespace_object = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": namespace,
            "labels": {"app.kubernetes.io/managed-by": "wpc-dev"},
        },
    }
    kubectl("create", "-f", "-", stdin=json.dumps(namespace_object))
    deploy = [PY, "-m", "reference_impl.deploy"]
    where = [
        "--kubectl", kubectl.binary.strip(), "--kubeconfig", kubectl.kubeconfig.strip(),
        "--namespace", namespace,
    ]  # fmt: skip
    try:
        subprocess.run(
            [
                *deploy,
                "install",
                *where,
                "--instance-id",
                namespace,
                "--layout",
                layout,
            ],
            check=True,
            timeout=ROLLOUT_TIMEOUT,
        )
        for obj in _executor_rbac(namespace):
            kubectl("apply", "-f", "-", stdin=json.dumps(obj))
        yield kubectl, namespace
    finally:
        subprocess.run([*deploy, "uninstall", *where], check=True)


def _phases(kubectl: Kubectl) -> dict[str, str]:
    listed = json.loads(kubectl("get", "workflows", "-o", "json"))
    return {
        wf["metadata"]["name"]: wf.get("status", {}).get("phase", "")
        for wf in listed["items"]
    }


def _finished(kubectl: Kubectl, want: int) -> waiting.NotYet | dict[str, str]:
    phases = _phases(kubectl)
    done = {n: p for n, p in phases.items() if p in ("Succeeded", "Failed", "Error")}
    if len(done) < want:
        return waiting.NotYet(collections.Counter(phases.values()))
    return done


def _exit_codes(kubectl: Kubectl) -> collections.Counter[tuple[str, int]]:
    pods = json.loads(kubectl("get", "pods", "-o", "json"))["items"]
    codes: collections.Counter[tuple[str, int]] = collections.Counter()
    for pod in pods:
        status = pod.get("status", {})
        for ctr in status.get("initContainerStatuses", []) + status.get(
            "containerStatuses", []
        ):
            terminated = ctr.get("state", {}).get("terminated")
            if terminated:
                codes[(ctr["name"], terminated["exitCode"])] += 1
    return codes


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("instance", ["legacy", "initless"], indirect=True)
def test_fifty_sidecar_workflows_on_a_loaded_node_never_exit_2(instance):
    kubectl, namespace = instance
    manifest = yaml.safe_dump(_workflow(instance_id=namespace))
    with burning.busy(processes=2 * (os.cpu_count() or 1), limit=ALL_DONE_TIMEOUT):
        for submitted in range(COUNT):
            if submitted >= CONCURRENCY:  # keep CONCURRENCY in flight
                waiting.until(
                    lambda n=submitted: _finished(kubectl, n - CONCURRENCY + 1),
                    timeout=ALL_DONE_TIMEOUT,
                    interval=1.0,
                    describe="earlier sidecar workflows to finish",
                )
            kubectl("create", "-f", "-", stdin=manifest)
        done = waiting.until(
            lambda: _finished(kubectl, COUNT),
            timeout=ALL_DONE_TIMEOUT,
            interval=2.0,
            describe=f"{COUNT} sidecar workflows to finish",
        )
    codes = _exit_codes(kubectl)
    sys.stderr.write(f"[{namespace}] phases {collections.Counter(done.values())}, "
                     f"container exit codes {dict(codes)}\n")  # fmt: skip
    assert not [key for key in codes if key[1] == 2], codes
    failed = {n: p for n, p in done.items() if p != "Succeeded"}
    messages = {
        name: json.loads(kubectl("get", "workflow", name, "-o", "json"))["status"].get(
            "message"
        )
        for name in failed
    }
    assert not failed, messages
