"""A corpus: a directory of Workflow YAML files, each run or skipped with a reason.

The project's own corpus (`wpc/differential/corpus/`) and an upstream
checkout's `examples/` are read alike. Files are found recursively and sorted,
and named by their path relative to the corpus directory, which is how the
report and the `--known` file refer to them. A file is skipped, with the
reason, when it is not exactly one YAML document of kind Workflow, or when the
workflow needs something this machine lacks (`requirements`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.errors import DataError
from wpc.differential import images
from wpc.differential import requirements
from wpc.differential.images import ImagePolicy

Json = dict[str, Any]

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Entry:
    """One file of the corpus: the workflow to run, or why it is skipped."""

    file: str
    """Path relative to the corpus directory, with `/` separators."""
    manifest: Json | None
    """The workflow with images mapped, or None when skipped."""
    skipped: str = ""
    """Why the file is not run ('' when it is)."""


def _documents(path: Path) -> list[Any]:
    try:
        return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise _Unreadable(f"not readable YAML: {type(exc).__name__}") from exc


class _Unreadable(Exception):
    """A corpus file that cannot be parsed (reported as skipped, not fatal)."""


def entry(path: Path, *, root: Path, policy: ImagePolicy) -> Entry:
    """Read one corpus file."""
    name = path.relative_to(root).as_posix()
    try:
        documents = _documents(path)
    except _Unreadable as exc:
        return Entry(file=name, manifest=None, skipped=str(exc))
    if len(documents) != 1:
        return Entry(
            file=name,
            manifest=None,
            skipped=f"{len(documents)} YAML documents, expected one Workflow",
        )
    document = documents[0]
    kind = document.get("kind") if isinstance(document, dict) else None
    if kind != "Workflow":
        return Entry(file=name, manifest=None, skipped=f"not a Workflow (kind {kind})")
    needs = requirements.reasons(document, policy)
    if needs:
        return Entry(file=name, manifest=None, skipped="; ".join(needs))
    return Entry(file=name, manifest=images.rewrite(document, policy))


def load(root: Path, *, policy: ImagePolicy) -> list[Entry]:
    """Every YAML file under `root`, sorted by relative path; DataError if none."""
    if not root.is_dir():
        raise DataError(f"--corpus {root}: not a directory")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    if not files:
        raise DataError(f"--corpus {root}: no .yaml or .yml files")
    return [entry(p, root=root, policy=policy) for p in files]
