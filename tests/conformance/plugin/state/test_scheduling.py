"""We test these aspects of the order and split of a selection:

- items run longest first by the durations file; items it does not know are
  expected to take its mean, items the run skips as not claimed none; equals
  keep their collection order (the same in every xdist worker);
- `--wpc-shard I/N` splits the selection (what remains after `-k` and `-m`)
  into N disjoint parts that together are all of it, balanced by duration (longest processing time first), both
  layouts of a scenario the layout diff compares (it records `observations`)
  and every item taking the unlabelled-workflows lock in one shard, the
  layouts of any other scenario wherever they balance best; the same inputs
  give the same split;
- a malformed shard or durations file stops the run with a usage error naming
  it; a run with --wpc-update-durations folds its items' times into the file;
- the shipped durations file is the committed reference run's.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from conformance.errors import DataError
from conformance.plugin.state import scheduling
from conformance.plugin.state.scheduling import Unit
from conformance.report.runs import durations
from tests.conformance.conftest import wpc_args

REFERENCE_RUN = Path(
    "docs/results/stability-reference-2026-11-28/run-3-of-3/conformance-reference.yaml"
)


def test_order_is_longest_first_and_equals_keep_collection_order() -> None:
    units = [Unit("b", 5.0), Unit("a", 5.0), Unit("c", 50.0), Unit("d", 0.0)]
    assert [u.key for u in scheduling.order(units)] == ["c", "b", "a", "d"]


def test_unknown_items_are_expected_to_take_the_mean_of_the_known() -> None:
    assert scheduling.expected(["a", "b", "new"], {"a": 10.0, "b": 30.0}) == {
        "a": 10.0,
        "b": 30.0,
        "new": 20.0,
    }
    assert scheduling.expected(["new"], {}) == {"new": scheduling.FALLBACK_SECONDS}


def test_assign_balances_shards_and_keeps_blocks_whole() -> None:
    units = [
        Unit("long[legacy]", 100.0, ("scenario:long",)),
        Unit("long[initless]", 90.0, ("scenario:long",)),
        Unit("lockA", 40.0, ("lock:x",)),
        Unit("lockB", 40.0, ("lock:x",)),
        *(Unit(f"short{i}", 10.0) for i in range(12)),
    ]
    assigned = scheduling.assign(units, 3)
    assert assigned["long[legacy]"] == assigned["long[initless]"] == 1
    assert assigned["lockA"] == assigned["lockB"]
    loads = [
        sum(u.seconds for u in units if assigned[u.key] == shard) for shard in (1, 2, 3)
    ]
    assert loads == [190.0, 100.0, 100.0]
    assert scheduling.assign(list(reversed(units)), 3) == assigned


def test_split_keeps_one_shard_longest_first_and_names_the_rest() -> None:
    units = {
        u.key: u
        for u in [
            Unit("a", 10.0),
            Unit("b", 50.0, ("scenario:b",)),
            Unit("c", 30.0),
            Unit("b2", 5.0, ("scenario:b",)),
        ]
    }
    assert scheduling.split(units, None) == (
        [units["b"], units["c"], units["a"], units["b2"]],
        [],
    )
    kept, dropped = scheduling.split(units, scheduling.Shard(1, 2))
    assert [u.key for u in kept] == ["b", "b2"]
    assert dropped == ["a", "c"]
    other, rest = scheduling.split(units, scheduling.Shard(2, 2))
    assert [u.key for u in other] == ["c", "a"]
    assert rest == ["b", "b2"]


def test_two_items_with_one_key_are_refused() -> None:
    with pytest.raises(DataError, match="same key"):
        scheduling.assign([Unit("a", 1.0), Unit("a", 2.0)], 2)


@pytest.mark.parametrize(
    ("text", "problem"),
    [("2", "must look like I/N"), ("0/4", "between 1 and N"), ("5/4", "between 1")],
)
def test_a_malformed_shard_is_refused(text: str, problem: str) -> None:
    with pytest.raises(DataError, match=problem):
        scheduling.parse_shard(text)


def test_the_shipped_durations_file_is_the_committed_reference_run() -> None:
    report = yaml.safe_load(REFERENCE_RUN.read_text())
    assert durations.load() == durations.of_tests(report["tests"])
    assert (
        str(REFERENCE_RUN) in json.loads(durations.DEFAULT_PATH.read_text())["source"]
    )


SUITE = {
    f"test_{name.lower()}": textwrap.dedent(
        f"""
        import pytest

        @pytest.mark.conformance(short_name="{name}", clauses=["WPC-POD-001"])
        def test_{name.lower()}({fixtures}):
            pass
        """
    )
    for name, fixtures in (
        ("Quick", ""),
        ("Apart", ""),
        ("Slow", "observations"),
        ("Middle", ""),
        ("Tiny", ""),
        ("Lockedone", "unlabelled_workflows_lock"),
        ("Lockedtwo", "unlabelled_workflows_lock"),
    )
}
SECONDS = {
    "Quick": 1.0,
    "Apart": 450.0,
    "Slow": 300.0,
    "Middle": 50.0,
    "Tiny": 0.5,
    "Lockedone": 200.0,
    "Lockedtwo": 2.0,
}


def durations_file(directory: Path) -> Path:
    path = directory / "durations.json"
    durations.write(
        path,
        {
            f"{name}[{layout}]::test_{name.lower()}": seconds
            for name, seconds in SECONDS.items()
            for layout in ("legacy", "initless")
        },
        source="test",
    )
    return path


def collected(suite: pytest.Pytester, *extra: str) -> list[str]:
    result = suite.runpytest(
        *wpc_args("--collect-only", "-q", "--wpc-durations-file", *extra)
    )
    assert result.ret == 0, result.stdout.str()
    return [line for line in result.outlines if "::" in line]


def test_a_run_orders_its_items_longest_first(suite: pytest.Pytester) -> None:
    suite.makepyfile(**SUITE)
    path = durations_file(suite.path)
    names = [line.partition("::")[2] for line in collected(suite, str(path))]
    assert names[:6] == [
        "test_apart[legacy]",
        "test_apart[initless]",
        "test_slow[legacy]",
        "test_slow[initless]",
        "test_lockedone[legacy]",
        "test_lockedone[initless]",
    ]
    assert names[-2:] == ["test_tiny[legacy]", "test_tiny[initless]"]


def test_shards_are_disjoint_cover_the_selection_and_keep_blocks_whole(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(**SUITE)
    path = str(durations_file(suite.path))
    whole = collected(suite, path)
    shards = [collected(suite, path, "--wpc-shard", f"{i}/3") for i in (1, 2, 3)]
    assert sorted(line for shard in shards for line in shard) == sorted(whole)
    assert [collected(suite, path, "--wpc-shard", "2/3")] == [shards[1]]
    for shard in shards:
        text = "\n".join(shard)
        assert text.count("::test_slow[") in (0, 2)
        assert text.count("::test_locked") in (0, 4)
    assert "test_slow[" in "\n".join(shards[0])
    assert "test_locked" in "\n".join(shards[1])
    # Not compared across layouts: each layout goes where it balances best.
    assert "test_apart[initless]" in "\n".join(shards[1])
    assert "test_apart[legacy]" in "\n".join(shards[2])


def test_shards_split_what_remains_after_k_and_m(suite: pytest.Pytester) -> None:
    suite.makepyfile(**SUITE)
    path = str(durations_file(suite.path))
    shards = [
        collected(suite, path, "-k", "not slow", "--wpc-shard", f"{i}/2")
        for i in (1, 2)
    ]
    assert all(shards), shards  # the long item -k removed balances nothing
    assert sorted(shards[0] + shards[1]) == sorted(
        collected(suite, path, "-k", "not slow")
    )


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (("--wpc-shard", "3"), "--wpc-shard must look like I/N"),
        (
            ("--wpc-durations-file", "missing.json"),
            "--wpc-durations-file: *missing.json",
        ),
    ],
)
def test_a_bad_shard_or_durations_file_stops_the_run(
    suite: pytest.Pytester, extra: tuple[str, ...], problem: str
) -> None:
    suite.makepyfile(**SUITE)
    result = suite.runpytest(*wpc_args(*extra))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{problem}*"])


def test_update_durations_folds_the_runs_items_into_the_file(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(**SUITE)
    path = durations_file(suite.path)
    before = durations.load(path)
    result = suite.runpytest(
        *wpc_args(
            "--wpc-durations-file",
            str(path),
            "--wpc-update-durations",
            "--wpc-shard",
            "3/3",
            "-k",
            "not locked",
        )
    )
    assert result.ret == 0, result.stdout.str()
    after = durations.load(path)
    ran = {k for k in after if after[k] != before[k]}
    assert ran
    assert set(after) == set(before)
    assert all(after[k] < 1.0 for k in ran)


def test_wpc_run_passes_its_shard_and_durations_options_to_pytest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wpc import suite_cli as cli
    from wpc.run import launching
    from wpc.run import preflight

    seen: list[launching.RunRequest] = []
    monkeypatch.setattr(launching, "run", lambda r: seen.append(r) or 0)
    monkeypatch.setattr(preflight, "check", lambda values: None)
    argv = ["run", "--implementation", "reference", "--shard", "2/4"]
    assert cli.main([*argv, "--durations-file", "d.json", "--update-durations"]) == 0
    command = " ".join(launching.pytest_command(seen[0]))
    assert "--wpc-shard 2/4" in command
    assert "--wpc-durations-file d.json --wpc-update-durations" in command


@pytest.mark.slow
def test_xdist_workers_agree_on_the_order_and_the_shard_report_names_its_selection(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(**SUITE)
    path = str(durations_file(suite.path))
    selections = []
    for index in (1, 2):
        report = suite.path / "reports" / f"shard-{index}.yaml"
        result = suite.runpytest_subprocess(
            *wpc_args(
                "-n",
                "2",
                "--wpc-durations-file",
                path,
                "--wpc-shard",
                f"{index}/2",
                "--wpc-report",
                str(report),
                "-k",
                "not locked",  # their lock fixture needs a cluster
            )
        )
        assert result.ret == 0, result.stdout.str()
        doc = yaml.safe_load(report.read_text())
        assert doc["run"]["shard"]["index"] == index
        assert doc["run"]["shard"]["count"] == 2
        selections.append(doc["run"]["shard"]["selection"])
        assert all("phases" in test for test in doc["tests"])
    assert selections[0] == selections[1]
    assert selections[0].startswith("sha256:")
