"""Render the objects of one controller instance from the base manifests."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from reference_impl import common

MANIFESTS = Path(__file__).resolve().parent.parent / "manifests"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "manifests"
CLUSTER_ROLE = "wpc-reference-workflow-controller"
ARTIFACT_REPOSITORY = """s3:
  bucket: wpc-artifacts
  endpoint: wpc-s3.argo.svc:9000
  insecure: true
  accessKeySecret:
    name: wpc-s3-credentials
    key: accessKey
  secretKeySecret:
    name: wpc-s3-credentials
    key: secretKey
"""


@dataclass(frozen=True)
class Instance:
    """One controller instance."""

    namespace: str
    instance_id: str
    layout: str
    status_finalizer: bool = False
    fault: str = ""


def _load(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text())
    assert isinstance(loaded, dict)
    return loaded


def config_data(inst: Instance) -> dict[str, str]:
    """The ConfigMap keys, each a YAML document as Argo expects."""
    executor = (MANIFESTS / "base" / "controller" / "config" / "executor").read_text()
    data = {
        "executor": executor,
        "initlessPod": f"enabled: {'true' if inst.layout == 'initless' else 'false'}\n",
        "artifactRepository": ARTIFACT_REPOSITORY,
    }
    if inst.instance_id:
        data["instanceID"] = inst.instance_id
    return data


CONFIG_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
"""A top-level field of the controller configuration (`instanceID`, `images`, ...)."""


def config_patch(key: str, value: Any) -> dict[str, Any]:
    """A merge patch setting ConfigMap key `key` to `value` as JSON (None removes it).

    One data key per top-level field, each value a YAML document (one line of JSON
    is one), as `config_data` writes them; ValueError for a key that is not a field
    name (or is Argo's whole-document `config` key).
    """
    if not CONFIG_KEY.match(key) or key == "config":
        raise ValueError(
            f"configuration key {key!r}: expected one top-level field name "
            f"({CONFIG_KEY.pattern}, not 'config')"
        )
    return {"data": {key: None if value is None else json.dumps(value)}}


def instance_objects(inst: Instance) -> list[dict[str, Any]]:
    """Namespace, ServiceAccount, ClusterRoleBinding, ConfigMap and Deployment."""
    labels = {
        "app.kubernetes.io/part-of": "wpc-reference",
        "wpc.dev/controller-instance": inst.instance_id or "default",
    }
    ns = inst.namespace
    deployment = copy.deepcopy(
        _load(MANIFESTS / "base" / "controller" / "deployment.yaml")
    )
    deployment["metadata"].update(namespace=ns, labels=labels)
    pod = deployment["spec"]["template"]
    pod["metadata"]["labels"]["app.kubernetes.io/name"] = "wpc-controller"
    container = pod["spec"]["containers"][0]
    lease = common.default_lease_name(inst.instance_id)
    container["args"] = [
        f"--namespace={ns}",
        f"--configmap={common.CONFIGMAP_NAME}",
        f"--lease-name={lease}",
    ]
    env = [
        e
        for e in container["env"]
        if e["name"] not in (common.ENV_STATUS_CAPTURE_FINALIZER, "WPC_REFERENCE_FAULT")
    ]
    env.append(
        {
            "name": common.ENV_STATUS_CAPTURE_FINALIZER,
            "value": "true" if inst.status_finalizer else "false",
        }
    )
    if inst.fault:
        env.append({"name": "WPC_REFERENCE_FAULT", "value": inst.fault})
    container["env"] = env
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": ns, "labels": labels},
        },
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                "name": "workflow-controller",
                "namespace": ns,
                "labels": labels,
            },
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": f"wpc-reference-{ns}", "labels": labels},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": CLUSTER_ROLE,
            },
            "subjects": [
                {
                    "kind": "ServiceAccount",
                    "name": "workflow-controller",
                    "namespace": ns,
                }
            ],
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": common.CONFIGMAP_NAME,
                "namespace": ns,
                "labels": labels,
            },
            "data": config_data(inst),
        },
        deployment,
    ]


def shared_objects() -> list[dict[str, Any]]:
    """Cluster-wide pieces every instance needs: the CRDs and the ClusterRole."""
    objs = [_load(p) for p in sorted((MANIFESTS / "base" / "crds").glob("*.yaml"))]
    objs.append(_load(MANIFESTS / "base" / "rbac" / "clusterrole.yaml"))
    return objs


def dump(objects: list[dict[str, Any]]) -> str:
    """A multi-document YAML stream for `kubectl apply -f -`."""
    return yaml.safe_dump_all(objects, sort_keys=False)
