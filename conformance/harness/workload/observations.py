"""What a scenario observed, recorded per layout for the cross-layout diff.

Tests record flat `key -> JSON value` pairs through the `observations`
fixture; `record_workflow()` does the common part (workflow and node phases,
messages, exit codes, outputs). Run-specific names (the workflow's generated
name, node IDs, pod names) are replaced by stable placeholders, so the same
scenario observed in two layouts compares equal unless behaviour differs.

Key scheme: `workflow.phase`, `workflow.message`, `nodes.<display name>.phase`,
`.message`, `.type`, `.exitCode`, `.outputs.result`,
`.outputs.parameters.<name>`, `.outputs.artifacts.<name>`; tests add their own
(`artifacts.inputs.<name>.fileType`, `logs.<node>.main`, `pods.<node>.auxContainer`).
"""

from __future__ import annotations

from typing import Any

JSON = Any


class Observations:
    """A flat, normalised record of what one test saw in one layout."""

    def __init__(self) -> None:
        self._data: dict[str, JSON] = {}
        self._aliases: dict[str, str] = {}

    def alias(self, actual: str, placeholder: str) -> None:
        """Write `placeholder` wherever `actual` appears in later records."""
        if actual:
            self._aliases[actual] = placeholder

    def _normalise(self, value: JSON) -> JSON:
        if isinstance(value, str):
            for actual in sorted(self._aliases, key=len, reverse=True):
                value = value.replace(actual, self._aliases[actual])
            return value
        if isinstance(value, list):
            return [self._normalise(v) for v in value]
        if isinstance(value, dict):
            return {self._normalise(k): self._normalise(v) for k, v in value.items()}
        return value

    def record(self, key: str, value: JSON) -> None:
        """Record one observation (key and value are normalised)."""
        self._data[self._normalise(key)] = self._normalise(value)

    def record_workflow(self, workflow: dict[str, Any]) -> None:
        """Record the phases, messages, exit codes and outputs of a finished workflow."""
        name = workflow["metadata"]["name"]
        status = workflow.get("status") or {}
        nodes: dict[str, Any] = status.get("nodes") or {}
        for node_id, node in nodes.items():
            label = (
                "<root>" if node_id == name else str(node.get("displayName", node_id))
            )
            self.alias(node_id, f"<node:{label}>")
            suffix = node_id.removeprefix(f"{name}-")
            template = node.get("templateName")
            if template and suffix != node_id:
                self.alias(f"{name}-{template}-{suffix}", f"<pod:{label}>")
        self.alias(name, "<wf>")
        self.record("workflow.phase", status.get("phase"))
        self.record("workflow.message", status.get("message", ""))
        for node_id, node in nodes.items():
            label = (
                "<root>" if node_id == name else str(node.get("displayName", node_id))
            )
            prefix = f"nodes.{label}"
            self.record(f"{prefix}.type", node.get("type"))
            self.record(f"{prefix}.phase", node.get("phase"))
            self.record(f"{prefix}.message", node.get("message", ""))
            outputs = node.get("outputs") or {}
            if "exitCode" in outputs:
                self.record(f"{prefix}.exitCode", outputs["exitCode"])
            if "result" in outputs:
                self.record(f"{prefix}.outputs.result", outputs["result"])
            for param in outputs.get("parameters") or []:
                self.record(
                    f"{prefix}.outputs.parameters.{param['name']}", param.get("value")
                )
            for art in outputs.get("artifacts") or []:
                self.record(
                    f"{prefix}.outputs.artifacts.{art['name']}",
                    {k: v for k, v in art.items() if k != "name"},
                )

    def to_json(self) -> dict[str, JSON]:
        """A copy of the record, sorted by key."""
        return dict(sorted(self._data.items()))
