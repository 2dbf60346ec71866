"""We test these aspects of reading an exec's status channel (no cluster):

- Success is exit code 0; a NonZeroExitCode status yields its code;
- any other failure (the command could not start) yields no code and the
  status message, and an empty channel yields neither;
- the handshake through `Shell` (exec faked): `wait_for_file` polls `test -e`
  until the file is there, `touch` creates it in the named container and is a
  HarnessError naming pod and container when it cannot.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance.errors import HarnessError
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import executing


def test_success_is_exit_code_zero():
    assert executing._status("status: Success\nmetadata: {}\n") == (0, "")


def test_non_zero_exit_code_is_read_from_the_causes():
    text = (
        "status: Failure\nreason: NonZeroExitCode\n"
        "details: {causes: [{reason: ExitCode, message: '3'}]}\n"
        "message: 'command terminated with non-zero exit code: 3'\n"
    )
    assert executing._status(text) == (3, "")


def test_a_command_that_cannot_start_has_no_code_but_a_message():
    text = "status: Failure\nreason: InternalError\nmessage: 'exec: \"nosuch\": not found'\n"
    assert executing._status(text) == (None, 'exec: "nosuch": not found')


def test_an_empty_channel_says_nothing():
    assert executing._status("") == (None, "")


def _shell(
    monkeypatch: pytest.MonkeyPatch, codes: list[int]
) -> tuple[executing.Shell, list[tuple[str, str, list[str]]]]:
    """A Shell whose execs answer `codes` in turn, and the execs it made."""
    made: list[tuple[str, str, list[str]]] = []

    def run(clients: Any, **kwargs: Any) -> executing.Result:
        made.append((kwargs["pod"], kwargs["container"], kwargs["command"]))
        return executing.Result(returncode=codes.pop(0), output="")

    monkeypatch.setattr(executing, "run", run)
    timeouts = dataclasses.replace(Timeouts(), poll_interval=0.0)
    return executing.Shell(clients=None, namespace="ns", timeouts=timeouts), made  # type: ignore[arg-type]


def test_the_handshake_waits_for_the_file_and_creates_one(monkeypatch):
    shell, made = _shell(monkeypatch, [1, 1, 0, 0])
    shell.wait_started("p")
    shell.touch("server", "/tmp/open", container="httpd")
    assert made == [
        *[("p", "main", ["test", "-e", executing.STARTED])] * 3,
        ("server", "httpd", ["touch", "/tmp/open"]),
    ]


def test_a_touch_that_fails_names_pod_and_container(monkeypatch):
    shell, _ = _shell(monkeypatch, [1])
    with pytest.raises(HarnessError, match="touch /tmp/go in ns/p/main"):
        shell.release("p")
