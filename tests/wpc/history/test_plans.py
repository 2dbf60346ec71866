"""We test which fixes a history run takes and how it groups them by tag (pure):

- a fix runs only when it is in scope, observable and names a scenario; every
  other fix is listed with its verdict and reason (the scope reason, the
  unobservable reason, the clause that still lacks a scenario);
- `--entry` narrows the run, the others being `not-selected`; an unknown id is
  an error naming it and the known ids, and an id that cannot run is an error
  saying why;
- each fix needs its before and after tags; each tag is run once, with the
  fixes of both sides that use it and the union of their scenarios as `-k`;
- the shipped history runs every fix that names a scenario (all of them in
  scope and observable), the issue's two among them.
"""

from __future__ import annotations

import pytest

from conformance.errors import DataError
from conformance.spec import history
from tests.wpc.history.builders import SIGTERM
from tests.wpc.history.builders import WORKDIR
from tests.wpc.history.builders import fix
from tests.wpc.history.builders import history_of
from tests.wpc.history.builders import sha
from wpc.history import plans
from wpc.history.plans import Need


def mixed() -> history.History:
    return history_of(
        fix("sigterm", commit=sha(1), before="v1.0.0", after="v1.1.0"),
        fix(
            "workdir",
            commit=sha(2),
            before="v1.1.0",
            after="v1.2.0",
            scenario=WORKDIR,
            clause="WPC-INITLESS-009",
        ),
        fix("hidden", commit=sha(3), before="v1.0.0", after="v1.1.0", observable=False),
        fix(
            "elsewhere", commit=sha(4), before="v1.0.0", after="v1.1.0", in_scope=False
        ),
        fix("unwritten", commit=sha(5), before="v1.0.0", after="v1.1.0", scenario=None),
    )


def test_only_in_scope_observable_fixes_with_a_scenario_run():
    selection = plans.select(mixed())
    assert [f.id for f in selection.runnable] == ["sigterm", "workdir"]
    assert [(e.fix.id, e.verdict, e.reason) for e in selection.excluded] == [
        ("hidden", plans.UNOBSERVABLE, "happens inside the controller only"),
        ("elsewhere", plans.OUT_OF_SCOPE, "not part of the pod contract"),
        (
            "unwritten",
            plans.NO_SCENARIO,
            "no scenario names it yet (clause WPC-RECOVERY-011)",
        ),
    ]
    assert selection.chosen is None


def test_entry_narrows_the_run_and_marks_the_rest_not_selected():
    selection = plans.select(mixed(), ["workdir"])
    assert [f.id for f in selection.runnable] == ["workdir"]
    assert ("sigterm", plans.NOT_SELECTED) in [
        (e.fix.id, e.verdict) for e in selection.excluded
    ]
    assert selection.chosen == ("workdir",)


def test_an_unknown_entry_is_named_with_the_known_ids():
    with pytest.raises(
        DataError, match=r"--entry nosuch: no such entry .*sigterm, workdir"
    ):
        plans.select(mixed(), ["nosuch"])


def test_an_entry_that_cannot_run_says_why():
    with pytest.raises(
        DataError, match=r"--entry hidden: cannot run, unobservable: happens inside"
    ):
        plans.select(mixed(), ["hidden"])


def test_each_fix_needs_its_before_and_after_tags():
    selection = plans.select(mixed())
    assert plans.needs(selection.runnable) == (
        Need("sigterm", plans.BEFORE, "v1.0.0"),
        Need("sigterm", plans.AFTER, "v1.1.0"),
        Need("workdir", plans.BEFORE, "v1.1.0"),
        Need("workdir", plans.AFTER, "v1.2.0"),
    )


def test_each_tag_runs_once_with_the_union_of_its_fixes_scenarios():
    selection = plans.select(mixed())
    needs = plans.needs(selection.runnable)
    runs = plans.group(
        selection.runnable,
        {n: n.tag for n in needs},
        source="/src",
        commits={"v1.0.0": sha(10), "v1.1.0": sha(11), "v1.2.0": sha(12)},
        cached={"v1.1.0": True},
    )
    assert [(r.tag, r.entries, r.cached) for r in runs] == [
        ("v1.0.0", ("sigterm",), False),
        ("v1.1.0", ("sigterm", "workdir"), True),
        ("v1.2.0", ("workdir",), False),
    ]
    shared = runs[1]
    assert shared.keywords == (
        "test_a_gracefully_deleted_controller_pod_is_gone_within_the_bound or "
        "test_initless_main_symlinks_artifacts_reenters_workdir_and_fails_on_read_only_root"
    )
    assert shared.build.variables() == {
        "ref": "v1.1.0",
        "build": "v1.1.0",
        "instance_prefix": "wpc-q-v1-1-0",
        "source": "/src",
    }


def test_the_shipped_history_runs_every_observable_fix_with_a_scenario():
    loaded = history.load()
    selection = plans.select(loaded)
    ran = [f.id for f in selection.runnable]
    assert ran == [
        f.id for f in loaded.fixes if f.scenario is not None and f.observable
    ]
    assert {
        "controller-ignores-sigterm",
        "initless-workdir-deleted-by-artifact",
    } <= set(ran)
    assert SIGTERM in [f.scenario for f in selection.runnable]
