"""Judging reads of a status marker that must never appear (`chaos.pod.absence`).

We test these aspects: a read's output is parsed (absent or present, the
node's clock, what is at the marker's temporary path) and anything else is
no read; a present marker ends the wait at once (Final); the evidence needs
at least one read and a last read close to main's `finishedAt` (else
Inconclusive, never a failure of the system under test); main must not give
up before the 30 s rule (one second allowed for the kubelet's rounding).
"""

from __future__ import annotations

import pytest

from chaos.errors import Final
from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from chaos.pod import absence

POD = "wf-work-1"


def _absent(at: int, tmp_dir: bool = True) -> absence.Read:
    return absence.Read(present=False, at=at, tmp_is_directory=tmp_dir)


def test_an_absent_read_is_parsed():
    assert absence.parse("absent 1700000000 tmp-dir\n") == _absent(1700000000)


def test_a_present_read_keeps_the_content():
    read = absence.parse("present 17 tmp-other\nRUNNING\n")
    assert read == absence.Read(
        present=True, at=17, tmp_is_directory=False, content="RUNNING\n"
    )


@pytest.mark.parametrize(
    "output", ["", "error: container not found", "absent now tmp-dir", "gone 1 tmp-dir"]
)
def test_anything_else_is_no_read(output):
    assert absence.parse(output) is None


def test_a_present_marker_is_final():
    with pytest.raises(Final, match="appeared at 17"):
        absence.refuse_present(absence.parse("present 17 tmp-dir\nRUNNING\n"), POD)


def test_reads_up_to_the_end_and_a_30s_wait_are_evidence():
    reads = [_absent(100), _absent(110, tmp_dir=False), _absent(129)]
    text = absence.judge(reads, pod=POD, started=99, finished=130, limit=30, slack=5)
    assert "absent in all 3 reads" in text
    assert "(31 s)" in text
    assert "a directory in 2 of them" in text


def test_no_read_is_inconclusive():
    with pytest.raises(Inconclusive, match="before any read"):
        absence.judge([], pod=POD, started=0, finished=31, limit=30, slack=5)


def test_a_last_read_long_before_the_end_is_inconclusive():
    with pytest.raises(Inconclusive, match="10 s before main finished"):
        absence.judge([_absent(21)], pod=POD, started=0, finished=31, limit=30, slack=5)


def test_a_present_read_among_them_is_final():
    present = absence.Read(present=True, at=20, tmp_is_directory=True)
    with pytest.raises(Final):
        absence.judge(
            [_absent(10), present, _absent(30)],
            pod=POD,
            started=0,
            finished=31,
            limit=30,
            slack=5,
        )


def test_giving_up_early_is_unexpected_but_rounding_is_allowed():
    with pytest.raises(Unexpected, match="28 s after it started"):
        absence.judge([_absent(27)], pod=POD, started=0, finished=28, limit=30, slack=5)
    absence.judge([_absent(27)], pod=POD, started=0, finished=29, limit=30, slack=5)
