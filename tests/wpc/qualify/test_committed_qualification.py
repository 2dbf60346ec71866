"""The committed v4.1.0 -> v4.1.2 qualification still reads as its README says.

We test these aspects on the real reports in `docs/results/qualify-v4.1.0-v4.1.2/`
(recomputed with `qualify --rediff` in a copy, with the shipped explanations):

- both upstream fixes issue 17 names are confirmed fixes (failed on every v4.1.0 run,
  passed on every v4.1.2 run);
- the one confirmed regression, WPC-FINALIZER-009, is explained, so the qualification
  does not regress; without the explanations it does;
- the flaky items stay listed as flaky.

Why: the diff code, the explanations file and the committed results must keep agreeing;
a change to any of them that turns the committed verdict around fails here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from wpc.qualify import qualifying

RESULTS = Path(__file__).parents[3] / "docs" / "results" / "qualify-v4.1.0-v4.1.2"


def _copy(tmp_path: Path) -> Path:
    out = tmp_path / "qualify-v4.1.0-v4.1.2"
    shutil.copytree(
        RESULTS, out, ignore=shutil.ignore_patterns("*.html", "*.md", "diff*")
    )
    return out


def _changes(outcome: qualifying.Outcome, kind: str) -> dict[tuple[str, str], str]:
    return {
        (c.new.short_name, c.new.layout): c.rerun.status
        for c in outcome.diff.of_kind(kind)
    }


def test_both_fixes_are_confirmed_and_the_regression_is_explained(tmp_path: Path):
    outcome = qualifying.rediff(_copy(tmp_path), explained=qualifying.DEFAULT_EXPLAINED)
    fixes = _changes(outcome, "fix")
    assert fixes[("RecoveryControllerSigterm", "legacy")] == "confirmed"
    assert fixes[("RecoveryControllerSigterm", "initless")] == "confirmed"
    assert fixes[("InitlessInputArtifacts", "initless")] == "confirmed"
    regressions = {
        (c.new.short_name, c.new.layout): c for c in outcome.diff.of_kind("regression")
    }
    for layout in ("legacy", "initless"):
        finalizer = regressions[("FinalizerSettingTurnedOff", layout)]
        assert not finalizer.flaky
        assert finalizer.explanation is not None
    assert regressions[("StatusPodDeletion", "initless")].flaky
    assert not outcome.diff.regressed


def test_without_the_explanations_the_same_reports_regress(tmp_path: Path):
    outcome = qualifying.rediff(_copy(tmp_path), explained=None)
    assert outcome.diff.regressed
