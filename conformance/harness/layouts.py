"""How a run reaches each of the two pod layouts: one controller instance per layout.

Argo picks the layout controller-wide, so one controller cannot serve both at
once. The suite therefore asks the profile for one controller instance per
layout, each with its own `instanceID`, and every workflow a test submits
carries `workflows.argoproj.io/controller-instanceid=<id>` of its layout's
instance. A test that must flip the layout mid-flight asks for a dedicated
instance instead (see `conformance.plugin.fixtures.dedicated_instance`). The layout
names themselves are Argo vocabulary (`conformance.contract`).
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance import contract


@dataclass(frozen=True)
class Instance:
    """One installed controller instance serving one layout."""

    layout: str
    instance_id: str
    namespace: str
    """Namespace the controller runs in (for its logs)."""

    def to_json(self) -> dict[str, str]:
        """Plain data, to cross the pytest-xdist process boundary."""
        return {
            "layout": self.layout,
            "instance_id": self.instance_id,
            "namespace": self.namespace,
        }

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Instance:
        """Inverse of `to_json`."""
        return cls(
            layout=data["layout"],
            instance_id=data["instance_id"],
            namespace=data["namespace"],
        )


def parse_selection(value: str) -> tuple[str, ...]:
    """Turn `--layout legacy|initless|both` into layout names."""
    if value == "both":
        return contract.LAYOUTS
    if value in contract.LAYOUTS:
        return (value,)
    raise ValueError(f"--layout must be legacy, initless or both, not {value!r}")
