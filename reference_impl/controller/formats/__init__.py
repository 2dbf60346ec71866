"""Argo's string formats, as pure functions: the controller's vocabulary.

- `durations` (Go duration strings), `timestamps` (RFC 3339, whole seconds);
- `naming` (node names, node IDs, pod names); `substitution` (`{{...}}`).
"""

from __future__ import annotations
