"""What an experiment document declares for WPC, in its `extensions` block.

```yaml
extensions:
  - name: wpc
    experiment: controller-down-while-main-runs   # the report's name
    layouts: [legacy, initless]                   # where it applies
    invariants: [...]                             # optional; default: all
    deadlineSeconds: 180                          # optional; the invariant's
    requires: [node-faults]                       # optional; chaos.requirements
    recoverySeconds: 120                          # optional; see below
```

`recoverySeconds` is how long the system may take to be steady again after the
fault: the steady-state probes wait that long, at most, before they fail
(default: each probe's own bound).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chaos.invariants import INVARIANTS
from chaos.invariants import InvariantSettings
from chaos.requirements import KNOWN as KNOWN_REQUIREMENTS
from conformance import contract

EXTENSION = "wpc"


@dataclass(frozen=True)
class Declaration:
    """An experiment's WPC extension, checked."""

    name: str
    layouts: tuple[str, ...]
    invariants: tuple[str, ...]
    invariant_settings: InvariantSettings
    requires: tuple[str, ...] = ()
    """What the provider or profile must offer (`chaos.requirements`)."""
    recovery_seconds: float | None = None
    """The declared recovery time; None: each steady-state probe's own bound."""


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
    requires = tuple(ext.get("requires") or ())
    unknown += [r for r in requires if r not in KNOWN_REQUIREMENTS]
    if unknown:
        raise ValueError(
            f"experiment {name}: unknown layouts, invariants or requirements {unknown}"
        )
    limits = InvariantSettings()
    if "deadlineSeconds" in ext:
        limits = InvariantSettings(deadline_seconds=float(ext["deadlineSeconds"]))
    recovery = ext.get("recoverySeconds")
    if recovery is not None and (
        isinstance(recovery, bool)
        or not isinstance(recovery, int | float)
        or not recovery > 0
    ):
        raise ValueError(
            f"experiment {name}: recoverySeconds must be a positive number of "
            f"seconds, not {recovery!r}"
        )
    return Declaration(
        name=name,
        layouts=layouts,
        invariants=names,
        invariant_settings=limits,
        requires=requires,
        recovery_seconds=None if recovery is None else float(recovery),
    )
