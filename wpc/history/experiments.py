"""The chaos experiments a history names as killers, held to those that exist.

A fix's `experiment` (conformance/spec/history.yaml) names a chaos experiment
by its report name and, optionally, the layouts it is judged in. The spec
package cannot check it (the suite never imports chaos), so `history` does, as
it loads the file: the name must be an experiment document of chaos/experiments/
(its `wpc` extension's `experiment`), and each layout one it declares, so a
typo is refused before any tag is built rather than judged "not run" an hour
later.
"""

from __future__ import annotations

from collections.abc import Mapping

from chaos.suite import experimenting
from conformance import contract
from conformance.spec.history import History


def declared() -> dict[str, tuple[str, ...]]:
    """Every shipped experiment's report name and the layouts it declares."""
    found: dict[str, list[str]] = {}
    for path, layout in experimenting.cases(contract.LAYOUTS):
        found.setdefault(experimenting.name_of(path), []).append(layout)
    return {name: tuple(layouts) for name, layouts in found.items()}


def problems(
    history: History, experiments: Mapping[str, tuple[str, ...]] | None = None
) -> list[str]:
    """What is wrong with the experiments the fixes name; empty when nothing is.

    `experiments`: name -> declared layouts (default: the shipped ones).
    """
    known = declared() if experiments is None else experiments
    found: list[str] = []
    for fix in history.fixes:
        named = fix.experiment
        if named is None:
            continue
        if named.name not in known:
            found.append(
                f"{fix.id}: experiment {named.name} does not exist (the experiments: "
                f"{', '.join(sorted(known))})"
            )
            continue
        undeclared = [lay for lay in named.layouts if lay not in known[named.name]]
        if undeclared:
            found.append(
                f"{fix.id}: experiment {named.name} declares the layouts "
                f"{', '.join(known[named.name])}, not {', '.join(undeclared)}"
            )
    return found
