"""Leader election with a `coordination.k8s.io/v1` Lease, so two replicas can run safely.

Same timings as Argo's (client-go defaults there): a lease lasts 15 s, the leader renews
every 5 s and gives up leadership when it could not renew for 10 s; a standby takes over
once the lease has expired. Like Argo, a replica that loses leadership stops working (the
process exits and is restarted), so there is never a moment with two leaders acting.
Each attempt is a plain function of the Lease and the clock, unit-testable without a cluster.

The leader also stamps its `annotations` on the Lease whenever it takes or renews it: the
process says what it is (the deliberate fault it runs with, for the negative controls),
where a reader finds it next to the identity that holds the Lease.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import threading
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import Protocol

from reference_impl.controller import errors
from reference_impl.controller.formats import timestamps

Json = dict[str, Any]
logger = logging.getLogger(__name__)


class LeaseApi(Protocol):
    """The Lease calls leader election needs."""

    def get_lease(self, namespace: str, name: str) -> Json | None:
        """Return the Lease or None."""
        ...

    def create_lease(self, lease: Json) -> Json:
        """Create the Lease."""
        ...

    def replace_lease(self, lease: Json) -> Json:
        """Replace the Lease (optimistic concurrency through resourceVersion)."""
        ...


@dataclasses.dataclass(frozen=True)
class Timing:
    """Leader-election timings in seconds (Argo's defaults)."""

    lease_seconds: int = 15
    renew_deadline_seconds: float = 10.0
    retry_seconds: float = 5.0


class LeaderElector:
    """Acquire and keep one Lease for one identity."""

    def __init__(
        self,
        *,
        api: LeaseApi,
        namespace: str,
        name: str,
        identity: str,
        clock: timestamps.Clock = timestamps.utc_now,
        timing: Timing | None = None,
        annotations: Mapping[str, str] | None = None,
    ) -> None:
        self._annotations = dict(annotations or {})
        self._api = api
        self._namespace = namespace
        self._name = name
        self._identity = identity
        self._clock = clock
        self._timing = timing or Timing()

    def try_acquire_or_renew(self) -> bool:
        """Make one attempt; return whether this identity holds the Lease afterwards."""
        now = self._clock()
        try:
            lease = self._api.get_lease(self._namespace, self._name)
            if lease is None:
                self._api.create_lease(self._new_lease(now))
                return True
            spec = lease.setdefault("spec", {})
            holder = spec.get("holderIdentity")
            if holder and holder != self._identity and not self._expired(spec, now):
                return False
            if holder != self._identity:
                spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + 1
                spec["acquireTime"] = _micro_time(now)
            spec["holderIdentity"] = self._identity
            spec["leaseDurationSeconds"] = self._timing.lease_seconds
            spec["renewTime"] = _micro_time(now)
            self._stamp(lease)
            self._api.replace_lease(lease)
            return True
        except errors.ApiError as err:
            logger.info(
                "Lease %s/%s not acquired by %s: %s",
                self._namespace,
                self._name,
                self._identity,
                err,
            )
            return False

    def run(self, *, stop: threading.Event, on_started: Callable[[], None]) -> None:
        """Wait for leadership, call `on_started`, then renew until renewal fails or `stop` is set.

        Returns when leadership is lost (the caller then stops the process) or on `stop`.
        """
        while not stop.is_set() and not self.try_acquire_or_renew():
            stop.wait(self._timing.retry_seconds)
        if stop.is_set():
            return
        logger.info(
            "Became the leader of Lease %s/%s as %s.",
            self._namespace,
            self._name,
            self._identity,
        )
        on_started()
        last_renewal = self._clock()
        while not stop.wait(self._timing.retry_seconds):
            if self.try_acquire_or_renew():
                last_renewal = self._clock()
            elif (
                self._clock() - last_renewal
            ).total_seconds() > self._timing.renew_deadline_seconds:
                logger.error(
                    "Lost the lease %s/%s; stopping.", self._namespace, self._name
                )
                return

    def _stamp(self, lease: Json) -> None:
        if self._annotations:
            metadata = lease.setdefault("metadata", {})
            metadata["annotations"] = {
                **(metadata.get("annotations") or {}),
                **self._annotations,
            }

    def _expired(self, spec: Json, now: datetime.datetime) -> bool:
        renewed = timestamps.parse_time(
            spec.get("renewTime") or spec.get("acquireTime")
        )
        duration = int(spec.get("leaseDurationSeconds") or self._timing.lease_seconds)
        return renewed is None or (now - renewed).total_seconds() > duration

    def _new_lease(self, now: datetime.datetime) -> Json:
        lease = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self._name, "namespace": self._namespace},
            "spec": {
                "holderIdentity": self._identity,
                "leaseDurationSeconds": self._timing.lease_seconds,
                "acquireTime": _micro_time(now),
                "renewTime": _micro_time(now),
                "leaseTransitions": 0,
            },
        }
        self._stamp(lease)
        return lease


def _micro_time(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
