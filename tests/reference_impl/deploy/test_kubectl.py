"""We test these aspects of the deploy tool's one kubectl (no cluster):

- a call runs the given binary with the kubeconfig, and `-n` once bound to a
  namespace;
- a failing kubectl raises KubectlError, both the package's DeployError and the
  bottom layer's CommandFailed, carrying the command line, exit code and output;
- the command line turns it into `error: ...` and exit code 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from plumbing.errors import CommandFailed
from reference_impl.deploy import __main__ as cli
from reference_impl.deploy.errors import DeployError
from reference_impl.deploy.errors import KubectlError
from reference_impl.deploy.kubectl import Kubectl


def _fake(tmp_path: Path, body: str) -> str:
    path = tmp_path / "kubectl"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_a_call_passes_kubeconfig_and_the_bound_namespace(tmp_path):
    kubectl = Kubectl(_fake(tmp_path, 'echo "$@"'), "/kc")
    assert kubectl("get", "pods") == "--kubeconfig /kc get pods\n"
    bound = kubectl.in_namespace("ns1")
    assert bound("get", "pods") == "--kubeconfig /kc -n ns1 get pods\n"


def test_a_failing_kubectl_carries_its_evidence(tmp_path):
    kubectl = Kubectl(_fake(tmp_path, 'echo "no such thing: $3" >&2; exit 4'), "/kc")
    with pytest.raises(KubectlError) as caught:
        kubectl("delete", "pod/x")
    error = caught.value
    assert isinstance(error, DeployError)
    assert isinstance(error, CommandFailed)
    assert error.returncode == 4
    assert "exit code 4" in str(error)
    assert "--kubeconfig /kc delete pod/x" in str(error)
    assert "no such thing: delete" in str(error)


def test_the_command_line_reports_a_failure_as_exit_1(tmp_path, capsys):
    binary = _fake(tmp_path, "echo boom >&2; exit 2")
    argv = ["restart", "--kubectl", binary, "--kubeconfig", "/kc"]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: command failed with exit code 2")
    assert "boom" in err
