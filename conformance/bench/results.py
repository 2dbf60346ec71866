"""What one layout's run produced, before it is summarized."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from reference_impl.bench import samples


@dataclass
class LayoutResult:
    """Everything measured for one layout."""

    layout: str
    instance_id: str
    count: int
    """Workflows submitted."""
    concurrency: int
    """Workflows in flight at once."""
    samples: list[samples.Sample] = field(default_factory=list)
    """One per succeeded workflow with a start marker."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    """One per failed workflow: name, reason, last observed state, pod evidence."""
    first_submit_boot: float | None = None
    """Boot clock of the first create request."""
    last_finish_boot: float | None = None
    """Boot clock of the last finish (or give-up) seen."""
    load: dict[str, Any] = field(default_factory=dict)
    """`evidence.load_snapshot` before and after the layout ran."""
    boot_epoch: float = 0.0
    """This host's wall-clock time of boot, measured when the layout started."""
