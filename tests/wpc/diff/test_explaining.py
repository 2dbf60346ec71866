"""We test explained differences (`wpc.diff.explaining`):

- a bad explanations file (unreadable, not YAML, wrong kind, a bad or missing
  key, an entry selecting nothing) is a DataError naming the file and the key;
- an entry matches an item change and a clause change by kind, clause glob,
  test glob (short name or node id), layouts, and old/new globs over each
  side's version names (as recorded, its first word, refs the caller knows);
  the first matching entry wins;
- an explained regression is listed as `regression (explained)` with its
  explanation below the tables and in the document, and no longer makes the
  diff regressed; one unexplained regression (item or clause) still does;
- an entry of these versions that matches nothing is listed as unused (table
  line and document list), one of other versions only counted;
- without explanations the document and the table are as before (no key, no
  section), so a plain `diff` is unchanged for vendors; `diff --explained FILE`
  applies a file and exits 0 when it explains every regression;
- the shipped file is valid and its entry's evidence exists in this repository.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance import spec as specs
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc import suite_cli as conformance_cli
from wpc.diff import comparing
from wpc.diff import explaining
from wpc.diff import rendering
from wpc.diff.comparing import Explanation
from wpc.diff.comparing import ReportDiff

REPO = Path(__file__).parents[3]
SHIPPED = REPO / "wpc" / "qualify" / "explained.yaml"
FIXTURES = Path(__file__).parent / "fixtures"
FINALIZER = "WPC-FINALIZER-009"


def versioned(tests: list[dict[str, Any]], version: str) -> dict[str, Any]:
    found = report(tests)
    found["implementation"]["version"] = version
    return found


def finalizer_diff(
    layouts: tuple[str, ...] = ("legacy", "initless"),
    old: str = "v4.1.0 (commit e5ed20d5cb54)",
    new: str = "v4.1.2 (commit 16a52d67daf2)",
) -> ReportDiff:
    """FinalizerSettingTurnedOff regresses in `layouts`; Sigterm is fixed in legacy."""

    def tests(side: str) -> list[dict[str, Any]]:
        bad = "passed" if side == "old" else "failed"
        found = [
            entry("FinalizerSettingTurnedOff", layout, bad, clauses=(FINALIZER,))
            for layout in layouts
        ]
        fixed = "failed" if side == "old" else "passed"
        return [
            *found,
            entry("Sigterm", "legacy", fixed, clauses=("WPC-RECOVERY-011",)),
        ]

    return comparing.compare(versioned(tests("old"), old), versioned(tests("new"), new))


def explanation(number: int = 1, **kwargs: Any) -> Explanation:
    fields: dict[str, Any] = {
        "entry": number,
        "old": "v4.1.0",
        "new": "v4.1.*",
        "kind": "regression",
        "explanation": "expected",
        "evidence": ("conformance/SPEC.md",),
        "clause": FINALIZER,
        **kwargs,
    }
    return Explanation(**fields)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "explained.yaml"
    path.write_text(text)
    return path


GOOD_ENTRY = """\
  - old: v4.1.0
    new: v4.1.*
    clause: WPC-FINALIZER-009
    kind: regression
    explanation: >-
      Expected
      per OQ-2.
    evidence: [conformance/SPEC.md]
"""
HEADER = "apiVersion: wpc.dev/v1alpha1\nkind: ExplainedDifferences\nexplanations:\n"


def test_a_good_file_loads_with_its_paragraph_joined(tmp_path):
    (found,) = explaining.load(write(tmp_path, HEADER + GOOD_ENTRY))
    assert found == explanation(explanation="Expected per OQ-2.")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [", "explanations are not valid YAML"),
        (
            "apiVersion: wpc.dev/v1alpha1\nkind: LayoutDivergences\nexplanations: []\n",
            "key kind: 'ExplainedDifferences' was expected",
        ),
        (
            HEADER + GOOD_ENTRY.replace("kind: regression", "kind: regresion"),
            "key explanations.0.kind: 'regresion' is not one of",
        ),
        (
            HEADER
            + GOOD_ENTRY
            + GOOD_ENTRY.replace("    evidence: [conformance/SPEC.md]\n", ""),
            "key explanations.1: 'evidence' is a required property",
        ),
        (
            HEADER + GOOD_ENTRY.replace("    clause: WPC-FINALIZER-009\n", ""),
            "key explanations.0: give clause, test or both",
        ),
        (
            HEADER + GOOD_ENTRY + "    layouts: [both]\n",
            "key explanations.0.layouts.0: 'both' is not one of",
        ),
        (
            HEADER + GOOD_ENTRY + "    reason: typo\n",
            "key explanations.0: Additional properties are not allowed ('reason'",
        ),
    ],
)
def test_a_bad_file_names_the_file_and_the_key(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(DataError) as caught:
        explaining.load(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(DataError, match=r"missing.yaml: cannot read the explanations"):
        explaining.load(tmp_path / "missing.yaml")


def test_the_refs_of_a_side_are_the_version_its_first_word_and_known_refs():
    diff = finalizer_diff()
    assert explaining.refs(diff.new, "abc123") == (
        "v4.1.2 (commit 16a52d67daf2)",
        "v4.1.2",
        "abc123",
    )


@pytest.mark.parametrize(
    ("kwargs", "items", "clauses"),
    [
        ({}, 2, 2),
        ({"clause": "WPC-FINALIZER-*"}, 2, 2),
        ({"clause": "", "test": "FinalizerSettingTurnedOff"}, 2, 2),
        ({"clause": "", "test": "*test_finalizersettingturnedoff[[]initless]"}, 1, 1),
        ({"layouts": ("legacy",)}, 1, 1),
        ({"test": "Sigterm"}, 0, 0),
        ({"clause": "WPC-FINALIZER-008"}, 0, 0),
        ({"kind": "fix"}, 0, 0),
        ({"old": "v4.0.*"}, 0, 0),
        ({"new": "v4.1.2 (commit *)"}, 2, 2),
        ({"new": "v4.1.1"}, 0, 0),
    ],
)
def test_an_entry_selects_by_kind_clause_test_layout_and_refs(kwargs, items, clauses):
    applied = explaining.apply(
        finalizer_diff(), [explanation(**kwargs)], source="f.yaml"
    )
    assert sum(c.explained for c in applied.items) == items
    assert sum(c.explained for c in applied.clauses) == clauses


def test_a_fix_entry_explains_a_fix():
    applied = explaining.apply(
        finalizer_diff(),
        [explanation(kind="fix", clause="", test="Sigterm")],
        source="f.yaml",
    )
    (fix,) = applied.of_kind("fix")
    assert fix.explained
    assert [c.clause for c in applied.clauses if c.explained] == ["WPC-RECOVERY-011"]


def test_a_ref_the_caller_knows_matches_a_commit_ref():
    diff = finalizer_diff(old="v4.1.0-3-gabcdef (commit abcdef123456)")
    entries = [explanation(old="abcdef*")]
    assert explaining.apply(diff, entries, source="f").regressed  # not its version
    applied = explaining.apply(diff, entries, source="f", old_refs=["abcdef1"])
    assert not applied.regressed


def test_explained_regressions_do_not_regress_the_diff_one_unexplained_does():
    diff = finalizer_diff()
    assert diff.regressed
    assert not explaining.apply(diff, [explanation()], source="f").regressed
    half = explaining.apply(diff, [explanation(layouts=("legacy",))], source="f")
    assert half.regressed
    assert [c.new.layout for c in half.of_kind("regression") if not c.explained] == [
        "initless"
    ]


def test_a_clause_explained_without_its_item_still_regresses():
    applied = explaining.apply(
        finalizer_diff(layouts=("legacy",)),
        [explanation(clause="", test=f"*{FINALIZER}*")],  # no test has that name
        source="f",
    )
    assert applied.regressed
    # A clause-only entry explains the item citing it and the clause alike.
    assert not explaining.apply(
        finalizer_diff(layouts=("legacy",)), [explanation()], source="f"
    ).regressed


def test_the_first_matching_entry_wins_and_the_rest_are_unused_or_elsewhere():
    entries = [
        explanation(1),
        explanation(2, test="FinalizerSettingTurnedOff"),
        explanation(3, old="v3.*"),
    ]
    applied = explaining.apply(finalizer_diff(), entries, source="f.yaml")
    assert {c.explanation.entry for c in applied.items if c.explanation} == {1}
    assert applied.explanations is not None
    assert [e.entry for e in applied.explanations.used] == [1]
    assert [e.entry for e in applied.explanations.unused] == [2]
    assert [e.entry for e in applied.explanations.other_versions] == [3]


def test_the_table_and_document_show_the_explanation_and_the_unused_entries():
    entries = [
        explanation(1, explanation="OQ-2 says v4.1.x fails it."),
        explanation(2, clause="WPC-KILL-*", kind="fix"),
        explanation(3, old="v3.*"),
    ]
    applied = explaining.apply(finalizer_diff(), entries, source="ex.yaml")
    table = rendering.table(applied)
    assert "  regression (explained)  legacy" in table
    assert "  regression (explained)  WPC-FINALIZER-009  initless" in table
    assert (
        "explanations (ex.yaml): 1 used, 1 unused, 1 for other versions; "
        "2 items and 2 clauses explained"
    ) in table
    assert (
        "  entry 1: regression WPC-FINALIZER-009 (v4.1.0 -> v4.1.*): "
        "explains 2 items, 2 clauses\n    OQ-2 says v4.1.x fails it.\n"
        "    evidence: conformance/SPEC.md\n"
    ) in table
    assert (
        "  unused: entry 2: fix WPC-KILL-* (v4.1.0 -> v4.1.*): matched no change"
        in table
    )
    assert table.index("explanations (") > table.index("clauses: ")
    assert (
        "verdict: no regression (differing items are not rerun offline; "
        "2 item and 2 clause regressions are explained and not counted)"
    ) in table

    document = yaml.safe_load(rendering.yaml_text(applied))
    assert document["regressed"] is False
    item = document["items"]["regressions"][0]
    assert (item["explained"], item["explainedBy"]) == ("OQ-2 says v4.1.x fails it.", 1)
    clause = document["clauses"]["regressions"][0]
    assert clause["explained"] == "OQ-2 says v4.1.x fails it."
    assert "explained" not in document["items"]["fixes"][0]
    explanations = document["explanations"]
    assert explanations["file"] == "ex.yaml"
    assert (explanations["explainedItems"], explanations["explainedClauses"]) == (2, 2)
    (used,) = explanations["used"]
    assert used["evidence"] == ["conformance/SPEC.md"]
    assert used["explains"] == {"items": 2, "clauses": 2}
    assert [e["entry"] for e in explanations["unused"]] == [2]
    assert [e["entry"] for e in explanations["otherVersions"]] == [3]


def test_a_flaky_explained_clause_says_both():
    label = rendering.change_label("regression", flaky=True, explained=True)
    assert label == "regression (flaky, explained)"


def test_without_explanations_nothing_changes():
    diff = finalizer_diff()
    document = yaml.safe_load(rendering.yaml_text(diff))
    assert "explanations" not in document
    assert "explained" not in document["items"]["regressions"][0]
    assert set(document["clauses"]["regressions"][0]) == {
        "clause", "layout", "old", "new", "tests", "flaky",
    }  # fmt: skip
    assert "explanations (" not in rendering.table(diff)
    assert "(explained)" not in rendering.table(diff)


def test_the_diff_verb_applies_a_file_only_when_given(tmp_path, capsys):
    old, new = FIXTURES / "old.yaml", FIXTURES / "new.yaml"
    assert conformance_cli.main(["diff", str(old), str(new)]) == ExitCode.REGRESSION
    capsys.readouterr()
    # The fixtures are both v4.1.2; their regression is InitlessInputArtifacts.
    path = write(
        tmp_path,
        HEADER
        + GOOD_ENTRY.replace("v4.1.0", "v4.1.2").replace(
            "clause: WPC-FINALIZER-009", "test: InitlessInputArtifacts"
        ),
    )
    out_file = tmp_path / "diff.yaml"
    code = conformance_cli.main(
        [
            "diff",
            str(old),
            str(new),
            "--explained",
            str(path),
            "--output",
            str(out_file),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "regression (explained)" in out
    assert yaml.safe_load(out_file.read_text())["explanations"]["file"] == str(path)
    bad = write(tmp_path, HEADER + GOOD_ENTRY.replace("    new: v4.1.*\n", ""))
    code = conformance_cli.main(["diff", str(old), str(new), "--explained", str(bad)])
    assert code == ExitCode.INVALID_INPUT
    assert (
        f"{bad}: invalid explanations:\n  key explanations.0: 'new' is a required"
        in (capsys.readouterr().err)
    )


def test_the_shipped_file_is_valid_and_its_evidence_exists():
    entries = explaining.load(SHIPPED)
    assert entries, "the v4.1.0 -> v4.1.2 regression is explained"
    clauses = {c.id for c in specs.load().active()}
    spec = (REPO / "conformance" / "SPEC.md").read_text()
    for found in entries:
        if found.clause:
            assert found.clause in clauses, found.describe()
        for evidence in found.evidence:
            word = evidence.split()[0]
            if word.startswith(("conformance/", "docs/")) and not word.startswith(
                "docs/results/"  # the lead adds the run's results
            ):
                assert (REPO / word).exists(), evidence
    assert "**OQ-2." in spec
    finalizer = next(e for e in entries if e.clause == FINALIZER)
    applied = explaining.apply(finalizer_diff(), entries, source=str(SHIPPED))
    assert [c.explanation for c in applied.of_kind("regression")] == [finalizer] * 2
    assert any(
        "eaefb4518483312d69ace640479b565ccd688fdc" in e for e in finalizer.evidence
    )
    assert any("#15863" in e for e in finalizer.evidence)
