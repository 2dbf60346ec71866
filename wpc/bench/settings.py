"""What one benchmark run measures, and the two waits only the benchmark has.

Every other wait (API requests, namespace deletion, a workflow's completion,
profile commands) is one of the suite's named timeouts
(`conformance.harness.cluster.timeouts.Timeouts`), so a slow machine is scaled once
with `--timeout-scale` for the suite and the benchmark alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from conformance import contract
from conformance.harness.cluster.timeouts import Timeouts

INSTANCE_PREFIX = "wpc-bench"
"""The benchmark installs its own instance per layout, `wpc-bench-<layout>`, so it
never touches (nor uninstalls) the suite's shared `wpc-<layout>` instances, and a
run that crashed is cleaned up by the next one's idempotent install/uninstall."""

SHORT_NAME = "Bench"
"""The `wpc.dev/test` label value and namespace stem of everything the bench creates."""


@dataclass(frozen=True)
class BenchSettings:
    """One benchmark run; each field's docstring explains its default."""

    implementation: str = "reference"
    """Profile name (`conformance/profiles/<name>.yaml`) or path, as for the suite."""

    profile_vars: tuple[tuple[str, str], ...] = ()
    """The profile's variables (`--profile-var NAME=VALUE`), as for the suite: upstream
    built from a checkout needs `source` and `ref`."""

    workflows: int = 50
    """Workflows per layout: enough for a stable median and p90 in ~2 min per layout
    on the 2-core local cluster (issue #10 asks for the side-by-side table)."""

    inflight: int = 5
    """Workflows in flight at once per layout: the next is submitted as soon as one
    finishes. 5 is a realistic small-team load for a 2-core single-node cluster."""

    layouts: tuple[str, ...] = contract.LAYOUTS
    """Layouts to measure, one after the other (never concurrently), each with its
    own freshly installed controller instance."""

    prepare: bool = True
    """Run the profile's `prepare` commands first (build and load images, shared
    objects), as the suite does; `--skip-prepare` when they are already loaded."""

    reports_dir: Path = Path("reports")
    """Where the YAML result (`bench-<implementation>.yaml`), the profile commands'
    logs (`logs/`) and failure evidence (`bench-evidence/`) go."""

    picked_up: float = 120.0
    """A submitted workflow gets a `status.phase`. Longer means no controller with
    the layout's instance ID serves it: the whole run stops with a WaitTimeout."""

    watch_window: float = 10.0
    """Server-side timeout of one watch request; the watch is re-opened after it,
    and a stop request is noticed within it."""

    timeouts: Timeouts = field(default_factory=Timeouts)
    """The suite's named timeouts: `api_call`, `workflow_completed` (a workflow
    still unfinished then counts as a failure), `namespace_deleted`, `install`."""

    def instance_id(self, layout: str) -> str:
        """The controller instance ID the benchmark installs for `layout`."""
        return f"{INSTANCE_PREFIX}-{layout}"
