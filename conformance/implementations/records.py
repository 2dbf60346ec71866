"""The ConfigMap that says what is installed under an instance ID and which run holds it.

`kube-system/wpc-instance-<id>` carries, as strings:

- the owner, what is installed: `implementation`, `profile` (its path),
  `namespace`, `layout`, `ref` and `build`;
- the holder, the run using the ID now: `session`, `host`, `pid`, `renewedAt`
  (the API server's time of its last renewal) and `leaseSeconds` (how long
  the hold outlives that renewal); all absent once the run released it.

Records written before the holder and the ref existed read as released, with
an empty ref (`Owner.same_build` then compares the implementation alone).

Every write is conditional, so that the record is a lock between runs on any
machines that share the cluster: `create` never replaces (of two runs that
found no record, the API server lets exactly one create it, the other gets 409
AlreadyExists); `replace` and `delete` carry the resourceVersion that was read
(409 Conflict, or 404, when anyone wrote since). Each returns False when it
lost, and the caller reads again and judges what it finds.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import logging
from dataclasses import dataclass
from typing import Any

from conformance.harness.cluster import kube

logger = logging.getLogger(__name__)

RECORD_NAMESPACE = "kube-system"


@dataclass(frozen=True)
class Owner:
    """What is installed under an instance ID: which implementation, at which ref and build."""

    implementation: str
    profile: str
    namespace: str
    layout: str = ""
    ref: str = ""
    """The profile's `ref` variable, else its version; '' in a record from before refs."""
    build: str = ""
    """The build key: the profile's image references (they carry the `{build}` tag)."""

    def same_build(self, other: Owner) -> bool:
        """Whether `other` is this implementation at this ref and build.

        A record from before refs were recorded says its implementation only;
        that is all there is to compare.
        """
        if self.implementation != other.implementation:
            return False
        if not self.ref or not other.ref:
            return True
        return (self.ref, self.build) == (other.ref, other.build)

    def describe(self) -> str:
        """`'reference' at ref 0.1.0 (build ...)`, for messages."""
        return (
            f"{self.implementation!r} at ref {self.ref or '(not recorded)'} "
            f"(build {self.build or '(not recorded)'})"
        )


@dataclass(frozen=True)
class Holder:
    """The run that holds an instance ID, and until when its hold lasts unrenewed."""

    session: str
    host: str
    pid: int
    renewed: datetime.datetime
    """The API server's time when the holder last renewed (timezone-aware)."""
    lease_seconds: float

    @property
    def expires(self) -> datetime.datetime:
        """When the hold runs out unless renewed (API server's clock)."""
        return self.renewed + datetime.timedelta(seconds=self.lease_seconds)

    def renewed_at(self, now: datetime.datetime) -> Holder:
        """This holder, renewed at `now`."""
        return dataclasses.replace(self, renewed=now)


@dataclass(frozen=True)
class Record:
    """A record as read, with the resourceVersion a conditional write needs."""

    owner: Owner
    holder: Holder | None
    """None: released (no run uses the ID now)."""
    version: str


def name(instance_id: str) -> str:
    """The ConfigMap that records `instance_id`."""
    return f"wpc-instance-{instance_id}"


EPOCH = datetime.datetime.fromtimestamp(0, datetime.UTC)


def _time(text: str) -> datetime.datetime:
    """An ISO time; a malformed one (a hand-edited record) counts as long past."""
    try:
        found = datetime.datetime.fromisoformat(text)
    except ValueError:
        return EPOCH
    return found if found.tzinfo else found.replace(tzinfo=datetime.UTC)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def _holder(data: dict[str, str]) -> Holder | None:
    session = data.get("session", "")
    if not session:
        return None
    return Holder(
        session=session,
        host=data.get("host", "unknown"),
        pid=int(_number(data.get("pid", "0"))),
        renewed=_time(data.get("renewedAt", "")),
        lease_seconds=_number(data.get("leaseSeconds", "0")),
    )


def _data(owner: Owner, holder: Holder | None) -> dict[str, str]:
    data = {
        "implementation": owner.implementation,
        "profile": owner.profile,
        "namespace": owner.namespace,
        "layout": owner.layout,
        "ref": owner.ref,
        "build": owner.build,
    }
    if holder is not None:
        data |= {
            "session": holder.session,
            "host": holder.host,
            "pid": str(holder.pid),
            "renewedAt": holder.renewed.isoformat(),
            "leaseSeconds": f"{holder.lease_seconds:g}",
        }
    return data


def _body(
    instance_id: str, owner: Owner, holder: Holder | None, version: str = ""
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name(instance_id),
        "labels": {kube.MANAGED_BY: kube.MANAGED_BY_VALUE},
    }
    if version:
        metadata["resourceVersion"] = version
    return {"metadata": metadata, "data": _data(owner, holder)}


def _status(exc: Exception) -> int | None:
    return getattr(exc, "status", None)


def read(clients: kube.Clients, instance_id: str) -> Record | None:
    """The record of `instance_id`, or None."""
    from kubernetes.client.exceptions import ApiException

    try:
        cm = clients.core.read_namespaced_config_map(
            name(instance_id), RECORD_NAMESPACE
        )
    except ApiException as exc:
        if _status(exc) == 404:
            return None
        raise
    data = dict(cm.data or {})
    owner = Owner(
        implementation=data.get("implementation", "unknown"),
        profile=data.get("profile", "unknown"),
        namespace=data.get("namespace", "unknown"),
        layout=data.get("layout", ""),
        ref=data.get("ref", ""),
        build=data.get("build", ""),
    )
    return Record(
        owner=owner, holder=_holder(data), version=str(cm.metadata.resource_version)
    )


def create(
    clients: kube.Clients, instance_id: str, *, owner: Owner, holder: Holder
) -> bool:
    """Create the record; False if one exists (409 AlreadyExists): never replaces."""
    from kubernetes.client.exceptions import ApiException

    try:
        clients.core.create_namespaced_config_map(
            RECORD_NAMESPACE, _body(instance_id, owner, holder)
        )
    except ApiException as exc:
        if _status(exc) == 409:
            return False
        raise
    return True


def replace(
    clients: kube.Clients,
    instance_id: str,
    *,
    version: str,
    owner: Owner,
    holder: Holder | None,
) -> bool:
    """Replace the record read at `version`; False if it changed or went since."""
    from kubernetes.client.exceptions import ApiException

    try:
        clients.core.replace_namespaced_config_map(
            name(instance_id),
            RECORD_NAMESPACE,
            _body(instance_id, owner, holder, version),
        )
    except ApiException as exc:
        if _status(exc) in {404, 409}:
            return False
        raise
    return True


def delete(clients: kube.Clients, instance_id: str, *, version: str) -> bool:
    """Delete the record read at `version`; False if it changed or went since."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    try:
        clients.core.delete_namespaced_config_map(
            name(instance_id),
            RECORD_NAMESPACE,
            body=client.V1DeleteOptions(
                preconditions=client.V1Preconditions(resource_version=version)
            ),
        )
    except ApiException as exc:
        if _status(exc) in {404, 409}:
            return False
        raise
    return True


def server_now(clients: kube.Clients) -> datetime.datetime:
    """The API server's time (the Date of its reply): one clock for runs on any machine.

    Leases are written and judged on it, so two machines that share a cluster
    need not agree on the time. Without a Date header (no API server we know
    omits it) this machine's clock stands in, with a warning.
    """
    _data, _code, headers = clients.core.read_namespace_with_http_info(RECORD_NAMESPACE)
    said = (headers or {}).get("Date") or (headers or {}).get("date")
    if said:
        try:
            found = email.utils.parsedate_to_datetime(said)
        except (TypeError, ValueError):
            found = None
        if found is not None:
            return found if found.tzinfo else found.replace(tzinfo=datetime.UTC)
    logger.warning(
        "The API server's reply has no usable Date header (%r): judging instance "
        "leases on this machine's clock.",
        said,
    )
    return datetime.datetime.now(datetime.UTC)
