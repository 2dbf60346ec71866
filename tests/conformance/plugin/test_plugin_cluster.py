"""We test these aspects of the plugin against the real local cluster (-m cluster):

- the run checks the WPC marker and fingerprints the environment (Kubernetes
  and containerd versions, nodes) into the report;
- each test gets its own labelled namespace with the executor RBAC;
- a failing test leaves evidence (pod YAML, events, terminations, marker read);
- cleanup strips the status finalizer and waits: nothing of the run is left;
- every item's phases are recorded, its setup and cleanup taking time.

No implementation is installed (a no-op profile with --skip-install): these
prove the harness, not a controller.
"""

from __future__ import annotations

import textwrap

import pytest
import yaml

from conformance.harness.cluster import kube
from conformance.report.runs import documents
from tests.conformance.conftest import DIVERGENCES
from tests.conformance.conftest import PROFILE
from tests.conformance.conftest import SPEC

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

SCENARIOS = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Harness", clauses=["WPC-POD-001"])
    def test_namespace_has_labels_and_executor_rbac(namespace, kube_clients, run_context):
        ns = kube_clients.core.read_namespace(namespace)
        assert ns.metadata.labels["wpc.dev/session-id"] == run_context.session_id
        assert ns.metadata.labels["wpc.dev/test"] == "Harness"
        role = kube_clients.rbac.read_namespaced_role("wpc-executor", namespace)
        assert role.rules[0].resources == ["workflowtaskresults"]
        assert sorted(role.rules[0].verbs) == ["create", "patch"]
        binding = kube_clients.rbac.read_namespaced_role_binding("wpc-executor", namespace)
        assert binding.subjects[0].name == "default"

    @pytest.mark.conformance(short_name="Harness", clauses=["WPC-POD-001"])
    def test_failure_leaves_evidence(namespace, kube_clients, test_labels):
        kube_clients.core.create_namespaced_pod(namespace, {
            "metadata": {"name": "stuck", "labels": test_labels,
                         "finalizers": ["workflows.argoproj.io/status"]},
            "spec": {"containers": [{"name": "main", "image": "wpc.invalid/nothing:1",
                                     "imagePullPolicy": "IfNotPresent"}]},
        })
        assert False, "deliberate failure"
    """
)


def test_harness_against_the_local_cluster(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_harness=SCENARIOS)
    report = pytester.path / "reports" / "conformance-fake.yaml"
    result = pytester.runpytest(
        "--wpc-implementation",
        str(PROFILE),
        "--wpc-spec",
        str(SPEC),
        "--wpc-divergences",
        str(DIVERGENCES),
        "--wpc-layout",
        "legacy",
        "--wpc-skip-install",
        "--wpc-provider",
        "local",
        "--wpc-cluster-name",
        "wpc",
        "--wpc-report",
        str(report),
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        "-W",
        "ignore::DeprecationWarning",
    )
    result.assert_outcomes(passed=1, failed=1)
    doc = yaml.safe_load(report.read_text())
    documents.validate(doc)
    assert doc["environment"]["kubernetesVersion"].startswith("v1.")
    assert doc["environment"]["containerRuntimeVersions"][0].startswith("containerd://")
    assert doc["environment"]["clusterMarker"]["provider"] == "local"
    assert doc["environment"]["featureGates"], "alpha/beta gates read from /metrics"
    assert doc["leaks"] == []
    for test in doc["tests"]:  # the namespace is made in setup, deleted in cleanup
        assert test["phases"]["setup"] > 0, test["phases"]
        assert test["phases"]["cleanup"] > 0, test["phases"]
    failed = next(t for t in doc["tests"] if t["outcome"] == "failed")
    names = {e.rsplit("/", 1)[-1] for e in failed["evidence"]}
    assert {
        "pod-stuck.yaml",
        "events.txt",
        "pod-stuck-terminations.txt",
        "pod-stuck-status-marker.txt",
        "pod-stuck-main.log",
        "controller.log",
    } <= names

    clients = kube.connect(_kubeconfig())
    left = clients.core.list_namespace(
        label_selector=kube.session_selector(doc["run"]["sessionId"])
    ).items
    assert left == []


def _kubeconfig() -> str:
    import subprocess
    import sys

    return subprocess.run(
        [
            sys.executable,
            "-m",
            "clusters",
            "kubeconfig",
            "--provider",
            "local",
            "--name",
            "wpc",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
