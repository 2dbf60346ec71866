"""Argo's `{{...}}` variable substitution, for the variables the reference controller knows.

Supported: `inputs.parameters.<p>`, `inputs.artifacts.<a>.path`, `workflow.name|namespace|uid`,
`workflow.parameters.<p>`, `pod.name`, `node.name`, `retries`,
`steps|tasks.<n>.outputs.parameters.<p>`, `steps|tasks.<n>.outputs.result`,
`steps|tasks.<n>.outputs.artifacts.<a>` (in `from:` only) and `steps|tasks.<n>.status`.
Expressions (`{{=...}}`) are not supported and left untouched; a leaf template that still
holds a variable after substitution fails with Argo's `failed to resolve {{...}}`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_TAG = re.compile(r"{{\s*([^{}]+?)\s*}}")


def substitute_text(text: str, params: Mapping[str, str]) -> str:
    """Replace every `{{name}}` whose name is in `params`; leave the others as they are."""

    def replace(match: re.Match[str]) -> str:
        return params.get(match.group(1), match.group(0))

    return _TAG.sub(replace, text)


def substitute_tree(value: Any, params: Mapping[str, str]) -> Any:
    """Return a copy of a JSON-like tree with `substitute_text` applied to every string."""
    if isinstance(value, str):
        return substitute_text(value, params)
    if isinstance(value, dict):
        return {k: substitute_tree(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute_tree(v, params) for v in value]
    return value


def unresolved(value: Any) -> list[str]:
    """Return the `{{...}}` variables (not expressions) still present anywhere in a tree."""
    found: list[str] = []
    if isinstance(value, str):
        found += [
            m.group(0) for m in _TAG.finditer(value) if not m.group(1).startswith("=")
        ]
    elif isinstance(value, dict):
        for item in value.values():
            found += unresolved(item)
    elif isinstance(value, list):
        for item in value:
            found += unresolved(item)
    return found
