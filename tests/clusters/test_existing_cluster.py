"""Proof that `wpc run --provider existing` runs on the cluster `KUBECONFIG` names (-m cluster).

The cluster is the local one, reached through a copy of its kubeconfig whose
default context points at a loopback port nothing listens on and whose second,
non-default context points at the local cluster. With only `KUBECONFIG` naming
the copy (no `--cluster`, no `--kubeconfig`), `wpc run --provider existing
--context <second> --select HelloWorld --layout legacy`, started as a user
starts it (a child process), passes, and its report's `cluster` block names
that context and the local cluster's API server. Had any client of the run read
the default context, it would have failed to connect.

The user's kubectl is on PATH (the local provider's, put first). The existing
provider has no node access, so the images the run builds go to a
registry it is given (`WPC_EXISTING_REGISTRY`, a real one on 127.0.0.1 as in
images/test_registry.py); the local cluster's containerd has no mirror of `wpc.local`,
so the reference's own `prepare` commands first load the same images into the
node through the local provider, and the pods find them there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusters.access import kubeconfigs
from clusters.images import registry
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import driving
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice
from tests import loopback
from tests.clusters import _registry
from tests.clusters.conftest import CLUSTER

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
CONTEXT = "wpc-proof-existing"
"""The copy's second context, the one the run is told to use."""
RUN_TIMEOUT = 1200.0
"""Seconds for the whole child run: images, install, HelloWorld, teardown."""


def copied_kubeconfig(local: Path, path: Path) -> tuple[Path, str]:
    """A copy of `local` with an unreachable default context and CONTEXT; its server."""
    chosen = kubeconfigs.resolve((local,))
    user = dict(chosen.user or {})
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "unreachable",
                "cluster": {
                    **chosen.cluster,
                    "server": f"https://127.0.0.1:{loopback.free_port()}",
                },
            },
            {"name": "local", "cluster": chosen.cluster},
        ],
        "users": [{"name": "admin", "user": user}],
        "contexts": [
            {"name": "default", "context": {"cluster": "unreachable", "user": "admin"}},
            {"name": CONTEXT, "context": {"cluster": "local", "user": "admin"}},
        ],
        "current-context": "default",
    }
    path.write_text(yaml.safe_dump(document))
    path.chmod(0o600)
    return path, chosen.server


def load_the_images_through_the_local_provider(log_dir: Path) -> None:
    """What a local run's preparation loads: the tools image, the reference's prepare."""
    local = ClusterChoice(
        kubeconfig=None, provider="local", cluster=CLUSTER, allow_foreign=False
    )
    kubeconfig, kubectl = preparing.locate_cluster(local)
    preparing.load_tools_image(local)
    driving.Driver(
        profile=profiles.load("reference"),
        values=preparing.base_values(local, kubeconfig, kubectl),
        log_dir=log_dir,
        timeout=Timeouts().install,
    ).prepare(("legacy",))


def test_wpc_run_with_only_kubeconfig_set_runs_on_its_non_default_context(
    local: Any, kubeconfig: Path, tmp_path: Path
) -> None:
    copy, server = copied_kubeconfig(kubeconfig, tmp_path / "kubeconfig")
    before = copy.read_text()
    load_the_images_through_the_local_provider(tmp_path / "preload-logs")
    reports = tmp_path / "reports"
    env = {k: v for k, v in os.environ.items() if k != kubeconfigs.VARIABLE}
    env[kubeconfigs.VARIABLE] = str(copy)
    # The existing provider runs the kubectl on PATH, as a user has one there.
    kubectl_dir = Path(local.kubectl(CLUSTER)).parent
    env["PATH"] = f"{kubectl_dir}{os.pathsep}{env.get('PATH', '')}"
    with _registry.running(tmp_path) as server_of_images:
        env[registry.VARIABLE] = server_of_images.url
        ran = subprocess.run(
            [
                sys.executable,
                "-m",
                "wpc",
                "run",
                "--implementation",
                "reference",
                "--provider",
                "existing",
                "--context",
                CONTEXT,
                "--select",
                "HelloWorld",
                "--layout",
                "legacy",
                "--reports-dir",
                str(reports),
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
    output = ran.stdout[-5000:] + ran.stderr[-5000:]
    assert ran.returncode == 0, output
    report = yaml.safe_load((reports / "conformance-reference.yaml").read_text())
    assert report["cluster"]["provider"] == "existing", report["cluster"]
    assert report["cluster"]["context"] == CONTEXT, report["cluster"]
    assert report["cluster"]["server"] == server, report["cluster"]
    assert report["cluster"]["kubernetesVersion"].startswith("v1.")
    scenarios = [t for t in report["tests"] if t["kind"] == "scenario"]
    passed = [t["shortName"] for t in scenarios if t["outcome"] == "passed"]
    assert passed == ["HelloWorld"], scenarios
    assert all(t["outcome"] in ("passed", "skipped") for t in scenarios), scenarios
    # The run's private kubeconfig (the existing provider's cluster, named in the
    # pytest command the launcher logs) is gone; the user's file is as it was.
    private = re.findall(r"\S*/wpc-kubeconfig-[^/\s]+/kubeconfig", ran.stderr)
    assert private, output
    assert not any(Path(p).exists() for p in private)
    assert copy.read_text() == before
