"""One reconciliation of one workflow: its state, its nodes, and template execution.

`Operation` plays the part of Argo's `wfOperationCtx`: it holds a private copy of the
Workflow, the pods and task results seen in the caches, and the configuration, and it
walks the templates from the entrypoint, creating nodes and pods as they become due. It
never talks to the API itself except through `Effects` (create a pod, queue a clean-up),
so unit tests can drive it with fakes. `reconciling.reconcile` is the entry point.
"""

from __future__ import annotations

import copy
import datetime
import logging
from typing import Any

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.config.configuration import ControllerConfig
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.formats import naming
from reference_impl.controller.formats import timestamps
from reference_impl.controller.templates import execution
from reference_impl.controller.templates.composites import dags
from reference_impl.controller.templates.composites import steps
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import TemplateError
from reference_impl.controller.templates.execution import template_type
from reference_impl.controller.templates.inputs import arguments
from reference_impl.controller.templates.nodes import inference
from reference_impl.controller.templates.nodes import leaves
from reference_impl.controller.templates.nodes import parallelism
from reference_impl.controller.templates.nodes import retries
from reference_impl.controller.templates.nodes import suspends
from reference_impl.controller.templates.nodes import timeouts

Json = dict[str, Any]
logger = logging.getLogger(__name__)


class Operation:
    """The state of one reconciliation of one workflow."""

    def __init__(
        self,
        *,
        workflow: Json,
        pods: list[Json],
        task_results: list[Json],
        config: ControllerConfig,
        settings: ControllerSettings,
        now: datetime.datetime,
        effects: execution.Effects,
        initless: bool,
        process_started: datetime.datetime | None = None,
    ) -> None:
        self.wf = copy.deepcopy(workflow)
        self.name: str = self.wf["metadata"]["name"]
        self.namespace: str = self.wf["metadata"]["namespace"]
        self.spec: Json = self.wf.setdefault("spec", {})
        self.status: Json = self.wf.setdefault("status", {})
        self.nodes: dict[str, Json] = self.status.setdefault("nodes", {})
        self.pods = pods
        self.task_results = task_results
        self.config = config
        self.settings = settings
        self.now = now
        self.effects = effects
        self.initless = initless
        # When this controller process started; only the `restart-suspend-timer` fault
        # (faults.py) looks at it: a correct controller keeps no memory of its own start.
        self.process_started = process_started
        self.templates: dict[str, Json] = {
            t["name"]: t for t in self.spec.get("templates") or []
        }
        self.requeue_after: float | None = None
        self.workflow_deadline = self.compute_workflow_deadline()
        self.pods_by_node_id = {pod_node_id(pod, self.name): pod for pod in pods}

    # -- bookkeeping -------------------------------------------------------------------

    @property
    def prefix(self) -> str:
        """Return the `[ns/name]` prefix of every log message about this workflow."""
        return f"[{self.namespace}/{self.name}]"

    def requeue(self, seconds: float = 0.0) -> None:
        """Ask to be reconciled again after `seconds` (the earliest request wins)."""
        seconds = max(0.0, seconds)
        if self.requeue_after is None or seconds < self.requeue_after:
            self.requeue_after = seconds

    def now_text(self) -> str:
        """Return the operation's fixed "now" as an RFC 3339 string."""
        return timestamps.format_time(self.now)

    def compute_workflow_deadline(self) -> datetime.datetime | None:
        """Return startedAt (whole seconds) + spec.activeDeadlineSeconds, or None (`getWorkflowDeadline`)."""
        seconds = self.spec.get("activeDeadlineSeconds")
        started = timestamps.parse_time(self.status.get("startedAt"))
        if seconds is None or started is None:
            return None
        return started.replace(microsecond=0) + datetime.timedelta(seconds=int(seconds))

    def deadline_exceeded(self) -> bool:
        """Return whether the workflow's activeDeadlineSeconds has passed."""
        return self.workflow_deadline is not None and self.now > self.workflow_deadline

    @property
    def shutdown(self) -> str:
        """Return the shutdown strategy (`Stop`, `Terminate`) or "" when not shutting down."""
        return str(self.spec.get("shutdown") or "")

    def should_execute(self, on_exit: bool) -> bool:
        """Return whether a node may still start under the shutdown strategy (`ShouldExecute`)."""
        if self.shutdown == "Terminate":
            return False
        if self.shutdown == "Stop":
            return on_exit
        return True

    # -- nodes ---------------------------------------------------------------------------

    def node_id(self, node_name: str) -> str:
        """Return the ID of a node name in this workflow."""
        return naming.node_id(self.name, node_name)

    def node(self, node_name: str) -> Json | None:
        """Return the node with this name, or None."""
        return self.nodes.get(self.node_id(node_name))

    def init_node(
        self,
        node_name: str,
        *,
        node_type: str,
        template_name: str,
        boundary_id: str,
        phase: str,
        message: str | None = None,
        executable: bool = False,
        hooked: bool = False,
    ) -> Json:
        """Create a node (`initializeNode`); executable nodes start with `taskResultSynced`."""
        boundary = self.nodes.get(boundary_id) if boundary_id else None
        node: Json = {
            "id": self.node_id(node_name),
            "name": node_name,
            "displayName": naming.display_name(
                node_name, boundary["name"] if boundary else None
            ),
            "type": node_type,
            "templateName": template_name,
            "templateScope": f"local/{self.name}",
            "phase": phase,
            "startedAt": self.now_text(),
        }
        if boundary_id:
            node["boundaryID"] = boundary_id
        if message:
            node["message"] = message
        if hooked:
            node["nodeFlag"] = {"hooked": True}
        if executable:
            node["taskResultSynced"] = True
        if inference.fulfilled(node):
            node["finishedAt"] = node["startedAt"]
        self.nodes[node["id"]] = node
        logger.info("%s Node %s initialized %s.", self.prefix, node_name, phase)
        return node

    def template_node(
        self,
        node_name: str,
        template: Json,
        opts: ExecuteOptions,
        *,
        node_type: str,
        phase: str,
        executable: bool = False,
        with_inputs: bool = True,
    ) -> Json:
        """The node of `template` at `node_name`, initialized on first sight.

        A new node takes the template's inputs when it declares parameters or
        artifacts (`with_inputs`; steps and DAG nodes do not record them).
        """
        node = self.node(node_name)
        if node is not None:
            return node
        node = self.init_node(
            node_name,
            node_type=node_type,
            template_name=template["name"],
            boundary_id=opts.boundary_id,
            phase=phase,
            executable=executable,
            hooked=opts.hooked,
        )
        inputs = template.get("inputs") or {}
        if with_inputs and (inputs.get("parameters") or inputs.get("artifacts")):
            node["inputs"] = inputs
        return node

    def mark_node(self, node_name: str, phase: str, message: str | None = None) -> Json:
        """Set a node's phase and optionally its message (`markNodePhase`)."""
        node = self.node(node_name)
        if node is None:
            raise errors.WorkflowError(f"node {node_name} is not initialized")
        if (
            node.get("phase") != "Running"
            and phase in inference.FAILED_OR_ERROR
            and "taskResultSynced" in node
        ):
            node["taskResultSynced"] = True
        if node.get("phase") != phase:
            logger.info(
                "%s Node %s changed from %s to %s.",
                self.prefix,
                node_name,
                node.get("phase"),
                phase,
            )
            node["phase"] = phase
        if message is not None:
            if message:
                node["message"] = message
            else:
                node.pop("message", None)
        if inference.fulfilled(node) and not node.get("finishedAt"):
            node["finishedAt"] = self.now_text()
        return node

    def add_child(self, parent_name: str, child_name: str) -> None:
        """Record `child_name` as a child of `parent_name`."""
        parent = self.node(parent_name)
        if parent is None:
            return
        children = parent.setdefault("children", [])
        child_id = self.node_id(child_name)
        if child_id not in children:
            children.append(child_id)

    def part_of_exit_handler(self, node: Json) -> bool:
        """Return whether the node or one of its boundaries belongs to an onExit handler."""
        seen: set[str] = set()
        current: Json | None = node
        while current is not None and current["id"] not in seen:
            if (current.get("nodeFlag") or {}).get("hooked"):
                return True
            seen.add(current["id"])
            current = self.nodes.get(current.get("boundaryID", ""))
        return False

    # -- variables -------------------------------------------------------------------------

    def global_params(self) -> dict[str, str]:
        """Return the `workflow.*` variables."""
        meta = self.wf["metadata"]
        params = {
            "workflow.name": self.name,
            "workflow.namespace": self.namespace,
            "workflow.uid": str(meta.get("uid", "")),
            "workflow.serviceAccountName": str(
                self.spec.get("serviceAccountName") or ""
            ),
        }
        for param in (self.spec.get("arguments") or {}).get("parameters") or []:
            if param.get("value") is not None:
                params[f"workflow.parameters.{param['name']}"] = arguments.any_string(
                    param["value"]
                )
        for param in (self.status.get("outputs") or {}).get("parameters") or []:
            if param.get("value") is not None:
                params[f"workflow.outputs.parameters.{param['name']}"] = (
                    arguments.any_string(param["value"])
                )
        root = self.nodes.get(self.name)
        if root is not None and inference.fulfilled(root):
            params["workflow.status"] = str(root.get("phase"))
        return params

    def global_artifacts(self) -> dict[str, Json]:
        """Return the `workflow.outputs.artifacts.*` a step's or task's `from` may name."""
        return {
            f"workflow.outputs.artifacts.{art['name']}": art
            for art in (self.status.get("outputs") or {}).get("artifacts") or []
        }

    def export_outputs(self, outputs: Json | None) -> None:
        """Export outputs carrying a `globalName` as workflow outputs (`addOutputsToGlobalScope`).

        A parameter becomes `{name: <globalName>, value}` in `status.outputs.parameters`
        (a later export of the same name overwrites the value); an artifact is stored
        under its global name without `globalName` and `path`. Both are then visible as
        `workflow.outputs.*` to every later step, task and the exit handler.
        """
        for param in (outputs or {}).get("parameters") or []:
            if param.get("globalName"):
                self._export_parameter(param)
        for artifact in (outputs or {}).get("artifacts") or []:
            if artifact.get("globalName"):
                self._export_artifact(artifact)

    def _export_parameter(self, param: Json) -> None:
        exported = self.status.setdefault("outputs", {}).setdefault("parameters", [])
        name, value = param["globalName"], param.get("value")
        for existing in exported:
            if existing.get("name") == name:
                if value is not None and existing.get("value") != value:
                    existing["value"] = value
                return
        exported.append(
            {"name": name} if value is None else {"name": name, "value": value}
        )
        logger.info("%s Workflow output parameter %s set.", self.prefix, name)

    def _export_artifact(self, artifact: Json) -> None:
        exported = self.status.setdefault("outputs", {}).setdefault("artifacts", [])
        stored = {
            k: copy.deepcopy(v)
            for k, v in artifact.items()
            if k not in ("globalName", "path")
        }
        stored["name"] = artifact["globalName"]
        for index, existing in enumerate(exported):
            if existing.get("name") == stored["name"]:
                exported[index] = stored
                return
        exported.append(stored)
        logger.info("%s Workflow output artifact %s set.", self.prefix, stored["name"])

    # -- execution ---------------------------------------------------------------------------

    def execute_template(
        self, node_name: str, template_name: str, args: Json, opts: ExecuteOptions
    ) -> Json:
        """Execute the named template as node `node_name` and return the node (`executeTemplate`).

        Raises TemplateError after marking the node Error when the template cannot run,
        and `parallelism.ParallelismReached` when a limit keeps it from running now.
        """
        node = self.node(node_name)
        template = self.templates.get(template_name)
        if template is None:
            return self._fail_template(
                node_name,
                template_name,
                opts,
                f"template name '{template_name}' undefined",
            )
        local = {"node.name": node_name}
        has_retry = template.get("retryStrategy") is not None
        if template_type(template) in ("container", "script") and not has_retry:
            local["pod.name"] = naming.pod_name(
                workflow_name=self.name,
                node_name=node_name,
                template_name=template_name,
            )
        try:
            processed = arguments.process_inputs(
                template, args, {**self.global_params(), **local}
            )
        except errors.WorkflowError as err:
            return self._fail_template(node_name, template_name, opts, str(err))
        if node is not None and inference.fulfilled(node):
            return node
        if node is not None:
            timeouts.check(self, node_name, processed, node)
        parallelism.check(self, processed, node, opts.boundary_id)
        if has_retry:
            return retries.execute(self, node_name, processed, opts)
        return self.execute_processed(node_name, processed, opts)

    def execute_processed(
        self, node_name: str, template: Json, opts: ExecuteOptions
    ) -> Json:
        """Run an already processed template as `node_name`, by kind."""
        kind = template_type(template)
        if kind in ("container", "script"):
            return leaves.execute(self, node_name, template, opts)
        if kind == "steps":
            return steps.execute(self, node_name, template, opts)
        if kind == "dag":
            return dags.execute(self, node_name, template, opts)
        if kind == "suspend":
            return suspends.execute(self, node_name, template, opts)
        return self._fail_template(
            node_name,
            template["name"],
            opts,
            f"Template '{template['name']}' missing specification",
        )

    def _fail_template(
        self, node_name: str, template_name: str, opts: ExecuteOptions, message: str
    ) -> Json:
        node = self.node(node_name)
        if node is None:
            node = self.init_node(
                node_name,
                node_type="Skipped",
                template_name=template_name,
                boundary_id=opts.boundary_id,
                phase="Error",
                message=message,
                hooked=opts.hooked,
            )
        else:
            node = self.mark_node(node_name, "Error", message)
        raise TemplateError(message)


def pod_node_id(pod: Json, workflow_name: str) -> str:
    """Return the node ID a pod belongs to: its annotation, else derived from the node name."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    if common.ANNOTATION_NODE_ID in annotations:
        return str(annotations[common.ANNOTATION_NODE_ID])
    return naming.node_id(
        workflow_name, str(annotations.get(common.ANNOTATION_NODE_NAME, ""))
    )
