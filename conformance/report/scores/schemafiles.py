"""Read a YAML document another step wrote and check it against its JSON schema.

The ConformanceReport copies two scores measured elsewhere (the negative controls'
and `make history`'s); both are files a user passes by path, so both need the
same reading: an unreadable file or a schema violation is a DataError naming the
file, what it should have been, the schema and the failing key.

Every report schema is checked with `VALIDATOR`, for which NaN and infinity are
not numbers: JSON has neither, YAML does (`.nan`, `.inf`), and no bound in a
schema refuses NaN, as NaN compares false with everything (a report claiming
`timeoutScale: .nan` passed `exclusiveMinimum: 0`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance.errors import DataError
from plumbing import textfiles

READ_LIMIT_BYTES = 32 * textfiles.MIB
"""The largest report read (ConformanceReport, NegativeControlsReport, HistoryResult):
a full run's report is about 160 KB, so 32 MiB leaves room for any evidence while a
runaway file is refused before it is parsed."""


def _finite_number(checker: Any, instance: object) -> bool:
    base = jsonschema.Draft202012Validator.TYPE_CHECKER
    not_finite = isinstance(instance, float) and not math.isfinite(instance)
    return base.is_type(instance, "number") and not not_finite


VALIDATOR = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "number", _finite_number
    ),
)
"""Draft 2020-12, except that NaN and infinity are not of type `number`."""


def validate(document: Any, schema_path: Path) -> None:
    """Raise jsonschema.ValidationError unless `document` matches the schema file."""
    schema = json.loads(schema_path.read_text())
    VALIDATOR(schema).validate(document)


def read_text(path: Path, what: str) -> str:
    """The text of a report file a user named: UTF-8, at most READ_LIMIT_BYTES.

    DataError naming the file (and `what` it should be) otherwise.
    """
    try:
        return textfiles.read(path, limit=READ_LIMIT_BYTES, what=what)
    except textfiles.TextFileError as exc:
        raise DataError(str(exc)) from exc


def load(path: Path, schema_path: Path, what: str) -> dict[str, Any]:
    """Read and validate `path`; DataError names the file, `what` it is and the key."""
    text = read_text(path, what)
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: cannot read the {what}: {exc}") from exc
    try:
        validate(document, schema_path)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "<top level>"
        raise DataError(
            f"{path}: invalid {what} (schema {schema_path.name}): {where}: {exc.message}"
        ) from exc
    result: dict[str, Any] = document
    return result
