"""We test these aspects of the user command's markers and API timestamps: the
command reads the clock before anything else, a log with exactly one start and
one end marker parses (surrounded by other output), with the status marker's
mtime (initless) or `none` (legacy); missing, duplicated or malformed markers
raise MarkerError with the log tail; RFC 3339 timestamps with and without
fractions become epoch seconds.
"""

from __future__ import annotations

import pytest

from conformance.errors import MarkerError
from wpc.bench import markers
from wpc.bench import moments

START = "wpc-bench-start uptime=4059.18 wall=1795318924 status_mtime={}\n"
END = "wpc-bench-end uptime=4059.21\n"


def test_the_script_reads_the_clock_first_with_a_builtin():
    assert markers.SCRIPT.startswith("read -r WPC_UP WPC_IDLE </proc/uptime;")


def test_the_script_reads_the_clock_again_last():
    assert markers.SCRIPT.endswith('echo "wpc-bench-end uptime=$WPC_END"')


def test_a_legacy_log_has_no_ready_time():
    log = "noise\n" + START.format("none") + END + "trailer\n"
    assert markers.parse(log) == markers.StartMarker(
        uptime=4059.18, wall=1795318924, ready_wall=None, end_uptime=4059.21
    )


def test_an_initless_log_carries_the_status_marker_mtime():
    log = START.format("2026-11-22 03:23:12.250000999 +0000") + END
    assert markers.parse(log).ready_wall == pytest.approx(1795317792.25)


def test_stat_time_honours_the_zone():
    assert markers.stat_time("2026-11-22 04:23:12.5 +0100") == 1795317792.5


@pytest.mark.parametrize(
    "log",
    [
        "",
        "hello\n",
        END,
        START.format("none"),
        "wpc-bench-start uptime= wall=1 status_mtime=none\n" + END,
        "wpc-bench-start uptime=1.0 wall=1.5 status_mtime=none\n" + END,
        START.format("none") + START.format("none") + END,
    ],
)
def test_missing_duplicated_or_malformed_markers_raise(log):
    with pytest.raises(MarkerError, match="expected exactly one"):
        markers.parse(log)


def test_a_malformed_status_mtime_raises():
    with pytest.raises(MarkerError, match="stat -c %y"):
        markers.parse(START.format("yesterday") + END)


def test_second_resolution_timestamp():
    assert moments.epoch("2026-11-22T03:23:12Z") == 1795317792.0


def test_sub_second_timestamp_with_offset():
    assert moments.epoch("2026-11-22T04:23:12.250000+01:00") == 1795317792.25


def test_timestamp_without_zone_is_rejected():
    with pytest.raises(ValueError, match="time zone"):
        moments.epoch("2026-11-22T03:23:12")
