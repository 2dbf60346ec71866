"""A small strategic merge patch for pod specs (`podSpecPatch`) and container defaults.

Argo applies `podSpecPatch` with Kubernetes' strategic merge patch, which merges lists of
named objects by key instead of replacing them. The reference controller implements the
part pod specs need: maps merge recursively, `null` deletes a field, and the lists below
merge by their patch merge key; every other list is replaced. The `$patch` directives are
not supported.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml

from reference_impl.controller import errors

_MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "ports": "containerPort",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "resourceClaims": "name",
}


def parse_patch(text: str) -> dict[str, Any]:
    """Parse a `podSpecPatch` string (JSON or YAML) into a mapping.

    Raises PodBuildError with Argo's prefix `Error applying PodSpecPatch` when it is not one.
    """
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise errors.PodBuildError(f"Error applying PodSpecPatch: {err}") from err
    if not isinstance(loaded, dict):
        raise errors.PodBuildError(
            f"Error applying PodSpecPatch: expected an object, got {json.dumps(loaded)}"
        )
    return loaded


def merge(base: Any, patch: Any, *, field: str = "") -> Any:
    """Return `base` with `patch` merged in; neither argument is modified."""
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = copy.deepcopy(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = merge(merged[key], value, field=key)
            else:
                merged[key] = copy.deepcopy(value)
        return merged
    if isinstance(base, list) and isinstance(patch, list) and field in _MERGE_KEYS:
        return _merge_list(base, patch, _MERGE_KEYS[field])
    return copy.deepcopy(patch)


def _merge_list(base: list[Any], patch: list[Any], key: str) -> list[Any]:
    merged = copy.deepcopy(base)
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            merged.append(copy.deepcopy(item))
            continue
        for index, existing in enumerate(merged):
            if isinstance(existing, dict) and existing.get(key) == item[key]:
                merged[index] = merge(existing, item)
                break
        else:
            merged.append(copy.deepcopy(item))
    return merged
