"""How a run reaches each of the two pod layouts: one controller instance per layout.

Argo picks the layout controller-wide, so one controller cannot serve both at
once. The suite therefore asks the profile for one controller instance per
layout, each with its own `instanceID`, and every workflow a test submits
carries `workflows.argoproj.io/controller-instanceid=<id>` of its layout's
instance. A test that must flip the layout mid-flight asks for a dedicated
instance instead (see `conformance.plugin.items.fixtures.dedicated_instance`). The layout
names themselves are Argo vocabulary (`conformance.contract`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
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


BOTH = "both"
"""The selection of every layout: the default of each verb that runs the suite."""
SELECTIONS = (*contract.LAYOUTS, BOTH)
"""What a layout selection may be, wherever it is given: `--layout` of `wpc run`,
`bench`, `qualify`, `history run`, `uninstall` and `chaos run`, the pytest plugin's
`--wpc-layout` and ini key, `WPC_CHAOS_LAYOUT`, the Makefile's `LAYOUT` (which spells
the list out once more; a test keeps the two equal)."""


def refusal(value: str, allowed: Sequence[str] = SELECTIONS) -> str:
    """Why `value` is refused, the same words everywhere: `must be a, b or c, not 'x'`."""
    *first, last = allowed
    return f"must be {', '.join(first)} or {last}, not {value!r}"


def parse_selection(value: str, *, source: str = "--layout") -> tuple[str, ...]:
    """`legacy`, `initless` or `both` as the layouts it selects; ValueError names `source`."""
    if value not in SELECTIONS:
        raise ValueError(f"{source} {refusal(value)}")
    return contract.LAYOUTS if value == BOTH else (value,)


def parse_layout(value: str, *, source: str = "--layout") -> str:
    """One layout, where a run serves exactly one; ValueError names `source`."""
    if value not in contract.LAYOUTS:
        raise ValueError(f"{source} {refusal(value, contract.LAYOUTS)}")
    return value


def metavar(allowed: Sequence[str] = SELECTIONS) -> str:
    """How a command's help shows the choices: as argparse shows its own `choices`."""
    return "{" + ",".join(allowed) + "}"


def selection_argument(text: str) -> str:
    """An argparse (and pytest option) type: a layout selection, checked, as given.

    Not argparse's `choices`, so that its message is `refusal`'s: argparse prefixes
    the flag (`argument --layout: must be legacy, initless or both, not 'x'`).
    """
    if text not in SELECTIONS:
        raise argparse.ArgumentTypeError(refusal(text))
    return text


def layout_argument(text: str) -> str:
    """An argparse type: exactly one layout, checked, as given."""
    if text not in contract.LAYOUTS:
        raise argparse.ArgumentTypeError(refusal(text, contract.LAYOUTS))
    return text


def add_argument(parser: argparse.ArgumentParser, *, help: str | None = None) -> None:
    """`--layout legacy|initless|both` (default both), kept as the text given.

    The flag of every verb that selects layouts; `parse_selection` expands it.
    """
    parser.add_argument(
        "--layout",
        type=selection_argument,
        metavar=metavar(),
        default=BOTH,
        help=help,
    )
