"""What one layout's run produced, before it is summarized."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from wpc.bench import samples


@dataclass
class LayoutResult:
    """Everything measured for one layout."""

    layout: str
    instance_id: str
    namespace: str
    count: int
    """Workflows submitted."""
    inflight: int
    """Workflows in flight at once."""
    samples: list[samples.Sample] = field(default_factory=list)
    """One per succeeded workflow with its markers."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    """One per failed workflow: name, reason, last observed state."""
    first_submit_boot: float | None = None
    """Boot clock of the first create request."""
    last_finish_boot: float | None = None
    """Boot clock of the last finish (or give-up) seen."""
    load: dict[str, Any] = field(default_factory=dict)
    """The host's load and the cluster's activity before and after the layout ran."""
    boot_epoch: float = 0.0
    """This host's wall-clock time of boot, measured when the layout started."""
    evidence: str | None = None
    """Directory of the namespace's evidence (`harness.inspecting.evidence`), when any failed."""

    @property
    def makespan(self) -> float | None:
        """First submission -> last workflow finished, in seconds."""
        if self.first_submit_boot is None or self.last_finish_boot is None:
            return None
        return self.last_finish_boot - self.first_submit_boot
