"""Run a session's faults as one batch, record each verdict, and sum them up.

`Verdicts.get()` runs every fault selected in the session on first demand, PARALLEL
at a time (under pytest-xdist a worker runs only the faults it is given), and writes
each verdict to `reports/negative-controls/faults/<fault>.json` as it arrives.
`write_summary()` gathers the verdicts written since the session started into
`reports/negative-controls.yaml` (schema: `conformance/negative-controls.schema.json`),
so a session that runs a few faults with `-k` sums up just those and lists the rest
as not run (`unrun`: each fault with why), beside the commit and spec version the
session measured.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import yaml

from conformance.report.scores.provenance import Provenance
from tests.negative import controls
from tests.negative import runner
from tests.negative import scoring
from tests.negative import unrun

OUT_DIR = runner.REPO / "reports" / "negative-controls"
SUMMARY = OUT_DIR.with_suffix(".yaml")
PARALLEL = 4
"""Faults run side by side: most of a fault's time is waiting on the cluster (a
killer sitting out a spec bound, pods starting), and a row's uninstall no longer
holds its slot (`runner.run_faults`)."""
WORKERS = 2
"""pytest-xdist workers of each fault's suite run (its killers and canaries)."""


def record(verdict: scoring.Verdict, out_dir: Path = OUT_DIR) -> Path:
    """Write one fault's verdict where the session summary will find it."""
    path = out_dir / "faults" / f"{verdict.control.fault}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(scoring.verdict_json(verdict), indent=2))
    return path


def as_verdict(control: controls.Control, outcome: runner.Outcome) -> scoring.Verdict:
    """A run that raised becomes an `error` verdict carrying the first line."""
    if isinstance(outcome, scoring.Verdict):
        return outcome
    first = (str(outcome).splitlines() or [type(outcome).__name__])[0]
    return scoring.Verdict(control, scoring.ERROR, (), (first,), (), 0.0)


@dataclass
class Verdicts:
    """Runs the session's faults on first demand, PARALLEL at a time."""

    target: runner.Target
    selected: tuple[controls.Control, ...]
    """The session's non-pending rows, in table order (slowest first)."""
    batch: bool
    """False in a pytest-xdist worker, which runs only the rows it is given."""
    results: dict[str, runner.Outcome] = field(default_factory=dict)

    def _done(self, control: controls.Control, outcome: runner.Outcome) -> None:
        self.results[control.fault] = outcome
        record(as_verdict(control, outcome), self.target.out_dir)

    def get(self, control: controls.Control) -> runner.Outcome:
        """The outcome of `control`'s run (running the batch if not done yet)."""
        if control.fault not in self.results:
            rows = [r for r in self.selected if r.fault not in self.results]
            runner.run_faults(
                rows if self.batch and control in rows else [control],
                self.target,
                parallel=PARALLEL,
                workers=WORKERS,
                done=self._done,
            )
        return self.results[control.fault]


def write_summary(
    *, started: float, measured_on: Provenance, out_dir: Path = OUT_DIR
) -> dict[str, Any] | None:
    """Sum up the verdicts written since `started`; None (and no file) if there are none.

    `measured_on`: the code and spec the session started on (see `scoring.summary`).
    """
    folder = out_dir / "faults"
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    entries = [json.loads(p.read_text()) for p in paths if p.stat().st_mtime >= started]
    if not entries:
        return None
    known = controls.Known.discover()
    table = controls.load(known=known)
    rows = [r for r in table if r.status != controls.CHAOS]
    order = {row.fault: i for i, row in enumerate(rows)}
    entries.sort(key=lambda e: order.get(str(e["fault"]), len(order)))
    document = scoring.summary(
        entries,
        must=known.must,
        not_run=unrun.not_run(
            table,
            known=known.faults,
            ran=(str(e["fault"]) for e in entries if e["status"] != controls.PENDING),
        ),
        duration=time.time() - started,
        measured_on=measured_on,
    )
    scoring.validate(document)
    out_dir.with_suffix(".yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    return document
