from __future__ import annotations

from pathlib import Path

import pytest

from chaos.errors import HistoryError
from chaos.history.records import load_history
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod


def test_load_reads_typed_records(tmp_path: Path) -> None:
    b = HistoryBuilder()
    b.at(0).add("RELIST", pod("wf-a"))
    b.at(1).list_end("Pod")
    b.at(2).add("MODIFIED", pod("wf-a", phase="Succeeded"))
    history = load_history(b.write(tmp_path / "h.jsonl"))

    first, end, last = history.records
    assert (first.line, first.kind, first.type, first.name) == (
        1,
        "Pod",
        "RELIST",
        "wf-a",
    )
    assert first.resource_version == "101"
    assert end.is_list_end
    assert not first.is_list_end
    assert last.phase == "Succeeded"
    assert history.end - history.start == 2
    assert load_history(tmp_path / "h.jsonl").records[2].to_json()["type"] == "MODIFIED"


def test_blank_lines_are_skipped_but_keep_numbering(tmp_path: Path) -> None:
    b = HistoryBuilder()
    b.add("ADDED", pod("wf-a"))
    path = tmp_path / "h.jsonl"
    path.write_text("\n" + b.text() + "\n", encoding="utf-8")

    (record,) = load_history(path).records

    assert record.line == 2


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"kind": "Pod", "type": "UPDATED"}', "'type' must be one of"),
        (
            '{"kind": "Pod", "type": "ADDED", "resourceVersion": 5}',
            "'resourceVersion' must be a string",
        ),
        (
            '{"kind": "Pod", "type": "ADDED", "resourceVersion": "5", "received": "x",'
            ' "monotonic": 1, "object": {}}',
            "'received' must be a number",
        ),
        (
            '{"kind": "Pod", "type": "ADDED", "resourceVersion": "5", "received": 1,'
            ' "monotonic": 1, "object": []}',
            "'object' must be a JSON object",
        ),
        ('{"type": "ADDED"}', "'kind' must be a non-empty string"),
    ],
)
def test_a_malformed_line_names_the_file_and_line(
    tmp_path: Path, line: str, problem: str
) -> None:
    b = HistoryBuilder()
    b.add("ADDED", pod("wf-a"))
    path = tmp_path / "h.jsonl"
    path.write_text(b.text() + line + "\n", encoding="utf-8")

    with pytest.raises(HistoryError, match=problem) as caught:
        load_history(path)

    assert caught.value.line == 2
    assert str(caught.value).startswith(f"{path}:2: ")


def test_an_unreadable_file_names_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"

    with pytest.raises(HistoryError, match="cannot read") as caught:
        load_history(missing)

    assert caught.value.line is None
    assert str(missing) in str(caught.value)
