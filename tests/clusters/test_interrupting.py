"""SIGINT and SIGTERM become one `Interrupted`, and clean-up cannot be cut short.

We test these aspects, with real signals sent to this process: the first
signal raises `Interrupted` carrying its exit code; a second one is only
logged; inside `shielded()` a signal waits and is recorded, not raised; the
previous handlers come back afterwards; the CLI turns an interruption into
a clear message and exit code 128 + signal.
"""

from __future__ import annotations

import os
import signal

import pytest

from clusters import interrupting
from clusters.errors import ClusterError
from clusters.errors import Interrupted


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_first_signal_raises_interrupted(sig):
    with pytest.raises(Interrupted) as err, interrupting.interrupts_raise():
        os.kill(os.getpid(), sig)
    assert isinstance(err.value, ClusterError)
    assert err.value.exit_code == 128 + sig
    assert str(err.value) == f"interrupted by {signal.Signals(sig).name}"


def test_a_second_signal_is_logged_not_raised(caplog):
    with interrupting.interrupts_raise():
        with pytest.raises(Interrupted):
            os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)  # must not raise: still cleaning up
        assert interrupting.received() == signal.SIGINT
    assert "Received SIGTERM; still cleaning up" in caplog.text


def test_a_signal_during_shielded_cleanup_waits_and_is_recorded():
    with interrupting.interrupts_raise():
        with interrupting.shielded():
            os.kill(os.getpid(), signal.SIGINT)
            assert interrupting.received() is None, "blocked: not delivered yet"
        assert interrupting.received() == signal.SIGINT
    assert interrupting.received() is None, "forgotten once the block ends"


def test_previous_handlers_come_back():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with interrupting.interrupts_raise():
        assert signal.getsignal(signal.SIGINT) is not before[0]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_an_interruption_with_its_outcome_reads_as_one_sentence():
    err = Interrupted(signal.SIGTERM, outcome="rolled back: nothing is left behind")
    assert str(err) == "interrupted by SIGTERM; rolled back: nothing is left behind"
    assert err.exit_code == 143
