"""We test these aspects of upstream Argo's install manifests (no cluster):

- only CustomResourceDefinitions are read from the CRD directory (its
  kustomization.yaml broke `kubectl apply`), and an empty directory is an error;
- the controller runs with leader election as upstream ships it (identity from the
  pod name), never LEADER_ELECTION_DISABLE;
- the artifact repository goes into the ConfigMap only when given.
"""

from __future__ import annotations

import pytest
import yaml

from conformance.errors import DataError
from conformance.implementations.upstream import manifests


def _render(**extra):
    return manifests.render(
        instance_id="wpc-legacy",
        layout="legacy",
        namespace="argo-wpc-legacy",
        controller_image="c:1",
        executor_image="e:1",
        **extra,
    )


def test_the_crd_directory_is_the_one_upstreams_install_names(tmp_path):
    """v3.6.x installs `minimal` (its `full` CRDs are invalid on Kubernetes 1.36).

    Failed before: the suite always applied `full`, and v3.6.0's prepare failed with
    "spec.validation.openAPIV3Schema...[inline].type: Required value".
    """
    base = tmp_path / "manifests" / "base" / "crds"
    base.mkdir(parents=True)
    assert manifests.crds_dir(tmp_path) == "manifests/base/crds/full"  # v3.7 and later
    chooser = base / "kustomization.yaml"
    chooser.write_text(
        yaml.safe_dump({"kind": "Kustomization", "resources": ["minimal"]})
    )
    assert manifests.crds_dir(tmp_path) == "manifests/base/crds/minimal"
    chooser.write_text(yaml.safe_dump({"resources": ["minimal", "full"]}))
    with pytest.raises(DataError, match="expected one CRD directory"):
        manifests.crds_dir(tmp_path)


def test_only_crds_are_read_from_the_crd_directory(tmp_path):
    crds = tmp_path / "manifests" / "base" / "crds" / "full"
    crds.mkdir(parents=True)
    (crds / "kustomization.yaml").write_text(
        yaml.safe_dump({"kind": "Kustomization", "resources": ["a.yaml"]})
    )
    (crds / "a.yaml").write_text(
        yaml.safe_dump({"kind": "CustomResourceDefinition", "metadata": {"name": "a"}})
    )
    assert [
        d["metadata"]["name"]
        for d in manifests.crds(tmp_path, "manifests/base/crds/full")
    ] == ["a"]
    (crds / "a.yaml").unlink()
    with pytest.raises(DataError, match="no CustomResourceDefinition"):
        manifests.crds(tmp_path, "manifests/base/crds/full")


def test_the_controller_elects_a_leader_as_upstream_ships_it():
    deployment = next(o for o in _render() if o["kind"] == "Deployment")
    env = {
        e["name"]: e
        for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert "LEADER_ELECTION_DISABLE" not in env
    assert (
        env["LEADER_ELECTION_IDENTITY"]["valueFrom"]["fieldRef"]["fieldPath"]
        == "metadata.name"
    )


def test_the_status_finalizer_is_left_at_upstreams_default_off():
    # WPC once installed upstream with it on: experiments that switch it off at
    # their end then changed what every later experiment on the instance saw.
    deployment = next(o for o in _render() if o["kind"] == "Deployment")
    env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    assert "ARGO_POD_STATUS_CAPTURE_FINALIZER" not in {e["name"] for e in env}


def test_the_artifact_repository_is_configured_only_when_given():
    def data(objs):
        return next(o for o in objs if o["kind"] == "ConfigMap")["data"]

    assert "artifactRepository" not in data(_render())
    assert (
        data(_render(artifact_repository="s3:\n  bucket: b\n"))["artifactRepository"]
        == "s3:\n  bucket: b\n"
    )
