"""Load a ConformanceReport for comparison, refusing anything that is not one.

The diff trusts every key it reads, so a file is checked in the order a person
would look for the mistake: it exists and is YAML, it is a mapping, it says it
is a `ConformanceReport` of the version this suite writes, and only then the
whole report schema; each error names the file and the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance.errors import DataError
from conformance.report.items import identity
from conformance.report.runs import documents
from conformance.report.scores import schemafiles


def read(path: Path) -> dict[str, Any]:
    """The report at `path`, validated; DataError naming the file and key if not."""
    text = schemafiles.read_text(path, "report")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: not valid YAML: {exc}") from exc
    return checked(path, document)


def checked(path: Path, document: Any) -> dict[str, Any]:
    """`document`, parsed from `path`, as a valid ConformanceReport; DataError if not.

    For a caller that has parsed the file already (to tell its kind).
    """
    if not isinstance(document, dict):
        raise DataError(
            f"{path}: not a ConformanceReport: expected a mapping with apiVersion "
            f"and kind, got {type(document).__name__}"
        )
    for key, expected in (
        ("kind", documents.KIND),
        ("apiVersion", documents.API_VERSION),
    ):
        if document.get(key) != expected:
            raise DataError(
                f"{path}: key {key}: expected {expected!r}, got {document.get(key)!r}"
            )
    try:
        documents.validate(document)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "the document"
        raise DataError(f"{path}: key {where}: {exc.message}") from exc
    # Reports written before the stable identity: their items get the one they
    # would have now, so old and new reports match item by item.
    return identity.upgrade(document)
