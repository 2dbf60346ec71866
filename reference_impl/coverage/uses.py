"""Which workflow in the repository sets each field: the table's "exercised by" column.

Reads the conformance scenarios' workflow manifests and the differential corpus's
reference-features workflows, and records, for each classified field path, the first
file (sorted) whose Workflow sets it. Computed from the documents themselves, so the
column cannot claim a scenario that does not use the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from reference_impl.controller.templates.checks import coverage

SOURCES = (
    "conformance/tests/manifests",
    "wpc/differential/corpus/reference-features",
)


def workflow_files(root: Path) -> list[Path]:
    """Return the YAML files of the sources, sorted by path."""
    files: list[Path] = []
    for source in SOURCES:
        folder = root / source
        if folder.is_dir():
            files += sorted(folder.glob("*.yaml"))
    return files


def first_uses(root: Path) -> dict[str, str]:
    """Return field path -> the first file (relative to `root`) whose Workflow sets it."""
    uses: dict[str, str] = {}
    for path in workflow_files(root):
        relative = path.relative_to(root).as_posix()
        for document in yaml.safe_load_all(path.read_text()):
            for field in fields_of(document):
                uses.setdefault(field, relative)
    return uses


def fields_of(document: Any) -> set[str]:
    """Return the classified field paths a Workflow document sets.

    None for other kinds, nor for a Workflow the reference rejects (one setting a rejected
    field exercises upstream, not the reference).
    """
    if not isinstance(document, dict) or document.get("kind") != "Workflow":
        return set()
    spec = document.get("spec")
    if not isinstance(spec, dict):
        return set()
    found = list(coverage.fields_set(spec, path="spec", location="spec"))
    if any(coverage.rule_for(f.path).status is coverage.REJ for f in found):  # type: ignore[union-attr]
        return set()
    return {f.path for f in found}
