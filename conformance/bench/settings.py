"""What the benchmark runs and how long each wait may take."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

LAYOUTS = ("legacy", "initless")
"""The pod layouts the reference implementation offers, in the order they are run."""


@dataclass(frozen=True)
class Timeouts:
    """Every bounded wait of the benchmark, in seconds."""

    namespace_ready: float = 60.0
    """The bench namespace's `default` ServiceAccount exists (created asynchronously
    by kube-controller-manager; pods cannot be created before it)."""

    workflow_picked_up: float = 120.0
    """A submitted workflow gets a `status.phase`. Longer means no controller with
    the layout's instance ID is running: the whole run stops with an error."""

    workflow_completed: float = 300.0
    """A submitted workflow reaches Succeeded, Failed or Error. Longer counts that
    workflow as a failure (with its last observed state) and the run goes on."""

    namespace_deleted: float = 180.0
    """The bench namespace is gone after the delete (pods terminate, finalizers go)."""

    watch_window: float = 10.0
    """Server-side timeout of one watch request; the watch is re-opened after it,
    and a stop request is noticed within it."""

    api_request: float = 30.0
    """Client-side timeout of one API request (create, read, logs)."""

    poll_interval: float = 1.0
    """Interval of the polled waits (namespace ready, namespace deleted)."""


@dataclass(frozen=True)
class BenchSettings:
    """One benchmark run."""

    count: int = 50
    """Workflows per layout (the issue asks for 50)."""

    concurrency: int = 5
    """Workflows in flight at once per layout: a new one is submitted as soon as one
    finishes. 5 is a realistic small-team load for a 2-core single-node cluster."""

    layouts: tuple[str, ...] = LAYOUTS
    """Layouts to measure, run one after the other (never concurrently)."""

    instance_ids: dict[str, str] = field(
        default_factory=lambda: {layout: f"wpc-{layout}" for layout in LAYOUTS}
    )
    """Controller instance ID serving each layout (`make cluster-up` installs
    `wpc-legacy` and `wpc-initless`)."""

    image: str = "wpc.local/wpc-tools:0.1.0"
    """Image of the one-pod workflow's main container (busybox `sh`, `date`)."""

    session_id: str = ""
    """Value of the `wpc.dev/session-id` label; empty means a fresh random one."""

    timeouts: Timeouts = field(default_factory=Timeouts)
    """The named timeouts above."""
