"""Each side's own controller instance, installed and removed around the run.

Side A's instance is `wpc-diff-a-<layout>`, side B's `wpc-diff-b-<layout>`
(`instance_id`), in the namespace the profile's `controller.namespace` gives
for that ID: never the suite's shared instances, and never each other's, even
when A and B are the same profile. The run takes each ID's record before it
prepares anything (`implementations.ownership`, the same lock as a
conformance run); after the run the instance is uninstalled with the
profile's command (which waits for its deletion) and its record forgotten.
"""

from __future__ import annotations

import logging

from conformance.harness.instances.layouts import Instance
from conformance.implementations import driving
from conformance.implementations import preparing

logger = logging.getLogger(__name__)

INSTANCE_PREFIX = "wpc-diff"
SIDES = ("a", "b")


def instance_id(side: str, layout: str) -> str:
    """`wpc-diff-a-legacy`: the instance ID of `side` in `layout`."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, not {side!r}")
    return f"{INSTANCE_PREFIX}-{side}-{layout}"


def side_instance(driver: driving.Driver, *, side: str, layout: str) -> Instance:
    """The side's instance; HarnessError if it would land in a shared namespace.

    A profile whose controller namespace ignores `{instance_id}` would install
    over (and later uninstall) the suite's shared instance: refused.
    """
    return preparing.private_instance(
        driver.profile,
        layout=layout,
        instance_id=instance_id(side, layout),
        whose="the differential run's",
    )
