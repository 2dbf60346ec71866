"""What an experiment document declares for WPC, in its `extensions` block.

```yaml
extensions:
  - name: wpc
    experiment: controller-down-while-main-runs   # the report's name
    layouts: [legacy, initless]                   # where it applies
    invariants: [...]                             # optional; default: all
    deadlineSeconds: 180                          # optional; the invariant's
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chaos.invariants import INVARIANTS
from chaos.invariants import InvariantSettings
from conformance import contract

EXTENSION = "wpc"


@dataclass(frozen=True)
class Declaration:
    """An experiment's WPC extension, checked."""

    name: str
    layouts: tuple[str, ...]
    invariants: tuple[str, ...]
    invariant_settings: InvariantSettings


def of(experiment: Mapping[str, Any]) -> Declaration:
    """The experiment's declaration; ValueError naming what is wrong."""
    found = [
        e for e in experiment.get("extensions") or [] if e.get("name") == EXTENSION
    ]
    if len(found) != 1:
        raise ValueError(
            f"experiment {experiment.get('title')!r}: expected one `extensions` "
            f"entry named {EXTENSION!r}, found {len(found)}"
        )
    ext = found[0]
    name = str(ext.get("experiment") or "")
    if not name:
        raise ValueError("the wpc extension needs `experiment` (its report name)")
    layouts = tuple(ext.get("layouts") or contract.LAYOUTS)
    unknown = [layout for layout in layouts if layout not in contract.LAYOUTS]
    names = tuple(ext.get("invariants") or INVARIANTS)
    unknown += [n for n in names if n not in INVARIANTS]
    if unknown:
        raise ValueError(f"experiment {name}: unknown layouts or invariants {unknown}")
    limits = InvariantSettings()
    if "deadlineSeconds" in ext:
        limits = InvariantSettings(deadline_seconds=float(ext["deadlineSeconds"]))
    return Declaration(
        name=name, layouts=layouts, invariants=names, invariant_settings=limits
    )
