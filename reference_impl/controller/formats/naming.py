"""Node names, node IDs and pod names, exactly as Argo Workflows v4.1.x derives them.

Names are deterministic so that a restarted controller finds the pods and nodes it
created before: node ID = `<wf>-<fnv32a(nodeName)>` (root: `<wf>`), pod name (v2) =
`<wf>-<templateName>-<fnv32a(nodeName)>` (root pod: `<wf>`). Sources:
`pkg/apis/workflow/v1alpha1/workflow_types.go` `NodeID`, `workflow/util/pod_name.go`.
"""

from __future__ import annotations

import re

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193
_MAX_NAME = 253
_HASH_LENGTH = 10
_SEPARATOR = re.compile(r"^(\[\d+\])?\.")
_MAX_PREFIX = _MAX_NAME - _HASH_LENGTH  # 243; Argo truncates to one less (242)


def fnv32a(text: str) -> int:
    """Return the 32-bit FNV-1a hash of the UTF-8 bytes, like Go's `hash/fnv.New32a`."""
    value = _FNV32_OFFSET
    for byte in text.encode():
        value ^= byte
        value = (value * _FNV32_PRIME) & 0xFFFFFFFF
    return value


def node_id(workflow_name: str, node_name: str) -> str:
    """Return the node ID; the root node's ID is the workflow name itself."""
    if node_name == workflow_name:
        return workflow_name
    return f"{workflow_name}-{fnv32a(node_name)}"


def pod_name(*, workflow_name: str, node_name: str, template_name: str) -> str:
    """Return the v2 pod name, the default of Argo since v3.4."""
    if node_name == workflow_name:
        return workflow_name
    prefix = f"{workflow_name}-{template_name}" if template_name else workflow_name
    prefix = prefix[: _MAX_PREFIX - 1]
    return f"{prefix}-{fnv32a(node_name)}"


def step_group_name(parent: str, index: int) -> str:
    """Return the name of step group `index` of a steps node: `<parent>[i]`."""
    return f"{parent}[{index}]"


def step_name(group: str, step: str) -> str:
    """Return a step's node name: `<parent>[i].<step>`."""
    return f"{group}.{step}"


def task_name(dag: str, task: str) -> str:
    """Return a DAG task's node name: `<dag>.<task>`."""
    return f"{dag}.{task}"


def retry_child_name(retry_node: str, attempt: int) -> str:
    """Return the name of retry attempt `attempt` (from 0): `<retry>(<n>)`."""
    return f"{retry_node}({attempt})"


def on_exit_name(parent: str) -> str:
    """Return the onExit handler's node name: `<parent>.onExit`."""
    return f"{parent}.onExit"


def display_name(node_name: str, boundary_name: str | None) -> str:
    """Return the node name minus its boundary's name and one `[i].` or `.` separator.

    Mirrors Argo's `stepsOrDagSeparator` regex: `wf[0].hello` under `wf` becomes
    `hello`, the step group `wf[0]` stays `[0]`.
    """
    if boundary_name is None:
        return node_name
    return _SEPARATOR.sub("", node_name.removeprefix(boundary_name), count=1)
