"""Check a document a verb writes against the JSON schema shipped beside it.

The benchmark's BenchResult and the differential's DifferentialResult are both
validated before they are written, and both refuse a document the same way: a
DataError naming what the document should have been and the failing key
(`/`-separated), so a bug in the writer is a clear message, not a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from conformance.errors import DataError


def validate(document: Any, schema_path: Path, *, what: str) -> None:
    """DataError `<what><key>: <message>` unless `document` matches the schema file."""
    schema = json.loads(schema_path.read_text())
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(part) for part in exc.absolute_path) or "<top level>"
        raise DataError(f"{what}{where}: {exc.message}") from exc
