"""The differential run as a YAML document (`differential.schema.json`) and a table.

The document is checked against its schema before it is written, as the
benchmark's is, so a reader can rely on its shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wpc import validating
from wpc.diff.rendering import table_lines
from wpc.differential import results
from wpc.differential.results import FileResult
from wpc.differential.results import SideRun

Json = dict[str, Any]

SCHEMA_PATH = Path(__file__).with_name("differential.schema.json")
CELL = 60
"""Characters of a value shown in the table (the YAML has it whole)."""


@dataclass(frozen=True)
class Side:
    """One side of the run as the report describes it."""

    implementation: str
    version: str
    profile: str
    variables: Mapping[str, str]
    instance_id: str
    controller_namespace: str
    namespace: str

    def to_json(self) -> Json:
        """The report's `sides.a` / `sides.b`."""
        return {
            "implementation": self.implementation,
            "version": self.version,
            "profile": self.profile,
            "variables": dict(self.variables),
            "instanceId": self.instance_id,
            "controllerNamespace": self.controller_namespace,
            "namespace": self.namespace,
        }


def _run(run: SideRun, *, full: bool) -> Json:
    data: Json = {
        "workflow": run.workflow,
        "completed": run.completed,
        "phase": str(run.outcome.get("phase", "")),
        "message": str(run.outcome.get("message", "")),
        "nodes": len(run.outcome.get("nodes") or {}),
    }
    if run.note:
        data["note"] = run.note
    if full:
        data["outcome"] = run.outcome
    return data


def _file(result: FileResult) -> Json:
    data: Json = {"file": result.file, "verdict": result.verdict}
    if result.reason:
        data["reason"] = result.reason
    full = result.verdict != results.SAME
    if result.a is not None:
        data["a"] = _run(result.a, full=full)
    if result.b is not None:
        data["b"] = _run(result.b, full=full)
    if result.differences:
        data["differences"] = [d.to_json() for d in result.differences]
    return data


def document(
    found: list[FileResult],
    *,
    header: Mapping[str, Any],
    a: Side,
    b: Side,
) -> Json:
    """The whole report; `header` holds the run's own fields (session, corpus, ...)."""
    return {
        "apiVersion": "wpc.dev/v1alpha1",
        "kind": "DifferentialResult",
        **header,
        "sides": {"a": a.to_json(), "b": b.to_json()},
        "summary": {"files": len(found), **results.counts(found)},
        "files": [_file(r) for r in found],
    }


def check(data: Json) -> None:
    """DataError unless `data` matches the schema."""
    validating.validate(data, SCHEMA_PATH, what="differential result at ")


def write(data: Json, path: Path) -> None:
    """Check `data` against the schema, then write it as YAML."""
    check(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= CELL else text[: CELL - 3] + "..."


def table(data: Json) -> str:
    """The readable form printed on stdout: verdicts, then every difference."""
    sides = data["sides"]
    lines = [
        f"A: {sides['a']['implementation']} {sides['a']['version']} "
        f"(instance {sides['a']['instanceId']})",
        f"B: {sides['b']['implementation']} {sides['b']['version']} "
        f"(instance {sides['b']['instanceId']})",
        f"layout {data['layout']}, corpus {data['corpus']}",
        "",
    ]
    lines += table_lines(
        ("file", "verdict", "A phase", "B phase", "differences / reason"),
        [
            (
                f["file"],
                f["verdict"],
                (f.get("a") or {}).get("phase", "-"),
                (f.get("b") or {}).get("phase", "-"),
                str(len(f["differences"]))
                if f.get("differences")
                else _cell(f.get("reason", "")),
            )
            for f in data["files"]
        ],
    )
    rows = [
        (f["file"], d["path"], _cell(d["a"]), _cell(d["b"]))
        for f in data["files"]
        if f["verdict"] != results.SKIPPED
        for d in f.get("differences") or []
    ]
    if rows:
        lines += ["", "differences:"]
        lines += table_lines(("file", "path", "A", "B"), rows)
    summary = data["summary"]
    lines += [
        "",
        ", ".join(f"{summary[k]} {k}" for k in ("files", *results.VERDICTS)),
    ]
    return "\n".join(lines) + "\n"
