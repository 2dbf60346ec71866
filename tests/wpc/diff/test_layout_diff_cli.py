"""We test these aspects of `python -m conformance layout-diff` and `wpc layout-diff`:

- on the committed argo-workflows v4.1.2 report against the hand-made
  reference fixture, the table and the YAML say: the input directory's
  fileType differs the same way in both, the input file's differs in upstream
  only (the reference ran the scenario in both layouts), HelloWorld differs in
  the reference only, StatusPodDeletion splits between layouts upstream only
  and StatusRetries in the reference only; the exit code is 0;
- the document is a `LayoutDiff` naming both implementations and versions;
- a file that is not a report exits INVALID_INPUT naming the file and key;
- `wpc layout-diff` hands its arguments to the same verb.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from conformance.exitcodes import ExitCode
from wpc import cli as wpc_cli
from wpc import suite_cli as conformance_cli

ROOT = Path(__file__).parents[3]
UPSTREAM = ROOT / "docs/results/argo-workflows-v4.1.2/conformance-argo-workflows.yaml"
REFERENCE = Path(__file__).parent / "fixtures" / "reference.yaml"


def _layout_diff(tmp_path: Path) -> dict[str, Any]:
    out_file = tmp_path / "layouts.yaml"
    code = conformance_cli.main(
        ["layout-diff", str(UPSTREAM), str(REFERENCE), "--output", str(out_file)]
    )
    assert code == 0
    document = yaml.safe_load(out_file.read_text())
    assert isinstance(document, dict)
    return document


def _observation(document: dict[str, Any], key: str) -> dict[str, Any]:
    [row] = [r for r in document["observations"] if r["key"] == key]
    return row


def _outcome(document: dict[str, Any], short_name: str) -> dict[str, Any]:
    [row] = [r for r in document["outcomes"] if r["shortName"] == short_name]
    return row


def test_the_document_names_both_implementations(tmp_path):
    document = _layout_diff(tmp_path)
    assert (document["apiVersion"], document["kind"]) == (
        "wpc.dev/v1alpha1",
        "LayoutDiff",
    )
    assert {k: document["a"][k] for k in ("implementation", "version", "compared")} == {
        "implementation": "argo-workflows",
        "version": "v4.1.2 (commit 16a52d67daf2)",
        "compared": 22,
    }
    assert (document["b"]["implementation"], document["b"]["version"]) == (
        "reference",
        "0.1.0",
    )
    assert (document["b"]["declared"], document["b"]["undeclared"]) == (2, 1)
    assert document["summary"] == {
        "observationsDifferingInBoth": 1,
        "sameWay": 1,
        "notSameWay": 0,
        "observationsDifferingInAOnly": 1,
        "observationsDifferingInBOnly": 2,
        "outcomeSplitsInBoth": 0,
        "sameSplit": 0,
        "outcomeSplitsInAOnly": 1,
        "outcomeSplitsInBOnly": 1,
    }


def test_a_divergence_both_show_with_the_same_values_is_the_same_way(tmp_path):
    row = _observation(_layout_diff(tmp_path), "artifacts.inputs.dir.fileType")
    assert (row["shortName"], row["differsIn"], row["sameWay"]) == (
        "PodInputArtifacts",
        "both",
        True,
    )
    for side in ("a", "b"):
        assert row[side]["values"] == {"legacy": "regular", "initless": "symlink"}
        assert row[side]["divergence"] == "symlinked-input-artifacts"


def test_a_divergence_in_one_implementation_only(tmp_path):
    document = _layout_diff(tmp_path)
    upstream_only = _observation(document, "artifacts.inputs.file.fileType")
    assert (upstream_only["differsIn"], upstream_only["sameWay"]) == ("a", None)
    assert upstream_only["b"] == {"differs": False, "ranBothLayouts": True}
    undeclared = _observation(document, "nodes.main.message")
    assert undeclared["differsIn"] == "b"
    assert undeclared["b"]["divergence"] is None
    assert undeclared["a"] == {"differs": False, "ranBothLayouts": True}


def test_an_outcome_split_in_one_implementation_only(tmp_path):
    document = _layout_diff(tmp_path)
    deletion = _outcome(document, "StatusPodDeletion")
    assert (deletion["splitIn"], deletion["sameSplit"]) == ("a", None)
    assert deletion["a"] == {"legacy": "passed", "initless": "failed"}
    assert deletion["b"] == {"legacy": "passed", "initless": "passed"}
    retries = _outcome(document, "StatusRetries")
    assert retries["splitIn"] == "b"
    assert retries["b"] == {"legacy": "passed", "initless": "failed"}
    assert [r["shortName"] for r in document["outcomes"]] == [
        "StatusPodDeletion",
        "StatusRetries",
    ]


def test_the_table_says_the_same(capsys):
    assert conformance_cli.main(["layout-diff", str(UPSTREAM), str(REFERENCE)]) == 0
    out = capsys.readouterr().out
    assert (
        "observations differing between layouts (legacy / initless): 1 in both "
        "(1 the same way, 0 not), 1 in argo-workflows only, 2 in reference only"
    ) in out
    assert (
        "outcomes split between layouts (legacy / initless): 0 in both "
        "(0 the same split), 1 in argo-workflows only, 1 in reference only"
    ) in out
    [dir_line] = [line for line in out.splitlines() if "inputs.dir.fileType" in line]
    assert dir_line.rstrip().endswith("both, same way")
    [message] = [line for line in out.splitlines() if "nodes.main.message" in line]
    assert "'' / main exited 0 (UNDECLARED)" in message
    [deletion] = [line for line in out.splitlines() if "StatusPodDeletion" in line]
    assert "passed / failed  passed / passed  argo-workflows only" in deletion


def test_a_file_that_is_not_a_report_is_invalid_input(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    document = yaml.safe_load(REFERENCE.read_text())
    del document["layoutDivergences"]["compared"]
    bad.write_text(yaml.safe_dump(document))
    code = conformance_cli.main(["layout-diff", str(UPSTREAM), str(bad)])
    assert code == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert f"{bad}: key layoutDivergences: 'compared' is a required property" in err
    missing = tmp_path / "missing.yaml"
    code = conformance_cli.main(["layout-diff", str(missing), str(REFERENCE)])
    assert code == ExitCode.INVALID_INPUT
    assert f"{missing}: cannot read the report" in capsys.readouterr().err


def test_wpc_layout_diff_delegates_to_the_same_verb(capsys):
    assert wpc_cli.main(["layout-diff", str(UPSTREAM), str(REFERENCE)]) == 0
    assert "1 in reference only" in capsys.readouterr().out
    args = wpc_cli.parse(["layout-diff", str(UPSTREAM), str(REFERENCE)])
    assert (args.verb, args.a, args.b) == ("layout-diff", UPSTREAM, REFERENCE)
