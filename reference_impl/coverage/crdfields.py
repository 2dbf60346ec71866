"""The field paths of the Workflow CRD's `spec`, as the coverage table names them.

Walks the OpenAPI schema of upstream's Workflow CRD (read from the upstream source
checkout at test time, never committed) and returns one path per field: `.` between
fields, `[]` for a list's items, `{}` for a map's values, so a step's hook template is
`spec.templates[].steps[][].hooks{}.template`. The walk does not descend below a path the
caller says is covered as a whole (a core Kubernetes type passed to the pod unchanged, or
a feature rejected with everything under it); an unknown path is always descended, so a
field upstream adds anywhere shows up with everything under it until it is classified.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

Json = dict[str, Any]


class CrdError(ValueError):
    """The CRD text is not a Workflow CRD with a `spec` schema."""


def spec_schema(crd_text: str) -> Json:
    """Return the OpenAPI schema of `spec` from the Workflow CRD's YAML text."""
    document = yaml.safe_load(crd_text)
    try:
        versions = document["spec"]["versions"]
        schema = versions[0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    except (KeyError, IndexError, TypeError) as err:
        raise CrdError(
            f"not a Workflow CRD with a spec schema (missing {err})"
        ) from None
    if not isinstance(schema, dict):
        raise CrdError("the CRD's spec schema is not an object")
    return schema


def field_paths(schema: Json, *, whole: Callable[[str], bool]) -> list[str]:
    """Return every field path under `spec`, sorted, not descending below `whole` paths."""
    paths: list[str] = []
    _walk(schema, "spec", paths, whole)
    return sorted(paths)


def _walk(
    node: Json, path: str, paths: list[str], whole: Callable[[str], bool]
) -> None:
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        _walk(node["items"], path + "[]", paths, whole)
        return
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and isinstance(extra.get("properties"), dict):
        _walk(extra, path + "{}", paths, whole)
    for name, child in sorted((node.get("properties") or {}).items()):
        child_path = f"{path}.{name}"
        paths.append(child_path)
        if isinstance(child, dict) and not whole(child_path):
            _walk(child, child_path, paths, whole)
