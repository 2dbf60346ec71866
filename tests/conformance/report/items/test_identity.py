"""We test these aspects of the stable test identity (`conformance.report.items.identity`):

- an item is `ShortName[layout]` when its file defines one test and
  `ShortName::function[layout]` when it defines several, whatever directory,
  rootdir or install location the node ID was made from;
- every committed ConformanceReport under docs/results/ (node IDs only) gets an
  identity per item that matches the schema's testId, is unique per report, and
  still validates; its layout divergences get the identity-based scenario;
- the folder is not part of the identity: a node ID made before the scenarios
  moved into their area folders (`conformance/tests/test_hello_world.py`) and
  one made after (`conformance/tests/status/test_hello_world.py`) map to the
  same identity, and the committed v4.1.0 report (made before the move)
  rewritten to the folders of today diffs as "no change" against the original;
- a committed Argo v4.1.0 report whose node IDs are rewritten to an installed
  suite's (`venv/lib/python3.11/site-packages/...`, `eco/venv/...`) diffs as "no
  change" against the original (before: 104 added, 104 removed), and so does a
  report already carrying identities against one that does not;
- the layout diff lines up two reports made from different directories;
- two runs of the same test file under different pytest rootdirs (so different
  node IDs) write the same identities and diff as "no change".
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.report.items import identity
from conformance.report.runs import documents
from tests.conformance.conftest import FAKE_CLUSTER_CONFTEST
from tests.conformance.conftest import wpc_args
from wpc.diff import comparing
from wpc.diff import layouts
from wpc.diff import reading

ROOT = Path(__file__).resolve().parents[4]
V410 = ROOT / "docs/results/qualify-v4.1.0-v4.1.2/old/conformance.yaml"
COMMITTED = sorted(
    path
    for path in (ROOT / "docs/results").rglob("*.yaml")
    if yaml.safe_load(path.read_text()).get("kind") == documents.KIND
)
PREFIXES = (
    "venv/lib/python3.11/site-packages/conformance/tests/",
    "eco/venv/lib/python3.11/site-packages/conformance/tests/",
    "/home/user/wpc/conformance/tests/",
)
TEST_ID = re.compile(
    json.loads(documents.SCHEMA_PATH.read_text())["$defs"]["testId"]["pattern"]
)


@pytest.mark.parametrize(
    "prefix", ["conformance/tests/", "tests/", "", *PREFIXES], ids=repr
)
def test_a_node_id_maps_to_the_same_identity_from_anywhere(prefix: str) -> None:
    hello = f"{prefix}test_hello_world.py::test_hello_world_workflow_succeeds_with_exit_code_zero"
    assert identity.of_nodeid(f"{hello}[legacy]", "HelloWorld") == "HelloWorld[legacy]"
    function = "test_stop_runs_every_task_of_a_dag_exit_handler"
    dags = f"{prefix}test_status_shutdown_dags.py::{function}[initless]"
    functions = identity.test_functions(
        identity.suite_file("test_status_shutdown_dags.py")
    )
    assert function in functions
    assert len(functions) == 2
    assert identity.of_nodeid(dags, "StatusShutdownDags") == (
        f"StatusShutdownDags::{function}[initless]"
    )
    # No ShortName recorded: the file name gives it, as the marker must.
    assert identity.of_nodeid(dags) == identity.of_nodeid(dags, "StatusShutdownDags")


def test_a_node_id_from_before_the_area_folders_maps_to_the_same_identity() -> None:
    hello = identity.suite_file("test_hello_world.py")
    assert hello == identity.SUITE_DIR / "status" / "test_hello_world.py"
    function = "test_hello_world_workflow_succeeds_with_exit_code_zero"
    flat = f"conformance/tests/test_hello_world.py::{function}[legacy]"
    foldered = f"conformance/tests/status/test_hello_world.py::{function}[legacy]"
    # One test function in the file: the identity is the ShortName alone, which
    # needs the file found wherever it now is (not found: `HelloWorld::test_...`).
    assert identity.of_nodeid(flat) == "HelloWorld[legacy]"
    assert identity.of_nodeid(foldered) == "HelloWorld[legacy]"
    assert identity.of_nodeid(foldered, path=hello) == "HelloWorld[legacy]"
    assert identity.suite_file("test_gone.py") == identity.SUITE_DIR / "test_gone.py"


def foldered(document: dict[str, Any]) -> dict[str, Any]:
    """The report as a run of today's suite, its files in area folders, writes it.

    The node IDs name the folders, and every item carries the identity the
    plugin gives it from the collected file.
    """
    text = yaml.safe_dump(document, sort_keys=False)
    for path in identity.suite_files():
        flat = f"conformance/tests/{path.name}"
        text = text.replace(flat, path.relative_to(ROOT).as_posix())
    after = yaml.safe_load(text)
    for test in after["tests"]:
        file = ROOT / test["nodeid"].partition("::")[0]
        test["id"] = identity.of_nodeid(
            test["nodeid"], test["shortName"], path=file if file.is_file() else None
        )
    return after


def test_a_report_from_before_the_area_folders_diffs_as_no_change_against_one_after(
    tmp_path: Path,
) -> None:
    original = yaml.safe_load(V410.read_text())
    after = foldered(copy.deepcopy(original))
    documents.validate(after)
    nodeids = [t["nodeid"] for t in after["tests"] if t["kind"] == "scenario"]
    assert all(n.count("/") == 3 for n in nodeids), nodeids[:3]
    assert "HelloWorld[legacy]" in [t["id"] for t in after["tests"]]
    assert [identity.of_test(t) for t in original["tests"]] == [
        t["id"] for t in after["tests"]
    ]
    diff = comparing.compare(
        reading.read(V410), reading.read(written(tmp_path, "after.yaml", after))
    )
    assert no_change(diff), (len(diff.added), len(diff.removed))


def test_the_given_file_decides_and_an_unknown_file_keeps_the_function(
    tmp_path: Path,
) -> None:
    one = tmp_path / "test_only.py"
    one.write_text("def helper():\n    pass\n\n\ndef test_it():\n    pass\n")
    assert identity.of_nodeid("test_only.py::test_it[legacy]", "Only", path=one) == (
        "Only[legacy]"
    )
    assert identity.of_nodeid("gone/test_gone.py::test_it[legacy]", "Gone") == (
        "Gone::test_it[legacy]"
    )
    assert identity.of_nodeid("t.py::test_x[layout-divergence]", "X") == (
        "X::test_x[layout-divergence]"
    )
    assert identity.of_nodeid("t.py::test_x", "X") == "X::test_x"


@pytest.mark.parametrize(
    "path", COMMITTED, ids=lambda p: str(p.relative_to(ROOT / "docs/results"))
)
def test_every_committed_report_gets_unique_valid_identities(path: Path) -> None:
    document = identity.upgrade(yaml.safe_load(path.read_text()))
    documents.validate(document)
    ids = [t["id"] for t in document["tests"]]
    assert all(TEST_ID.fullmatch(i) for i in ids), ids
    assert len(set(ids)) == len(ids)
    for test in document["tests"]:
        assert test["id"].startswith(test["shortName"])
        if test["kind"] == "scenario":
            assert test["id"].endswith(f"[{test['layout']}]")
    for entry in document["layoutDivergences"]["declared"]:
        assert ".py::" not in entry["scenario"]
        assert entry["scenario"].startswith(entry["shortName"])


def moved(document: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The report as a run of the same code from another install would name it."""
    text = yaml.safe_dump(document, sort_keys=False)
    return yaml.safe_load(text.replace("conformance/tests/", prefix))


def written(tmp_path: Path, name: str, document: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def no_change(diff: comparing.ReportDiff) -> bool:
    return not (
        diff.items
        or diff.added
        or diff.removed
        or diff.clauses
        or diff.clauses_added
        or diff.clauses_removed
        or diff.regressed
    )


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_committed_v4_1_0_report_from_another_install_diffs_as_no_change(
    tmp_path: Path, prefix: str
) -> None:
    original = yaml.safe_load(V410.read_text())
    assert len(original["tests"]) > 100
    elsewhere = written(tmp_path, "elsewhere.yaml", moved(original, prefix))
    diff = comparing.compare(reading.read(V410), reading.read(elsewhere))
    assert no_change(diff), (len(diff.added), len(diff.removed))


def test_a_report_with_identities_diffs_as_no_change_against_an_old_one(
    tmp_path: Path,
) -> None:
    new = moved(identity.upgrade(yaml.safe_load(V410.read_text())), PREFIXES[0])
    documents.validate(new)
    diff = comparing.compare(
        reading.read(V410), reading.read(written(tmp_path, "new.yaml", new))
    )
    assert no_change(diff)


def test_the_layout_diff_lines_up_reports_from_different_directories(
    tmp_path: Path,
) -> None:
    original = yaml.safe_load(V410.read_text())
    assert original["layoutDivergences"]["declared"]
    elsewhere = moved(copy.deepcopy(original), PREFIXES[1])
    a = layouts.side(original, "a.yaml")
    b = layouts.side(elsewhere, "b.yaml")
    assert a.outcomes == b.outcomes
    assert a.differences.keys() == b.differences.keys()
    diff = layouts.compare(a, b)
    assert all(r.a is not None and r.b is not None for r in diff.observations)


FINALIZER = """
import pytest

@pytest.mark.conformance(short_name="Finalizer", clauses=["WPC-FINALIZER-001"])
def test_finalizer():
    pass
"""


def test_runs_from_two_rootdirs_write_the_same_identities(
    suite: pytest.Pytester,
) -> None:
    deep = suite.path / "deep"
    deep.mkdir()
    (deep / "test_finalizer.py").write_text(FINALIZER)
    (deep / "conftest.py").write_text(FAKE_CLUSTER_CONFTEST)
    reports = []
    for name, rootdir in (("outer", suite.path), ("inner", deep)):
        report = suite.path / "reports" / f"{name}.yaml"
        result = suite.runpytest(
            *wpc_args("--wpc-report", str(report)), "--rootdir", str(rootdir), "deep"
        )
        result.assert_outcomes(passed=2)
        reports.append(reading.read(report))
    outer, inner = reports
    # pytest's node IDs follow the rootdir; the identities do not.
    assert outer["tests"][0]["nodeid"] != inner["tests"][0]["nodeid"]
    assert [t["id"] for t in outer["tests"]] == [
        "Finalizer[legacy]",
        "Finalizer[initless]",
    ]
    assert [t["id"] for t in inner["tests"]] == [t["id"] for t in outer["tests"]]
    assert no_change(comparing.compare(outer, inner))
