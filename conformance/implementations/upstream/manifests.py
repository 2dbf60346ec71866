"""Per-instance manifests for an upstream Argo Workflows controller.

One namespace per instance, a ClusterRole and binding named after the
instance, the controller ConfigMap (`instanceID`, `initlessPod`, executor pull
policy) and the Deployment. Written from the contract's facts (controller RBAC,
ConfigMap keys, flags, env), not copied from upstream's kustomize tree. The
same objects serve v4.0.x and v4.1.x (their RBAC, flags and env agree), except
that a build without the init-less layout gets no `initlessPod` key: Argo
parses its ConfigMap strictly and would refuse it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from conformance import contract
from conformance.errors import DataError
from conformance.implementations.upstream import pins

CONFIGMAP = "workflow-controller-configmap"
DEPLOYMENT = "workflow-controller"
APP_LABEL = "app.kubernetes.io/name"
INSTANCE_LABEL = "wpc.dev/instance-id"

ALL_VERBS = ["create", "get", "list", "watch", "update", "patch", "delete"]
CONTROLLER_RULES: list[dict[str, Any]] = [
    {"apiGroups": [""], "resources": ["pods", "pods/exec"], "verbs": ALL_VERBS},
    {
        "apiGroups": [""],
        "resources": ["configmaps", "namespaces"],
        "verbs": ["get", "watch", "list"],
    },
    {
        "apiGroups": [""],
        "resources": ["persistentvolumeclaims", "persistentvolumeclaims/finalizers"],
        "verbs": ["create", "update", "delete", "get"],
    },
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["get", "list"]},
    {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]},
    {
        "apiGroups": ["argoproj.io"],
        "resources": [
            "workflows",
            "workflows/finalizers",
            "workflowtasksets",
            "workflowtasksets/finalizers",
            "workflowartifactgctasks",
        ],
        "verbs": [*ALL_VERBS, "deletecollection"],
    },
    {
        "apiGroups": ["argoproj.io"],
        "resources": ["workflowtaskresults"],
        "verbs": ["list", "watch", "deletecollection"],
    },
    {
        "apiGroups": ["argoproj.io"],
        "resources": [
            "workflowtemplates",
            "workflowtemplates/finalizers",
            "clusterworkflowtemplates",
            "clusterworkflowtemplates/finalizers",
            "cronworkflows",
            "cronworkflows/finalizers",
        ],
        "verbs": ["get", "list", "watch"],
    },
    {
        "apiGroups": ["coordination.k8s.io"],
        "resources": ["leases"],
        "verbs": ["create", "get", "update"],
    },
]


def render(
    *,
    instance_id: str,
    layout: str,
    namespace: str,
    controller_image: str,
    executor_image: str,
    artifact_repository: str = "",
    unsupported: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The objects of one controller instance.

    Leader election is on, as upstream ships it: a rolling restart then never
    has two controllers acting at once, because the new pod waits for the
    Lease the old one releases when it stops. `unsupported` names the layouts
    the build cannot run, with the reason (`layouts.unsupported`): asking for
    one is a DataError, never a controller that silently runs the other.
    """
    unsupported = unsupported or {}
    if layout in unsupported:
        raise DataError(
            f"--layout {layout}: this build cannot run it: {unsupported[layout]}"
        )
    layout_config = (
        {}
        if contract.INITLESS in unsupported
        else {"initlessPod": f"enabled: {str(layout == contract.INITLESS).lower()}\n"}
    )
    labels = {
        "app.kubernetes.io/managed-by": "wpc",
        INSTANCE_LABEL: instance_id,
        APP_LABEL: DEPLOYMENT,
    }
    name = f"wpc-argo-{instance_id}"
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": namespace, "labels": labels},
        },
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "argo", "namespace": namespace, "labels": labels},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": name, "labels": labels},
            "rules": CONTROLLER_RULES,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name, "labels": labels},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": name,
            },
            "subjects": [
                {"kind": "ServiceAccount", "name": "argo", "namespace": namespace}
            ],
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": CONFIGMAP, "namespace": namespace, "labels": labels},
            "data": {
                "instanceID": instance_id,
                **layout_config,
                "executor": "imagePullPolicy: IfNotPresent\n",
                **(
                    {"artifactRepository": artifact_repository}
                    if artifact_repository
                    else {}
                ),
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": DEPLOYMENT, "namespace": namespace, "labels": labels},
            "spec": {
                "replicas": 1,
                "selector": {
                    "matchLabels": {APP_LABEL: DEPLOYMENT, INSTANCE_LABEL: instance_id}
                },
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "serviceAccountName": "argo",
                        "containers": [
                            {
                                "name": "workflow-controller",
                                "image": controller_image,
                                "imagePullPolicy": "IfNotPresent",
                                "args": [
                                    "--configmap",
                                    CONFIGMAP,
                                    "--executor-image",
                                    executor_image,
                                    "--executor-image-pull-policy",
                                    "IfNotPresent",
                                ],
                                "env": [
                                    {
                                        "name": "LEADER_ELECTION_IDENTITY",
                                        "valueFrom": {
                                            "fieldRef": {
                                                "apiVersion": "v1",
                                                "fieldPath": "metadata.name",
                                            }
                                        },
                                    },
                                    # No ARGO_POD_STATUS_CAPTURE_FINALIZER: upstream's
                                    # default (false, docs/environment-variables.md),
                                    # as its released manifests ship and as the
                                    # reference installs; scenarios and experiments
                                    # that need the finalizer switch it on, and
                                    # switching it off again restores the install.
                                ],
                            }
                        ],
                    },
                },
            },
        },
    ]


def write(objects: list[dict[str, Any]], path: Path) -> None:
    """Write a multi-document YAML file for `kubectl apply -f`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False))


def crds_dir(module_dir: Path) -> str:
    """The CRD directory upstream's own install applies, relative to the tree.

    Up to v3.6.x, `manifests/base/crds/kustomization.yaml` names it: `minimal` (the
    schemaless CRDs). Their `full` CRDs are not valid on Kubernetes 1.36: v3.6.0's
    `inline` DAG task property has no `type` ("Required value: must not be empty
    for specified object fields", measured applying them), so applying them fails
    where upstream's install never tried. Later trees have no such file, and the
    suite applies `full` (pins.CRDS_DIR), whose schemas the API server checks.
    """
    chooser = module_dir / pins.CRDS_BASE / "kustomization.yaml"
    if not chooser.is_file():
        return pins.CRDS_DIR
    resources = (yaml.safe_load(chooser.read_text()) or {}).get("resources") or []
    if len(resources) != 1 or not isinstance(resources[0], str):
        raise DataError(
            f"{chooser}: expected one CRD directory under resources, got {resources!r}"
        )
    return f"{pins.CRDS_BASE}/{resources[0].strip('/')}"


def crds(module_dir: Path, subdir: str) -> list[dict[str, Any]]:
    """The CRDs shipped in the source tree.

    Only CustomResourceDefinition documents: the directory also holds
    upstream's `kustomization.yaml`, which `kubectl apply` cannot take ("no
    matches for kind Kustomization").
    """
    objects: list[dict[str, Any]] = []
    for path in sorted((module_dir / subdir).glob("*.yaml")):
        objects.extend(
            d
            for d in yaml.safe_load_all(path.read_text())
            if d and d.get("kind") == "CustomResourceDefinition"
        )
    if not objects:
        raise DataError(f"{module_dir / subdir}: no CustomResourceDefinition found")
    return objects
