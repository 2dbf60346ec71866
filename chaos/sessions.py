"""The state one experiment run carries from activity to activity.

Chaostoolkit activities are plain functions called one after the other with
the run's `configuration`; they share nothing else. An experiment needs more:
the namespace and the recorder made at the start, the workflows it submitted,
when the fault began and ended, and the evidence that it landed. The
control (`chaos.lifecycle.control`) opens a `Session` before the experiment and puts
its id in the configuration (`wpc_session`); every activity finds it with
`current(configuration)`. chaoslib runs one experiment per process at a time
("chaoslib isn't meant to be used concurrently", chaoslib/control), so a
registry of open sessions is all the sharing there is.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import TypeVar

from chaos.declarations import Declaration
from chaos.errors import SessionError
from chaos.settings import ChaosSettings
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances.layouts import Instance
from conformance.harness.workload import workflows as workflow_ops
from conformance.implementations import driving
from conformance.implementations import profiles

logger = logging.getLogger(__name__)

T = TypeVar("T")

SESSION_KEY = "wpc_session"
"""The configuration key holding the open session's id."""

BEFORE = "before"
METHOD = "method"
AFTER = "after"
ENDED = "ended"
"""Where the run is: before its method (the first steady-state hypothesis), in
it, after it (the second hypothesis, the rollbacks), or ended (the control's
last look, after the rollbacks); `chaos.lifecycle.control` moves it."""


@dataclass(frozen=True)
class Note:
    """One piece of evidence an activity recorded: when, what, by which activity."""

    at: float
    activity: str
    text: str


@dataclass(frozen=True)
class Failure:
    """An activity that failed, and why.

    `expectation`: the system under test did not do what it must;
    `unsupported`: the provider cannot inject the fault; `error`: the harness
    or the cluster broke.
    """

    activity: str
    kind: str
    message: str


@dataclass(frozen=True)
class Wait:
    """What the run waited for outside its method, in which phase, from when to when."""

    phase: str
    label: str
    start: float
    end: float


@dataclass
class FaultSpan:
    """When a fault was active; `end` is None while it still is."""

    label: str
    start: float
    end: float | None = None


@dataclass
class Session:
    """Everything one experiment run knows; see the module docstring."""

    session_id: str
    experiment: str
    settings: ChaosSettings
    profile: profiles.Profile
    instance: Instance
    driver: driving.Driver
    clients: kube.Clients
    timeouts: Timeouts
    run_dir: Path
    """`<reports>/chaos/<experiment>-<layout>/`: history, timeline, logs."""
    run_id: str
    """The labels' session id: everything this run creates carries it."""
    declaration: Declaration
    started: float = field(default_factory=time.time)
    namespace: str = ""
    recorder: Any = None
    workflows: dict[str, str] = field(default_factory=dict)
    """Alias (as experiments name them) -> submitted workflow name."""
    faults: list[FaultSpan] = field(default_factory=list)
    injections: list[Note] = field(default_factory=list)
    vulnerable: list[Note] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    restorers: dict[str, Callable[[], object]] = field(default_factory=dict)
    """Undo functions of faults still in force, by fault: the control runs
    what the rollbacks did not (an interrupted run plays no rollbacks)."""
    memo: dict[str, Any] = field(default_factory=dict)
    """What one activity leaves for a later one (a pod's uid, a pid)."""
    recorded: bool = False
    """Whether the recording began (so a history must exist)."""
    installed: bool = False
    """Whether this run installed the controller instance (and so removes it)."""
    phase: str = BEFORE
    """BEFORE, METHOD or AFTER the experiment's method (`chaos.lifecycle.control`)."""
    waits: list[Wait] = field(default_factory=list)
    """What the run waited for before its method (the last run's aftermath) or
    after its rollbacks (its own)."""

    @property
    def history_path(self) -> Path:
        """The JSONL history of the experiment's namespace."""
        return self.run_dir / "history.jsonl"

    @property
    def labels(self) -> dict[str, str]:
        """The labels of everything this run creates."""
        return kube.labels(
            session_id=self.run_id,
            short_name=f"chaos-{self.experiment}"[:63].rstrip("-"),
            layout=self.settings.layout,
        )

    def workflow_ops(self) -> workflow_ops.Workflows:
        """The harness's workflow operations in this run's namespace and instance."""
        if not self.namespace:
            raise SessionError("the experiment has no namespace yet (begin_experiment)")
        return workflow_ops.Workflows(
            clients=self.clients,
            namespace=self.namespace,
            labels=self.labels,
            instance=self.instance,
            timeouts=self.timeouts,
        )

    def controller(self) -> driving.InstanceController:
        """The profile's controller commands, bound to the chaos instance."""
        return driving.InstanceController(driver=self.driver, instance=self.instance)

    def workflow(self, alias: str) -> str:
        """The name of the workflow submitted as `alias`."""
        try:
            return self.workflows[alias]
        except KeyError:
            raise SessionError(
                f"no workflow submitted as {alias!r} (have: {sorted(self.workflows)})"
            ) from None

    def fault_began(
        self, label: str, restore: Callable[[], object] | None = None
    ) -> None:
        """Mark the start of a fault; `restore` undoes it if rollbacks never run."""
        self.faults.append(FaultSpan(label=label, start=time.time()))
        if restore is not None:
            self.restorers[label] = restore
        logger.info("[%s] Fault began: %s.", self.experiment, label)

    def fault_ended(self, label: str) -> None:
        """Mark the end of the latest open fault called `label` (no-op if none)."""
        self.restorers.pop(label, None)
        for span in reversed(self.faults):
            if span.label == label and span.end is None:
                span.end = time.time()
                logger.info("[%s] Fault ended: %s.", self.experiment, label)
                return

    def waited(self, label: str, start: float) -> None:
        """Record a wait in the current phase, from `start` until now."""
        self.waits.append(Wait(self.phase, label, start, time.time()))
        logger.info("[%s] %s: %.1f s.", self.experiment, label, time.time() - start)

    def injected(self, activity: str, text: str) -> None:
        """Record evidence that the fault landed."""
        self.injections.append(Note(time.time(), activity, text))
        logger.info("[%s] Injection verified: %s", self.experiment, text)

    def was_vulnerable(self, activity: str, text: str) -> None:
        """Record evidence that the workload was in the state the fault targets."""
        self.vulnerable.append(Note(time.time(), activity, text))
        logger.info("[%s] Vulnerable state: %s", self.experiment, text)


def poll(
    session: Session,
    check: Callable[[], T | NotYet],
    *,
    timeout: float,
    describe: str,
    consecutive: int = 1,
    ignoring: tuple[type[BaseException], ...] = (),
) -> T:
    """`check`'s first result that is not NotYet, polled at the session's interval.

    The one wait of the chaos activities: `timeout` is one of the session's
    named timeouts (or a sum of them, or an activity's own bound already
    scaled); on expiry the wait fails naming `describe` and the last NotYet.
    """
    return until(
        check,
        timeout=timeout,
        interval=session.timeouts.poll_interval,
        describe=describe,
        consecutive=consecutive,
        ignoring=ignoring,
    )


_OPEN: dict[str, Session] = {}


def new_id() -> str:
    """A fresh session id (also a valid label value)."""
    return uuid.uuid4().hex[:10]


def register(session: Session) -> None:
    """Make `session` findable by its id."""
    _OPEN[session.session_id] = session


def current(configuration: Mapping[str, Any] | None) -> Session:
    """The session of the run whose configuration this is; SessionError if none."""
    session_id = (configuration or {}).get(SESSION_KEY)
    session = _OPEN.get(str(session_id)) if session_id else None
    if session is None:
        raise SessionError(
            "no WPC chaos session is open: the experiment must declare the "
            "`chaos.lifecycle.control` control (see chaos/experiments/README.md)"
        )
    return session


def close(session: Session) -> None:
    """Forget `session`."""
    _OPEN.pop(session.session_id, None)
