"""How long a run's hold on an instance ID lasts, and when its run is proven dead.

A run that takes an instance record (`ownership`) holds it under a lease:
every RENEW_SECONDS a thread of the run (`Keeper`) writes the API server's
time into the record, and the run releases the record at its end. A holder
is proven dead, and its record may be taken over, when either

- its lease ran out: no renewal for its `leaseSeconds` (LEASE_SECONDS when
  this suite wrote it), judged on the API server's clock (`records.server_now`),
  so it holds for runs on other machines whatever their clocks say; this is
  the rule, and the only one for a run on another machine; or
- it ran on this host and its session's life lock (`locking.hold_for_life`)
  is free: the kernel released it, the process is gone. This only shortens the
  wait after a run killed here (the next run need not wait for the lease).

Anything else (a run on another host that stopped renewing less than the
lease ago) may still run: a run refuses, and `uninstall --force` is the way to
declare it abandoned. A run whose process is stopped (SIGSTOP, a suspended
laptop) for longer than the lease loses its hold; its keeper then says so in
the log at its next beat, and releases nothing it no longer holds.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime
import logging
import os
import socket
import threading
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass

from conformance.harness.cluster import kube
from conformance.harness.instances import locking
from conformance.implementations import records

logger = logging.getLogger(__name__)

LEASE_SECONDS = 120.0
"""A hold outlives its last renewal by this long (API server's clock): the bound
after which a run that stopped renewing (killed elsewhere, its machine gone, cut
off from the API server) is proven dead."""

RENEW_SECONDS = 15.0
"""How often a run renews its holds: eight renewals fit in one lease, so a
run survives API server hiccups of well over a minute."""

ATTEMPTS = 3
"""Conditional writes tried per step before giving up on a record that keeps changing."""


@dataclass(frozen=True)
class Held:
    """An instance record this process holds for session `session_id`."""

    instance_id: str
    session_id: str
    created: bool
    """True when this run created the record (there was none): nothing of its
    own is installed yet, so letting it go before install deletes it."""


def holder(session_id: str, now: datetime.datetime) -> records.Holder:
    """This process as the holder of a record, renewed at `now`."""
    return records.Holder(
        session=session_id,
        host=socket.gethostname(),
        pid=os.getpid(),
        renewed=now,
        lease_seconds=LEASE_SECONDS,
    )


def why_dead(
    held_by: records.Holder, *, now: datetime.datetime, life_locks: str
) -> str | None:
    """Why `held_by`'s run is proven dead, or None while it may still run.

    `life_locks` keys this host's session locks (the API server's URL).
    """
    if now >= held_by.expires:
        late = (now - held_by.renewed).total_seconds()
        return (
            f"its lease ran out: last renewed {late:.0f} s ago, its bound is "
            f"{held_by.lease_seconds:g} s"
        )
    lock = locking.session_lock_name(held_by.session)
    if (
        held_by.host == socket.gethostname()
        and locking.NAME.match(lock)
        and locking.liveness(lock, cluster=life_locks) == locking.DEAD
    ):
        return (
            f"its process (pid {held_by.pid}) is gone from this host ({held_by.host})"
        )
    return None


def _ours(record: records.Record | None, session_id: str) -> bool:
    return (
        record is not None
        and record.holder is not None
        and record.holder.session == session_id
    )


def _lost(record: records.Record | None) -> str:
    if record is None:
        return "its record is gone (removed by `uninstall --force`?)"
    if record.holder is None:
        return "its record was released by another process"
    return (
        f"session {record.holder.session} (host {record.holder.host}, pid "
        f"{record.holder.pid}) took it over"
    )


def renew(clients: kube.Clients, held: Held) -> str | None:
    """Renew `held`'s lease; None when renewed, else why it is no longer held."""
    for _ in range(ATTEMPTS):
        record = records.read(clients, held.instance_id)
        if not _ours(record, held.session_id):
            return _lost(record)
        assert record is not None
        assert record.holder is not None
        if records.replace(
            clients,
            held.instance_id,
            version=record.version,
            owner=record.owner,
            holder=record.holder.renewed_at(records.server_now(clients)),
        ):
            return None
    logger.warning(
        "The record of instance ID %s changed %d times while this run renewed it; "
        "trying again at the next beat.",
        held.instance_id,
        ATTEMPTS,
    )
    return None


def release(clients: kube.Clients, held: Held, *, forget: bool = False) -> None:
    """Release `held` if this run still holds it: clear the holder, or delete it (`forget`).

    The owner stays recorded on release: what the run installed stays installed
    for the next run. `forget` is for a record whose instance is gone (or was
    never installed).
    """
    for _ in range(ATTEMPTS):
        record = records.read(clients, held.instance_id)
        if not _ours(record, held.session_id):
            logger.info(
                "Not releasing instance ID %s: this run no longer holds it (%s).",
                held.instance_id,
                _lost(record),
            )
            return
        assert record is not None
        done = (
            records.delete(clients, held.instance_id, version=record.version)
            if forget
            else records.replace(
                clients,
                held.instance_id,
                version=record.version,
                owner=record.owner,
                holder=None,
            )
        )
        if done:
            return
    logger.warning(
        "Could not release instance ID %s: its record kept changing; its lease "
        "runs out %g s after this run's last renewal.",
        held.instance_id,
        LEASE_SECONDS,
    )


def let_go(clients: kube.Clients, held: Held) -> None:
    """Give up `held` before installing under it: delete a record this run created."""
    release(clients, held, forget=held.created)


class Keeper:
    """Renews this run's holds every RENEW_SECONDS in a daemon thread until released."""

    def __init__(
        self,
        clients: kube.Clients,
        held: Iterable[Held],
        *,
        every: float = RENEW_SECONDS,
    ) -> None:
        self.clients = clients
        self.every = every
        self._held = list(held)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._beat, name="wpc-instance-lease", daemon=True
        )

    def start(self) -> Keeper:
        """Start renewing."""
        self._thread.start()
        return self

    def holds(self) -> list[Held]:
        """What this keeper still renews."""
        with self._lock:
            return list(self._held)

    def _drop(self, held: Held) -> bool:
        with self._lock:
            if held not in self._held:
                return False
            self._held.remove(held)
            return True

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            for held in self.holds():
                try:
                    lost = renew(self.clients, held)
                except Exception as exc:  # broad on purpose: retried at the next beat, within the lease
                    logger.warning(
                        "Could not renew the lease on instance ID %s (retrying in %g s): %s",
                        held.instance_id,
                        self.every,
                        exc,
                    )
                    continue
                if lost is not None and self._drop(held):
                    logger.error(
                        "This run no longer holds instance ID %s: %s. Another run may "
                        "install under it while this one still uses it.",
                        held.instance_id,
                        lost,
                    )

    def let_go(self, held: Held) -> None:
        """Stop renewing `held` and give it up (`let_go`): the run will not install it."""
        if self._drop(held):
            let_go(self.clients, held)

    def release(self, *, forget: bool = False) -> None:
        """Stop renewing; release (or `forget`) every record still held."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        for held in self.holds():
            self._drop(held)
            try:
                release(self.clients, held, forget=forget)
            except Exception as exc:  # broad on purpose: the lease runs out by itself
                logger.warning(
                    "Could not release instance ID %s (its lease runs out %g s after "
                    "the last renewal): %s",
                    held.instance_id,
                    LEASE_SECONDS,
                    exc,
                )


def hold_for_life(clients: kube.Clients, held: Iterable[Held]) -> Keeper:
    """Renew `held` for the rest of this process's life; release it when the process exits.

    A process killed outright releases nothing: its lease runs out, or the next
    run on this host finds its life lock free (`why_dead`).
    """
    keeper = Keeper(clients, held).start()
    atexit.register(keeper.release)
    return keeper


@contextlib.contextmanager
def kept(
    clients: kube.Clients, held: Iterable[Held], *, forget: bool = False
) -> Iterator[Keeper]:
    """Renew `held` while the block runs; release (or `forget`) it afterwards."""
    keeper = Keeper(clients, held).start()
    try:
        yield keeper
    finally:
        keeper.release(forget=forget)
