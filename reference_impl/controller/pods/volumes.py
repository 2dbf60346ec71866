"""Pod volumes and the mounts that share them between Argo's and the user's containers.

Mirrors `workflowpod.go` `createVolumes`, `addVolumeReferences`,
`createSecretVolumesAndMounts`, `addInputArtifactsVolumes`, `addScriptStagingVolume` and
`addOutputArtifactsVolumes`, in the order `build` calls them (the order of `volumes` and
`volumeMounts` in the pod follows from it).
"""

from __future__ import annotations

import copy
import posixpath
from typing import Any

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.pods import containers
from reference_impl.controller.pods.layouts import PodLayout

Json = dict[str, Any]

SECRET_MOUNT_ROOT = "/argo/secret"
_LOCATION_KEYS = (
    "s3",
    "http",
    "raw",
    "git",
    "artifactory",
    "hdfs",
    "oss",
    "gcs",
    "azure",
    "plugin",
)


def base_volumes(template: Json) -> list[Json]:
    """Return `var-run-argo`, `tmp-dir-argo` and the template's own volumes (`createVolumes`)."""
    return [
        {"name": common.VAR_RUN_ARGO_VOLUME, "emptyDir": {}},
        {"name": common.TMP_DIR_VOLUME, "emptyDir": {}},
        *copy.deepcopy(template.get("volumes") or []),
    ]


def template_mounts(template: Json) -> list[Json]:
    """Return the main container's declared volume mounts (`Template.GetVolumeMounts`)."""
    body = template.get("container") or template.get("script") or {}
    return list(body.get("volumeMounts") or [])


def add_volume_references(
    *, pod: Json, template: Json, workflow_volumes: list[Json]
) -> None:
    """Add workflow-level volumes that the template's containers mount, then artifact secrets.

    Raises PodBuildError `volume '<n>' not found in workflow spec` for an unknown volume.
    """
    spec = pod["spec"]
    known = {v["name"]: v for v in workflow_volumes} | {
        v["name"]: v for v in template.get("volumes") or []
    }
    referencing = [
        template_mounts(template),
        *[c.get("volumeMounts") or [] for c in template.get("initContainers") or []],
        *[c.get("volumeMounts") or [] for c in template.get("sidecars") or []],
    ]
    for mounts in referencing:
        for volume_mount in mounts:
            volume = known.get(volume_mount["name"])
            if volume is None:
                raise errors.PodBuildError(
                    f"volume '{volume_mount['name']}' not found in workflow spec"
                )
            if all(v["name"] != volume["name"] for v in spec["volumes"]):
                spec["volumes"].append(copy.deepcopy(volume))
    secret_volumes, secret_mounts = secret_volumes_and_mounts(template)
    spec["volumes"].extend(secret_volumes)
    for container in spec["containers"]:
        if container["name"] in (common.WAIT, common.SUPERVISOR):
            container.setdefault("volumeMounts", []).extend(
                copy.deepcopy(secret_mounts)
            )
            break
    for container in spec.get("initContainers") or []:
        if container["name"] == common.INIT:
            container.setdefault("volumeMounts", []).extend(
                copy.deepcopy(secret_mounts)
            )
            break


def secret_volumes_and_mounts(template: Json) -> tuple[list[Json], list[Json]]:
    """Return one Secret volume per referenced Secret (items = used keys) and its mount."""
    volumes: dict[str, Json] = {}
    locations = [template.get("archiveLocation") or {}]
    locations += (template.get("outputs") or {}).get("artifacts") or []
    locations += (template.get("inputs") or {}).get("artifacts") or []
    for location in locations:
        for selector in _secret_selectors(location):
            name, key = selector.get("name"), selector.get("key")
            if not name or not key:
                continue
            volume = volumes.setdefault(
                name, {"name": name, "secret": {"secretName": name, "items": []}}
            )
            item = {"key": key, "path": key}
            if item not in volume["secret"]["items"]:
                volume["secret"]["items"].append(item)
    mounts = [
        containers.mount(name, f"{SECRET_MOUNT_ROOT}/{name}", readOnly=True)
        for name in volumes
    ]
    return list(volumes.values()), mounts


def _secret_selectors(location: Json) -> list[Json]:
    if location.get("s3"):
        s3 = location["s3"]
        keys = ("accessKeySecret", "secretKeySecret", "sessionTokenSecret", "caSecret")
        return [s3[k] for k in keys if s3.get(k)]
    auth = (location.get("http") or {}).get("auth") or {}
    basic = auth.get("basicAuth") or {}
    return [basic[k] for k in ("usernameSecret", "passwordSecret") if basic.get(k)]


def has_location(artifact: Json) -> bool:
    """Return whether an artifact names where it lives (`HasLocationOrKey`)."""
    return any(artifact.get(k) for k in _LOCATION_KEYS)


def add_input_artifact_volumes(*, pod: Json, template: Json, layout: PodLayout) -> None:
    """Share downloaded input artifacts between the stager (init/supervisor) and main.

    Legacy mounts each artifact into main with a `subPath`; init-less mounts the whole
    volume and lets emissary symlink each artifact into place after READY.
    """
    artifacts = (template.get("inputs") or {}).get("artifacts") or []
    if not artifacts:
        return
    user_mounts = template_mounts(template)
    if layout.name == "initless":
        _reject_ancestor_paths(artifacts, user_mounts)
    spec = pod["spec"]
    spec["volumes"].append({"name": common.INPUT_ARTIFACTS_VOLUME, "emptyDir": {}})
    executor_mounts = [
        containers.mount(common.INPUT_ARTIFACTS_VOLUME, common.INPUT_ARTIFACTS_PATH),
        *[_mirrored(m) for m in user_mounts],
    ]
    for container in spec.get("initContainers") or []:
        if container["name"] == common.INIT or container["name"].startswith(
            common.INIT_ARTIFACT_PREFIX
        ):
            container.setdefault("volumeMounts", []).extend(
                copy.deepcopy(executor_mounts)
            )
    for container in spec["containers"]:
        if container["name"] == common.SUPERVISOR:
            container.setdefault("volumeMounts", []).extend(
                copy.deepcopy(executor_mounts)
            )
    for container in spec["containers"]:
        if container["name"] != common.MAIN:
            continue
        mounts = container.setdefault("volumeMounts", [])
        if layout.name == "initless":
            mounts.append(
                containers.mount(
                    common.INPUT_ARTIFACTS_VOLUME, common.INPUT_ARTIFACTS_PATH
                )
            )
            continue
        for artifact in artifacts:
            path = _clean_path(artifact)
            if not has_location(artifact) and artifact.get("optional"):
                continue
            if _overlapping(user_mounts, path):
                continue
            mounts.append(
                containers.mount(
                    common.INPUT_ARTIFACTS_VOLUME, path, subPath=artifact["name"]
                )
            )


def _reject_ancestor_paths(artifacts: list[Json], user_mounts: list[Json]) -> None:
    for artifact in artifacts:
        path = artifact.get("path") or ""
        if not path:
            continue
        for volume_mount in user_mounts:
            if _strictly_under(path, volume_mount["mountPath"]):
                raise errors.PodBuildError(
                    f'input artifact "{artifact["name"]}" path "{path}" is an ancestor of volume '
                    f'mount "{volume_mount["name"]}" ({volume_mount["mountPath"]}); this is not '
                    "supported in init-less pod mode because staging the artifact would clear "
                    "the mounted volume"
                )


def _clean_path(artifact: Json) -> str:
    path = artifact.get("path") or ""
    if not path:
        raise errors.PodBuildError(
            f"error in inputs.artifacts.{artifact['name']}: "
            f"Artifact '{artifact['name']}' did not specify a path"
        )
    return posixpath.normpath(path)


def _within(base: str, target: str) -> bool:
    relative = posixpath.relpath(posixpath.normpath(target), posixpath.normpath(base))
    return relative == "." or not relative.startswith("..")


def _strictly_under(base: str, target: str) -> bool:
    return _within(base, target) and posixpath.normpath(base) != posixpath.normpath(
        target
    )


def _overlapping(user_mounts: list[Json], path: str) -> bool:
    return any(_within(m["mountPath"], path) for m in user_mounts)


def _mirrored(volume_mount: Json) -> Json:
    mirrored = copy.deepcopy(volume_mount)
    mirrored["mountPath"] = posixpath.normpath(
        posixpath.join(common.MAIN_FS, volume_mount["mountPath"].lstrip("/"))
    )
    return mirrored


def add_script_staging_volume(pod: Json) -> None:
    """Share `/argo/staging` (the script source) between the stager and main."""
    spec = pod["spec"]
    spec["volumes"].append({"name": common.STAGING_VOLUME, "emptyDir": {}})
    staging = containers.mount(common.STAGING_VOLUME, common.STAGING_PATH)
    for container in spec.get("initContainers") or []:
        if container["name"] == common.INIT:
            container.setdefault("volumeMounts", []).append(dict(staging))
            break
    for name in (common.SUPERVISOR, common.MAIN):
        for container in spec["containers"]:
            if container["name"] == name:
                container.setdefault("volumeMounts", []).append(dict(staging))
                break


def mirror_main_mounts_to_sidecars(pod: Json) -> None:
    """Mirror main's mounts under `/mainctrfs` into Argo's sidecars so outputs can be read."""
    containers_ = pod["spec"]["containers"]
    main = next((c for c in containers_ if c["name"] == common.MAIN), None)
    if main is None:
        return
    for container in containers_:
        if not containers.is_argo_sidecar(container["name"]):
            continue
        mounts = container.setdefault("volumeMounts", [])
        existing = {m["mountPath"] for m in mounts}
        for volume_mount in main.get("volumeMounts") or []:
            mirrored = _mirrored(volume_mount)
            mirrored.pop("readOnly", None)  # Argo sets ReadOnly=false, which JSON omits
            if mirrored["mountPath"] in existing:
                continue
            existing.add(mirrored["mountPath"])
            mounts.append(mirrored)
