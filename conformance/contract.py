"""The Argo vocabulary the suite judges by: names, labels, annotations, phases.

Every label, annotation, container name, path and phase the suite reads off a
cluster is spelt here once, so a scenario and the harness can never disagree
about what `workflows.argoproj.io/node-id` is called, and a rename in the spec
is one edit. These are facts of the contract between a controller and its pods
(SPEC.md), not settings: nothing here is configurable.
"""

from __future__ import annotations

# The two pod layouts. Argo picks one controller-wide; the suite runs one
# controller instance per layout (see `conformance.harness.instances.layouts`).
TOOLS_IMAGE = "wpc.local/wpc-tools:0.1.0"
"""The suite's own tools image (busybox + probe): scenarios run their main
containers from it, so every implementation is judged with the same tools. The
suite loads it into every cluster itself; profiles need not name it."""

LEGACY = "legacy"
INITLESS = "initless"
LAYOUTS = (LEGACY, INITLESS)
"""Every layout, in the canonical order reports and parameters use."""
LAYOUT_FEATURES = {LEGACY: "LEGACY_LAYOUT", INITLESS: "INITLESS_LAYOUT"}
"""The spec feature a layout stands for; claiming a layout claims its feature."""

# The Workflow API.
WORKFLOW_GROUP = "argoproj.io"
WORKFLOW_VERSION = "v1alpha1"
WORKFLOW_API_VERSION = f"{WORKFLOW_GROUP}/{WORKFLOW_VERSION}"
WORKFLOWS = "workflows"
"""The plural of the Workflow resource."""
TASK_RESULTS = "workflowtaskresults"
"""The plural of the WorkflowTaskResult resource."""

# Labels.
WORKFLOW_LABEL = "workflows.argoproj.io/workflow"
"""The label every pod of a workflow carries (its value: the workflow's name)."""
INSTANCE_LABEL = "workflows.argoproj.io/controller-instanceid"
"""Selects the controller instance that processes a Workflow."""
COMPLETED_LABEL = "workflows.argoproj.io/completed"
"""Set to "true" on a pod once its node is completed and the pod cleaned up."""
PHASE_LABEL = "workflows.argoproj.io/phase"
"""The controller's record of a Workflow's phase (Argo lists Running workflows by it)."""
REPORT_OUTPUTS_COMPLETED = "workflows.argoproj.io/report-outputs-completed"
"""The WorkflowTaskResult label saying the executor's report is final."""

# Annotations.
NODE_NAME = "workflows.argoproj.io/node-name"
"""The pod annotation naming its node, e.g. `wf[0].produce`."""
NODE_ID = "workflows.argoproj.io/node-id"
"""The pod annotation holding its node's ID (a key of `status.nodes`)."""

# Finalizers.
STATUS_FINALIZER = "workflows.argoproj.io/status"
"""The pod status-capture finalizer."""

# Phases.
COMPLETED = frozenset({"Succeeded", "Failed", "Error"})
"""The phases of a completed workflow."""
NODE_DONE = frozenset({"Succeeded", "Failed", "Error", "Skipped", "Omitted"})
"""The phases of a node that will not run (again)."""

# Containers and paths inside a workflow pod.
MAIN = "main"
"""The user's container."""
EXECUTOR_CONTAINERS = ("init", "wait", "supervisor")
"""The executor's auxiliary containers (init and wait: legacy; supervisor: initless)."""
EMISSARY = {LEGACY: "/var/run/argo/argoexec", INITLESS: "/argo-bin/bin/argoexec"}
"""Where each layout's user containers find the emissary they are wrapped by."""
VAR_RUN_ARGO = "/var/run/argo"
"""The shared volume of the executor's file protocol."""
STATUS_MARKER = f"{VAR_RUN_ARGO}/status"
"""The supervisor's status marker file."""
STATUS_MARKER_TMP = f"{VAR_RUN_ARGO}/status.tmp"
"""Where the supervisor writes the marker before renaming it (WPC-HANDSHAKE-002)."""
EXECUTOR_BIN_VOLUME = "argoexec-bin"
"""The init-less pod's image volume of the executor image (WPC-INITLESS-003)."""
CONFIGMAP = "workflow-controller-configmap"
"""Argo's configuration ConfigMap, in the controller's namespace."""
