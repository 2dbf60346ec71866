"""Build the pod for one container or script node, in either layout.

A pure function of its inputs (no API calls, no clock): `build_pod` follows the order of
Argo's `podBuilder.build` (`workflow/controller/workflowpod.go`), so the order of
containers, volumes, mounts and environment variables matches Argo's. Layout differences
come from `layouts`, the reference executor's needs from `reference_additions`.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import json
from collections.abc import Mapping
from typing import Any

from reference_impl import commission
from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.config.configuration import ControllerConfig
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import naming
from reference_impl.controller.formats import substitution
from reference_impl.controller.pods import containers
from reference_impl.controller.pods import execlimits
from reference_impl.controller.pods import layouts
from reference_impl.controller.pods import patching
from reference_impl.controller.pods import podfields
from reference_impl.controller.pods import reference_additions
from reference_impl.controller.pods import retryhosts
from reference_impl.controller.pods import volumes

Json = dict[str, Any]

_LOOKUP_ERROR = (
    'failed to look-up entrypoint/cmd for image "{image}", you must either explicitly specify '
    "the command, or list the image's command in the index: "
    "https://argo-workflows.readthedocs.io/en/latest/workflow-executors/#emissary-emissary: "
    "image not in the controller's images index (the reference controller never queries registries)"
)


@dataclasses.dataclass(frozen=True)
class PodRequest:
    """Everything one pod depends on, gathered by the operator before building."""

    workflow: Json
    """The Workflow object (metadata, spec); never modified."""
    node_name: str
    template: Json
    """The template with its inputs already substituted (a `container` or `script` template)."""
    now: datetime.datetime
    global_params: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """`workflow.*` variables for the final substitution (`{{workflow.name}}`, ...)."""
    include_script_output: bool = False
    on_exit: bool = False
    workflow_deadline: datetime.datetime | None = None
    execution_deadline: datetime.datetime | None = None
    template_deadline: datetime.datetime | None = None
    """The node's `startedAt` plus the template's `timeout`, enforced by activeDeadlineSeconds."""
    avoid_hosts: tuple[str, ...] = ()
    """Hosts earlier attempts failed on, when the retry strategy asks for other hosts
    (`retryhosts`); the pod gets a required node affinity excluding them."""


def build_pod(
    request: PodRequest,
    *,
    config: ControllerConfig,
    settings: ControllerSettings,
    initless: bool,
) -> Json | None:
    """Return the pod for the request, or None when the workflow deadline has already passed.

    Raises PodBuildError when the template cannot become a pod (the node then errors).
    """
    workflow, template = request.workflow, copy.deepcopy(request.template)
    if settings.has_fault(Fault.SIDECAR_MAIN_DROPPED):
        template = podfields.without_main_sidecars(template)
    wf_meta, wf_spec = workflow["metadata"], workflow.get("spec") or {}
    layout = layouts.for_pod(initless=initless)
    executor_image = config.executor_image(settings.executor_image)
    log_options = containers.log_options(settings.executor_log_level)
    node_id = naming.node_id(wf_meta["name"], request.node_name)

    build, deadline_seconds = _active_deadline_seconds(request, template)
    if not build:
        return None
    main = _main_container(template, config)
    name = naming.pod_name(
        workflow_name=wf_meta["name"],
        node_name=request.node_name,
        template_name=template["name"],
    )
    pod: Json = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": wf_meta["namespace"],
            "labels": {
                common.LABEL_WORKFLOW: wf_meta["name"],
                common.LABEL_COMPLETED: "false",
            },
            "annotations": {
                common.ANNOTATION_NODE_NAME: request.node_name,
                common.ANNOTATION_NODE_ID: node_id,
            },
            "ownerReferences": [_owner_reference(wf_meta)],
        },
        "spec": {"restartPolicy": "Never", "volumes": volumes.base_volumes(template)},
    }
    meta, spec = pod["metadata"], pod["spec"]
    if settings.has_fault(Fault.NO_OWNER_REFERENCE):
        del meta["ownerReferences"]
    if deadline_seconds is not None:
        spec["activeDeadlineSeconds"] = deadline_seconds
    if wf_spec.get("imagePullSecrets"):
        spec["imagePullSecrets"] = copy.deepcopy(wf_spec["imagePullSecrets"])
    spec["volumes"] += layout.extra_volumes(
        executor_image=executor_image, pull_policy=config.executor_pull_policy()
    )
    if settings.status_capture_finalizer:
        meta["finalizers"] = [common.FINALIZER_STATUS]
    if request.on_exit:
        meta["labels"][common.LABEL_ON_EXIT] = "true"
    for key in ("hostNetwork", "dnsPolicy", "dnsConfig"):
        if wf_spec.get(key) is not None:
            spec[key] = copy.deepcopy(wf_spec[key])
    if config.instance_id:
        meta["labels"][common.LABEL_INSTANCE_ID] = config.instance_id
    podfields.add_archive_location(template, config, wf_spec)
    podfields.setup_service_account(spec, template, wf_spec)

    aux = containers.executor_container(
        layout.aux_name,
        workflow=workflow,
        config=config,
        image=executor_image,
        command=layout.aux_command(log_options),
    )
    aux["env"] += layout.aux_extra_env()
    spec["containers"] = [aux, main]
    meta["annotations"][common.ANNOTATION_DEFAULT_CONTAINER] = common.MAIN
    if wf_spec.get("podGC"):
        meta["annotations"][common.ANNOTATION_POD_GC_STRATEGY] = (
            podfields.pod_gc_annotation(wf_spec["podGC"], config)
        )
    if layout.has_init_container():
        spec["initContainers"] = [
            containers.executor_container(
                common.INIT,
                workflow=workflow,
                config=config,
                image=executor_image,
                command=["argoexec", "init", *log_options],
            )
        ]
    podfields.add_scheduling_constraints(spec, template, wf_spec)
    podfields.add_metadata(meta, template, wf_spec)

    volumes.add_volume_references(
        pod=pod, template=template, workflow_volumes=wf_spec.get("volumes") or []
    )
    volumes.add_input_artifact_volumes(pod=pod, template=template, layout=layout)
    if template.get("script") is not None:
        volumes.add_script_staging_volume(pod)
    podfields.add_user_containers(spec, template, main)
    volumes.mirror_main_mounts_to_sidecars(pod)
    for container in spec.get("initContainers") or []:
        container.setdefault("volumeMounts", []).append(
            dict(containers.VAR_RUN_ARGO_MOUNT)
        )

    params = {
        "workflow.name": wf_meta["name"],
        "workflow.namespace": wf_meta["namespace"],
        "workflow.uid": str(wf_meta.get("uid", "")),
        **request.global_params,
        **podfields.input_params(template),
        "pod.name": name,
    }
    template = _substitute(template, params)
    _add_environment(
        spec,
        template=template,
        layout=layout,
        standard=containers.standard_env(
            node_id=node_id,
            workflow_name=wf_meta["name"],
            include_script_output=request.include_script_output,
            deadline=_env_deadline(request),
            progress_ticks=(
                settings.progress_patch_tick_seconds,
                settings.progress_file_tick_seconds,
            ),
        ),
    )
    pod = _substitute(pod, params)
    for tag in substitution.unresolved_expressions(pod):
        raise errors.PodBuildError(
            f"failed to evaluate expression {tag}: a variable it reads is not defined here"
        )
    spec = pod["spec"]
    for patch in (wf_spec.get("podSpecPatch"), template.get("podSpecPatch")):
        if patch:
            pod["spec"] = spec = patching.merge(spec, patching.parse_patch(patch))
    _wrap_user_containers(
        spec,
        layout=layout,
        config=config,
        executor_image=executor_image,
        log_options=log_options,
        wait_for_ready_env=not settings.has_fault(Fault.NO_WAIT_FOR_READY_ENV),
        image_cmd=not settings.has_fault(Fault.IMAGE_CMD_IGNORED),
    )
    if settings.has_fault(Fault.WRONG_CONTAINER_ORDER):
        spec["containers"].sort(key=lambda c: c["name"] == layout.aux_name)
    reference_additions.apply(pod, fault_passthrough=settings.fault_passthrough)
    execlimits.check(pod, template["name"])
    if request.avoid_hosts and settings.retry_host_label:
        affinity = retryhosts.exclude_hosts(
            pod["spec"].get("affinity"),
            settings.retry_host_label,
            list(request.avoid_hosts),
            operator="In"
            if settings.has_fault(Fault.RETRY_ON_FAILED_HOST)
            else "NotIn",
        )
        if affinity is not None:
            pod["spec"]["affinity"] = affinity
    _apply_template_deadline(pod, request)
    return commission.apply_pod(pod, settings.commission, initless=initless)


def _owner_reference(wf_meta: Json) -> Json:
    return {
        "apiVersion": common.API_VERSION,
        "kind": "Workflow",
        "name": wf_meta["name"],
        "uid": wf_meta.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _active_deadline_seconds(
    request: PodRequest, template: Json
) -> tuple[bool, int | None]:
    """Return (whether to build a pod at all, the pod's activeDeadlineSeconds or None).

    No pod is built once the workflow deadline has passed; the node then fails with
    `Step exceeded its deadline` like any node without a pod.
    """
    raw = template.get("activeDeadlineSeconds")
    try:
        from_template = None if raw is None else int(str(raw))
    except ValueError:
        raise errors.PodBuildError(
            f"templates.{template['name']}.activeDeadlineSeconds must be a positive integer > 0"
        ) from None
    deadline = request.workflow_deadline
    result = from_template
    if deadline is not None and not request.on_exit:
        remaining = int((deadline - request.now).total_seconds())
        if remaining <= 0:
            return False, None
        if from_template is None or remaining < from_template:
            result = remaining
    body = template.get("container") or template.get("script") or {}
    names = {e.get("name") for e in body.get("env") or []}
    if names & {"ARGO_DEBUG_PAUSE_BEFORE", "ARGO_DEBUG_PAUSE_AFTER"}:
        return True, None
    return True, result


def _apply_template_deadline(pod: Json, request: PodRequest) -> None:
    """Let the template's `timeout` set activeDeadlineSeconds, as the end of upstream's `build` does.

    Upstream compares `now - deadline` (not `deadline - now`) with the current value, so
    a pending timeout replaces a template's or workflow's smaller activeDeadlineSeconds
    too; the reference does the same. Raises PodBuildError `<node> exceeded its deadline`
    when one second or less is left.
    """
    deadline = request.template_deadline
    if deadline is None:
        return
    current = pod["spec"].get("activeDeadlineSeconds")
    if current is None or (request.now - deadline).total_seconds() < current:
        seconds = int((deadline - request.now).total_seconds())
        if seconds <= 1:
            raise errors.PodBuildError(f"{request.node_name} exceeded its deadline")
        pod["spec"]["activeDeadlineSeconds"] = seconds


def _env_deadline(request: PodRequest) -> datetime.datetime | None:
    deadline = None if request.on_exit else request.workflow_deadline
    execution = request.execution_deadline
    if execution is not None and (deadline is None or execution < deadline):
        deadline = execution
    return deadline


def _main_container(template: Json, config: ControllerConfig) -> Json:
    body = (
        template.get("container")
        if template.get("container") is not None
        else template.get("script")
    )
    if body is None:
        raise errors.PodBuildError(
            f"templates.{template['name']} is not a container or script template"
        )
    main = {k: copy.deepcopy(v) for k, v in body.items() if k != "source"}
    if template.get("script") is not None and body.get("source"):
        main["args"] = [*(main.get("args") or []), common.SCRIPT_PATH]
    main["name"] = common.MAIN
    if config.main_container:
        merged: Json = patching.merge(config.main_container, main)
        main = merged
    return main


def _add_environment(
    spec: Json, *, template: Json, layout: layouts.PodLayout, standard: list[Json]
) -> None:
    simplified = copy.deepcopy(template)
    artifacts = (simplified.get("inputs") or {}).get("artifacts")
    simplified["inputs"] = {"artifacts": artifacts} if artifacts else {}
    template_json = json.dumps(simplified, separators=(",", ":"))
    for container in spec.get("initContainers") or []:
        container.setdefault("env", []).extend(
            [
                containers.env(common.ENV_CONTAINER_NAME, container["name"]),
                containers.env(common.ENV_TEMPLATE, template_json),
                *copy.deepcopy(standard),
            ]
        )
    has_aux = any(c["name"] == layout.aux_name for c in spec["containers"])
    for container in spec["containers"]:
        values = container.setdefault("env", [])
        values += [
            containers.env(common.ENV_CONTAINER_NAME, container["name"]),
            *copy.deepcopy(standard),
        ]
        if container["name"] == common.SUPERVISOR or (
            container["name"] == common.MAIN
            and layout.main_needs_template_env(has_aux=has_aux)
        ):
            values.append(containers.env(common.ENV_TEMPLATE, template_json))


def _wrap_user_containers(
    spec: Json,
    *,
    layout: layouts.PodLayout,
    config: ControllerConfig,
    executor_image: str,
    log_options: list[str],
    wait_for_ready_env: bool,
    image_cmd: bool = True,
) -> None:
    """Route every non-Argo container through emissary and give it the shared volumes.

    `image_cmd=False` is the `image-cmd-ignored` fault: a container without `command`
    or `args` gets the image's ENTRYPOINT but not its CMD.
    """
    has_aux = any(c["name"] == layout.aux_name for c in spec["containers"])
    grace = spec.get("terminationGracePeriodSeconds")
    for index, container in enumerate(spec["containers"]):
        if not containers.is_argo_sidecar(container["name"]):
            if not container.get("command"):
                entry = config.images.get(container.get("image", ""))
                if entry is None:
                    raise errors.PodBuildError(
                        _LOOKUP_ERROR.format(image=container.get("image", ""))
                    )
                container["command"] = list(entry.get("entrypoint") or [])
                if container.get("args") is None and image_cmd:
                    container["args"] = list(entry.get("cmd") or [])
            container["command"] = [
                layout.binary_path,
                "emissary",
                *log_options,
                "--",
                *container["command"],
            ]
            layout.decorate_user_container(
                container, has_aux=has_aux, wait_for_ready_env=wait_for_ready_env
            )
        mounts = container.setdefault("volumeMounts", [])
        if container.get("image") == executor_image:
            mounts.append(
                containers.mount(common.TMP_DIR_VOLUME, "/tmp", subPath=str(index))
            )
        mounts.append(dict(containers.VAR_RUN_ARGO_MOUNT))
        if grace is not None:
            container.setdefault("env", []).append(
                containers.env(common.ENV_GRACE_SECONDS, str(grace))
            )


def _substitute(value: Json, params: dict[str, str]) -> Json:
    """Substitute variables and expression tags; an expression failure fails the pod."""
    try:
        substituted: Json = substitution.substitute_tree(value, params)
    except errors.WorkflowError as err:
        raise errors.PodBuildError(str(err)) from None
    return substituted
