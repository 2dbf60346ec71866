"""Which provider's cluster holds the machine: one cluster runs at a time.

The project's machines have two cores and one set of host ports and sysctls,
so `up` of one provider refuses while another provider's cluster runs, and
names it. A small file, `<WPC_STATE_DIR>/holder.json`, says who holds the
machine; it is trusted only while that provider still reports the cluster
running, so a crash never locks the machine for good. Clusters made before
the file existed are found by asking the providers.

This module knows no provider: the providers read it (kind's recorded engine),
so asking them is the caller's part (`clusters.operating` hands `claim` its
`running` and `discover`).
"""

from __future__ import annotations

import datetime
import json
import logging
import os
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from clusters.errors import ProviderError

logger = logging.getLogger(__name__)

HOLDING_PROVIDERS = ("local", "kind", "k3d")
"""Providers whose clusters run on this machine (`existing` only points elsewhere)."""


@dataclass(frozen=True)
class Holder:
    """The cluster that holds the machine."""

    provider: str
    name: str
    since: str = ""
    details: Mapping[str, str] = field(default_factory=dict)
    """How the provider made it (kind: Docker mode, engine, given node image), so
    later verbs in other processes find the same engine."""

    def same(self, other: Holder) -> bool:
        """True for the same provider and cluster name."""
        return (self.provider, self.name) == (other.provider, other.name)


def holder_file() -> Path:
    """Where the holder is written (WPC_STATE_DIR, see docs/environment-variables.md)."""
    return Path(os.environ.get("WPC_STATE_DIR", "/var/lib/wpc")) / "holder.json"


def read(path: Path) -> Holder | None:
    """The recorded holder, or None (no file, or not ours to parse)."""
    try:
        data = json.loads(path.read_text())
        details = data.get("details") or {}
        return Holder(
            provider=data["provider"],
            name=data["name"],
            since=data.get("since", ""),
            details={str(k): str(v) for k, v in dict(details).items()},
        )
    except (OSError, ValueError, KeyError):
        return None


def claim(
    path: Path,
    wanted: Holder,
    *,
    running: Callable[[Holder], bool],
    discover: Callable[[], list[Holder]],
) -> None:
    """Record `wanted` as the holder, or raise ProviderError naming who holds the machine."""
    recorded = read(path)
    others = [recorded] if recorded and running(recorded) else discover()
    for other in others:
        if not other.same(wanted):
            raise ProviderError(
                f"the machine's one cluster is the {other.provider} cluster "
                f"{other.name!r}{f' (up since {other.since})' if other.since else ''}; "
                "only one cluster runs at a time. Bring it down first: "
                f"python -m clusters down --provider {other.provider} --name {other.name}"
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    since = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    record: dict[str, object] = {
        "provider": wanted.provider,
        "name": wanted.name,
        "since": since,
    }
    if wanted.details:
        record["details"] = dict(wanted.details)
    path.write_text(json.dumps(record) + "\n")


def recorded_details(provider: str) -> dict[str, str]:
    """The recorded holder's details if `provider` holds the machine, else none."""
    holder = read(holder_file())
    return dict(holder.details) if holder and holder.provider == provider else {}


def release(path: Path, leaving: Holder) -> None:
    """Forget the holder if it is `leaving` (idempotent)."""
    recorded = read(path)
    if recorded is not None and recorded.same(leaving):
        path.unlink(missing_ok=True)
