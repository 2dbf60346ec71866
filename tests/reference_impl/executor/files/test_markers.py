"""We test these aspects of the status marker (contract 2.3):

the exact bodies, parsing of tokens and partial bodies, and atomicity: a reader
racing the writer sees only whole bodies, and every atomic write replaces the
file (new inode, no partial state), whereas the `no-atomic-write` fault
rewrites the same inode in place.
"""

from __future__ import annotations

import threading

import pytest

from reference_impl.executor.files import markers

BODIES = [
    markers.encode(markers.RUNNING),
    markers.encode(markers.FAILED, "x" * 5000),
    markers.encode(markers.READY),
]


@pytest.mark.parametrize(
    ("token", "message", "body"),
    [
        (markers.RUNNING, "", b"RUNNING\n"),
        (markers.READY, "", b"READY\n"),
        (markers.FAILED, "boom\nsecond line", b"FAILED\nboom\nsecond line"),
        (markers.FAILED, "", b"FAILED"),
    ],
)
def test_bodies_are_exactly_as_the_contract_says(token, message, body):
    assert markers.encode(token, message) == body


@pytest.mark.parametrize(
    ("body", "token", "message"),
    [
        (b"READY\n", markers.READY, ""),
        (
            b"FAILED\nfailed to stage files: x\n",
            markers.FAILED,
            "failed to stage files: x",
        ),
        (b"RUN", None, ""),
        (b"", None, ""),
        (b"GARBAGE\n", None, ""),
    ],
)
def test_parse_knows_tokens_and_flags_partial_bodies(body, token, message):
    assert markers.parse(body) == (token, message)


def test_absent_marker_reads_as_none(paths):
    assert markers.read_status(paths.status) is None


def test_a_reader_racing_the_writer_sees_only_whole_bodies(paths):
    stop = threading.Event()
    seen: set[bytes] = set()

    def read_loop():
        while not stop.is_set():
            try:
                seen.add(paths.status.read_bytes())
            except FileNotFoundError:
                seen.add(b"<absent>")

    reader = threading.Thread(target=read_loop)
    reader.start()
    try:
        for i in range(300):
            markers.write_status(
                path=paths.status, tmp_path=paths.status_tmp, body=BODIES[i % 3]
            )
    finally:
        stop.set()
        reader.join()
    assert seen - {b"<absent>"} <= set(BODIES)
    assert len(seen - {b"<absent>"}) >= 1


def test_atomic_writes_replace_the_file_and_leave_no_tmp(paths):
    markers.write_status(path=paths.status, tmp_path=paths.status_tmp, body=BODIES[0])
    first = paths.status.stat().st_ino
    markers.write_status(path=paths.status, tmp_path=paths.status_tmp, body=BODIES[2])
    assert paths.status.stat().st_ino != first
    assert not paths.status_tmp.exists()
    assert paths.status.stat().st_mode & 0o777 == 0o644


def test_no_atomic_write_fault_rewrites_in_place(paths):
    markers.write_status(
        path=paths.status, tmp_path=paths.status_tmp, body=BODIES[0], atomic=False
    )
    first = paths.status.stat().st_ino
    markers.write_status(
        path=paths.status, tmp_path=paths.status_tmp, body=BODIES[2], atomic=False
    )
    assert paths.status.stat().st_ino == first
    assert paths.status.read_bytes() == BODIES[2]
    assert not paths.status_tmp.exists()
