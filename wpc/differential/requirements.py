"""What a workflow needs that a machine without network or registry lacks.

A differential run compares two implementations on workflows both can run
here: an upstream example that pulls a public image, clones a repository,
reads a Secret or a WorkflowTemplate nobody installed, or waits for a manual
`argo resume`, would fail (or hang) under both for reasons that say nothing
about either. `reasons()` names each such need; the runner lists the workflow
as skipped with them instead of running it.

Services the run does provide: the suite's in-cluster S3 server (the default
artifact repository of both sides' instances, credentials Secret
`wpc-s3-credentials` copied into the run's namespaces) and its HTTP artifact
server (`http://wpc-http-artifacts.argo.svc:8080/`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wpc.differential.images import ImagePolicy
from wpc.differential.images import containers

Json = dict[str, Any]

SUITE_SECRET = "wpc-s3-credentials"
"""The artifact repository's credentials, which the run copies into its namespaces."""
SUITE_S3_ENDPOINT = "wpc-s3.argo.svc:9000"
SUITE_S3_BUCKET = "wpc-artifacts"
SUITE_HTTP = "http://wpc-http-artifacts.argo.svc:8080/"
"""The shared HTTP artifact server both profiles' prepare installs."""

OTHER_REPOSITORIES = (
    "git",
    "artifactory",
    "hdfs",
    "oss",
    "gcs",
    "azure",
    "huggingface",
    "plugin",
)
"""Artifact locations with no server on this machine."""


def _walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, value) pair below `value`, depth first."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _walk(child, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _walk(child, f"{path}[{index}]")


def _leaf(path: str) -> str:
    return path.rsplit(".", 1)[-1].split("[", 1)[0]


def _artifacts(workflow: Json) -> Iterator[tuple[str, Json]]:
    """Every artifact declaration or argument, with its path."""
    for path, value in _walk(workflow):
        if _leaf(path) == "artifacts" and isinstance(value, list):
            for index, artifact in enumerate(value):
                if isinstance(artifact, dict):
                    yield f"{path}[{index}]", artifact


def _artifact_reasons(workflow: Json) -> Iterator[str]:
    for path, artifact in _artifacts(workflow):
        for kind in OTHER_REPOSITORIES:
            if artifact.get(kind) is not None:
                yield f"{path}: needs a {kind} artifact repository"
        s3 = artifact.get("s3")
        if isinstance(s3, dict):
            endpoint = s3.get("endpoint", SUITE_S3_ENDPOINT)
            bucket = s3.get("bucket", SUITE_S3_BUCKET)
            if (endpoint, bucket) != (SUITE_S3_ENDPOINT, SUITE_S3_BUCKET):
                yield f"{path}: needs S3 bucket {bucket} at {endpoint}"
        http = artifact.get("http")
        if isinstance(http, dict) and not str(http.get("url", "")).startswith(
            SUITE_HTTP
        ):
            yield f"{path}: needs network access ({http.get('url')})"


def _reference_reasons(workflow: Json) -> Iterator[str]:
    """Objects the workflow names that the run does not create."""
    for path, value in _walk(workflow):
        leaf = _leaf(path)
        if not isinstance(value, dict):
            if leaf in ("serviceAccountName", "schedulerName") and value not in (
                None,
                "",
                "default",
            ):
                yield f"{path}: needs {leaf[:-4]} {value!r}"
            elif leaf == "database" and value is True and "synchronization" in path:
                yield f"{path}: needs a synchronization database"
            continue
        name = value.get("name")
        if leaf == "workflowTemplateRef" or leaf == "templateRef":
            yield f"{path}: needs WorkflowTemplate {name!r}, which the run does not install"
        elif leaf == "artifactRepositoryRef":
            yield f"{path}: needs an artifact repository ConfigMap"
        elif leaf == "configMapKeyRef" or (leaf == "configMap" and name):
            yield f"{path}: needs ConfigMap {name!r}"
        elif leaf == "secretKeyRef" or (leaf.endswith("Secret") and name):
            if name != SUITE_SECRET:
                yield f"{path}: needs Secret {name!r}"
        elif leaf == "secret" and value.get("secretName"):
            yield f"{path}: needs Secret {value['secretName']!r}"
        elif leaf in ("persistentVolumeClaim", "hostPath"):
            yield f"{path}: needs a {leaf} volume"
    spec = workflow.get("spec") or {}
    if spec.get("volumeClaimTemplates"):
        yield "spec.volumeClaimTemplates: needs a PersistentVolume provisioner"
    if spec.get("imagePullSecrets"):
        yield "spec.imagePullSecrets: needs a registry"


def _template_reasons(workflow: Json) -> Iterator[str]:
    templates = (workflow.get("spec") or {}).get("templates") or []
    for index, template in enumerate(templates):
        if not isinstance(template, dict):
            continue
        where = f"spec.templates[{index}] ({template.get('name')})"
        if template.get("resource") is not None:
            yield f"{where}: a resource template needs RBAC beyond the executor's"
        if template.get("plugin") is not None:
            yield f"{where}: needs an executor plugin"
        http = template.get("http")
        if isinstance(http, dict) and not str(http.get("url", "")).startswith(
            SUITE_HTTP
        ):
            yield f"{where}: needs network access ({http.get('url')})"
        suspend = template.get("suspend")
        if isinstance(suspend, dict) and not suspend.get("duration"):
            yield f"{where}: waits for a manual resume (suspend without duration)"
        if template.get("nodeSelector"):
            yield f"{where}: nodeSelector may match no node of this cluster"


def _command_reasons(workflow: Json) -> Iterator[str]:
    for container in containers(workflow):
        words = [
            *(container.get("command") or []),
            *(container.get("args") or []),
            container.get("source") or "",
        ]
        for word in words:
            text = str(word)
            for scheme in ("http://", "https://"):
                start = text.find(scheme)
                if start >= 0 and not text[start:].startswith(SUITE_HTTP):
                    url = text[start:].split()[0]
                    yield f"needs network access ({url} in a command)"
                    break


def _image_reasons(workflow: Json, policy: ImagePolicy) -> Iterator[str]:
    for container in containers(workflow):
        image = str(container.get("image", ""))
        if not image:
            continue
        if "{{" in image:
            yield f"image {image} is chosen at run time, so not known to be available offline"
        elif policy.missing(image):
            yield f"image {image} not available offline"


def reasons(workflow: Json, policy: ImagePolicy) -> list[str]:
    """Why `workflow` cannot run here, each reason once; empty when it can."""
    found: list[str] = []
    for reason in (
        *_image_reasons(workflow, policy),
        *_reference_reasons(workflow),
        *_artifact_reasons(workflow),
        *_template_reasons(workflow),
        *_command_reasons(workflow),
    ):
        if reason not in found:
            found.append(reason)
    return found
