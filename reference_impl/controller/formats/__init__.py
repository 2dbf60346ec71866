"""Argo's string formats, as pure functions: the controller's vocabulary.

- `durations` (Go duration strings), `timestamps` (RFC 3339, whole seconds);
- `naming` (node names, node IDs, pod names); `substitution` (`{{...}}`);
- `gojson` (JSON and `%v` as Go spells them); `govaluate_tokens`, `govaluate_times`,
  `govaluate_operators` and `govaluate_stages` (the expression language of `when`).
"""

from __future__ import annotations
