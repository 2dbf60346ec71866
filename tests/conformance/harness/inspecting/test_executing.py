"""We test these aspects of reading an exec's status channel (no cluster):

- Success is exit code 0; a NonZeroExitCode status yields its code;
- any other failure (the command could not start) yields no code and the
  status message, and an empty channel yields neither.
"""

from __future__ import annotations

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
