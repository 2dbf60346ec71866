"""An item's phases as the report records them, and the slowest items of a run.

Workers time what the harness does (`conformance.harness.cluster.timing`) and hand it
over per pytest phase (setup, call, teardown) with each TestReport; the record
keeps both (`TestRecord.phase_durations`, `TestRecord.phase_parts`). The
report's `phases` of an item are:

- setup: pytest's setup (namespace, private controller install) plus the
  installs, configuration changes and restarts done in the test body, with
  those three as `setupParts`;
- submit, wait, observe: the test body's Workflow submissions, waits for the
  contract's event, and reads of what happened;
- other: the rest of the test body (its own commands, assertions);
- cleanup: pytest's teardown (namespace deletion, uninstall).

They add up to the item's duration. Reports written before phases were
recorded have none (the schema keeps them optional).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance.harness.cluster import timing

SETUP_PARTS = (timing.INSTALL, timing.CONFIG_CHANGE, timing.RESTART)
BODY = (timing.SUBMIT, timing.WAIT, timing.OBSERVE)
TOP_LEVEL = ("setup", *BODY, "other", "cleanup")
"""The phases an item's duration splits into, in the order they happen."""
SLOWEST_COUNT = 10


def build(
    durations: Mapping[str, float], parts: Mapping[str, Mapping[str, float]]
) -> dict[str, Any] | None:
    """The report's `phases` of one item; None when pytest timed none of its phases."""
    if not durations:
        return None
    call = parts.get("call", {})
    in_setup = sum(call.get(name, 0.0) for name in SETUP_PARTS)
    in_body = sum(call.get(name, 0.0) for name in BODY)
    seconds = {
        "setup": durations.get("setup", 0.0) + in_setup,
        **{name: call.get(name, 0.0) for name in BODY},
        "other": max(0.0, durations.get("call", 0.0) - in_setup - in_body),
        "cleanup": durations.get("teardown", 0.0),
    }
    found: dict[str, Any] = {name: round(seconds[name], 3) for name in TOP_LEVEL}
    found["setupParts"] = {
        name: round(
            sum(parts.get(when, {}).get(name, 0.0) for when in ("setup", "call")), 3
        )
        for name in SETUP_PARTS
    }
    return found


def slowest_phase(phases: Mapping[str, Any] | None) -> tuple[str, float] | None:
    """The top-level phase that took longest (the first of equals), if any."""
    if not phases:
        return None
    name = max(TOP_LEVEL, key=lambda n: float(phases.get(n, 0.0)))
    return name, float(phases.get(name, 0.0))


@dataclass(frozen=True)
class Timed:
    """One item's name, duration and phases (None for reports without them)."""

    name: str
    seconds: float
    phases: Mapping[str, Any] | None = None


def slowest_lines(items: Iterable[Timed], count: int = SLOWEST_COUNT) -> list[str]:
    """`count` slowest items, longest first (name breaks ties), each with its slowest phase."""
    ranked = sorted(items, key=lambda t: (-t.seconds, t.name))[:count]
    lines = []
    for item in ranked:
        phase = slowest_phase(item.phases)
        where = f"; slowest phase {phase[0]} {phase[1]:.1f} s" if phase else ""
        lines.append(f"{item.seconds:7.1f} s  {item.name}{where}")
    return lines
