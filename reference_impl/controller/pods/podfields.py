"""Pod fields taken from the workflow and template: scheduling, metadata, accounts, archive.

Helpers of `podbuilding.build_pod` that copy or derive single fields, each mirroring the
like-named step of Argo's `podBuilder.build` (`addSchedulingConstraints`, `addMetadata`,
`setupServiceAccount`, `addArchiveLocation`, `addInitContainers`/`addSidecars`).
"""

from __future__ import annotations

import copy
from typing import Any

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.config.configuration import ControllerConfig
from reference_impl.controller.formats import durations
from reference_impl.controller.pods import volumes

Json = dict[str, Any]

ARCHIVE_PATTERN = "{{workflow.name}}/{{pod.name}}"
"""Argo's default key of archived outputs (`DefaultArchivePattern`)."""


def add_archive_location(
    template: Json, config: ControllerConfig, wf_spec: Json
) -> None:
    """Give the template the default repository when something must be archived there."""
    location = template.get("archiveLocation") or {}
    if any(
        location.get(k)
        for k in ("s3", "http", "raw", "git", "gcs", "oss", "azure", "hdfs")
    ):
        return
    repository = config.artifact_repository or {}
    archive_logs = bool(repository.get("archiveLogs"))
    if not archive_logs:
        if wf_spec.get("archiveLogs") is not None:
            archive_logs = bool(wf_spec["archiveLogs"])
        if location.get("archiveLogs") is not None:
            archive_logs = bool(location["archiveLogs"])
    artifacts = [
        *((template.get("inputs") or {}).get("artifacts") or []),
        *((template.get("outputs") or {}).get("artifacts") or []),
    ]
    if not archive_logs and all(volumes.has_location(a) for a in artifacts):
        return
    archive: Json = {"archiveLogs": archive_logs}
    if repository.get("s3"):
        s3_config = repository["s3"]
        bucket = {
            k: copy.deepcopy(v)
            for k, v in s3_config.items()
            if k not in ("keyFormat", "keyPrefix")
        }
        prefix = s3_config.get("keyPrefix")
        key = s3_config.get("keyFormat") or "/".join(
            p for p in (prefix, ARCHIVE_PATTERN) if p
        )
        archive["s3"] = {**bucket, "key": key}
    template["archiveLocation"] = archive


def setup_service_account(spec: Json, template: Json, wf_spec: Json) -> None:
    """Set the pod's service account and token automount; executor accounts are unsupported."""
    account = template.get("serviceAccountName") or wf_spec.get("serviceAccountName")
    if account:
        spec["serviceAccountName"] = account
    automount = template.get("automountServiceAccountToken")
    if automount is None:
        automount = wf_spec.get("automountServiceAccountToken")
    if automount is False:
        spec["automountServiceAccountToken"] = False
    executor = (template.get("executor") or {}).get("serviceAccountName") or (
        wf_spec.get("executor") or {}
    ).get("serviceAccountName")
    if executor:
        raise errors.PodBuildError(
            "executor.serviceAccountName is not supported by the reference controller"
        )
    if automount is False:
        raise errors.PodBuildError(
            "executor.serviceAccountName must not be empty if automountServiceAccountToken is false"
        )


def pod_gc_annotation(pod_gc: Json, config: ControllerConfig) -> str:
    """Return `<strategy>/<Go delay>` for the `pod-gc-strategy` annotation."""
    delay = config.pod_gc_delete_delay_seconds
    if pod_gc.get("deleteDelayDuration"):
        delay = durations.parse(str(pod_gc["deleteDelayDuration"]))
    return f"{pod_gc.get('strategy', '')}/{durations.format_go(delay)}"


def add_scheduling_constraints(spec: Json, template: Json, wf_spec: Json) -> None:
    """Copy scheduling fields, the template's winning over the workflow's (boundary templates ignored)."""
    for field, wf_field in (
        ("nodeSelector", "nodeSelector"),
        ("affinity", "affinity"),
        ("tolerations", "tolerations"),
        ("schedulerName", "schedulerName"),
        ("priorityClassName", "podPriorityClassName"),
        ("securityContext", "securityContext"),
    ):
        value = template.get(field) or wf_spec.get(wf_field)
        if value:
            spec[field] = copy.deepcopy(value)
    aliases = [
        *(wf_spec.get("hostAliases") or []),
        *(template.get("hostAliases") or []),
    ]
    if aliases:
        spec["hostAliases"] = copy.deepcopy(aliases)


def add_metadata(meta: Json, template: Json, wf_spec: Json) -> None:
    """Copy `spec.podMetadata`, then the template's metadata, onto the pod."""
    for source in (wf_spec.get("podMetadata") or {}, template.get("metadata") or {}):
        meta["annotations"].update(source.get("annotations") or {})
        meta["labels"].update(source.get("labels") or {})


def add_user_containers(spec: Json, template: Json, main: Json) -> None:
    """Append the template's init containers and sidecars, mirroring main's mounts when asked."""
    for field, target in (
        ("initContainers", "initContainers"),
        ("sidecars", "containers"),
    ):
        for user in template.get(field) or []:
            container = {
                k: copy.deepcopy(v)
                for k, v in user.items()
                if k != "mirrorVolumeMounts"
            }
            if user.get("mirrorVolumeMounts"):
                container.setdefault("volumeMounts", []).extend(
                    copy.deepcopy(main.get("volumeMounts") or [])
                )
            spec.setdefault(target, []).append(container)


def without_main_sidecars(template: Json) -> Json:
    """The template minus its sidecars named `main`: the `sidecar-main-dropped` fault.

    The fault lets such a workflow run (WPC-VALIDATE-005 says it must not), so it
    validates and builds pods from this copy; the pod then has one `main`, the
    template's own, which the API server accepts.
    """
    sidecars = template.get("sidecars")
    if not isinstance(sidecars, list):
        return template
    kept = [
        s
        for s in sidecars
        if not (isinstance(s, dict) and s.get("name") == common.MAIN)
    ]
    return {**template, "sidecars": kept}


def input_params(template: Json) -> dict[str, str]:
    """Return `inputs.parameters.<p>` variables for the final substitution."""
    parameters = (template.get("inputs") or {}).get("parameters") or []
    return {
        f"inputs.parameters.{p['name']}": str(p.get("value", "")) for p in parameters
    }
