"""Names Argo Workflows puts on objects, which the invariants read."""

from __future__ import annotations

WORKFLOW_LABEL = "workflows.argoproj.io/workflow"
"""On pods and WorkflowTaskResults: the name of their workflow."""
NODE_ID_ANNOTATION = "workflows.argoproj.io/node-id"
"""On pods: the id of the workflow node the pod runs."""
STATUS_FINALIZER = "workflows.argoproj.io/status"
"""On pods: held until the controller has read the pod's final status."""

WORKFLOW_TERMINAL = frozenset({"Succeeded", "Failed", "Error"})
"""A workflow in one of these phases is completed."""
NODE_TERMINAL = frozenset({"Succeeded", "Failed", "Error", "Skipped", "Omitted"})
"""A node in one of these phases is done; its phase never changes again."""
POD_DONE = frozenset({"Succeeded", "Failed"})
"""A pod in one of these phases runs nothing any more."""
