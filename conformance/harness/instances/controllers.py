"""What a scenario can do to a controller instance: the `controller` fixture's type.

The profile decides how each of these happens (its `restart`, `stop`, ...
commands, run by `conformance.implementations.driving`); a scenario only
names what it needs, so it is written once for every implementation.
"""

from __future__ import annotations

from typing import Any
from typing import Protocol

from conformance.harness.instances.layouts import Instance


class Controller(Protocol):
    """The profile's controller commands, bound to one controller instance."""

    @property
    def instance(self) -> Instance:
        """The instance these commands act on."""
        ...

    def restart(self) -> None:
        """Restart the instance's controller (the profile decides how)."""
        ...

    def stop(self) -> None:
        """Stop the instance's controller."""
        ...

    def start(self) -> None:
        """Start the instance's controller again."""
        ...

    def set_layout(self, layout: str) -> None:
        """Switch the instance to another layout (controller-wide in Argo)."""
        ...

    def set_status_finalizer(self, *, enabled: bool) -> None:
        """Switch the pod status-capture finalizer of the instance."""
        ...

    def set_config(self, key: str, value: Any) -> None:
        """Set top-level configuration field `key` to `value` (None removes it)."""
        ...
