"""We test these aspects of the fault switch: every documented name parses,
empty means none, an unknown name is a ConfigError naming the value, the table
matches `common.EXECUTOR_FAULTS` (which the controller passes through), and an
unknown fault in the environment makes argoexec exit 64 with that message.
"""

from __future__ import annotations

import pytest

from reference_impl import common
from reference_impl.executor import cli
from reference_impl.executor import faults
from reference_impl.executor.errors import ConfigError


@pytest.mark.parametrize("fault", list(faults.Fault))
def test_every_fault_parses_and_is_documented(fault):
    assert faults.parse(fault.value) == fault
    assert f"`{fault.value}`" in (faults.__doc__ or "")


@pytest.mark.parametrize("value", [None, "", "  "])
def test_empty_means_no_fault(value):
    assert faults.parse(value) is None


def test_unknown_fault_names_the_value():
    with pytest.raises(ConfigError, match=r"unknown WPC_REFERENCE_FAULT value 'nope'"):
        faults.parse("nope")


def test_the_shared_list_matches_the_table():
    assert {f.value for f in faults.Fault} == common.EXECUTOR_FAULTS


def test_argoexec_refuses_an_unknown_fault(monkeypatch, paths):
    monkeypatch.setenv("WPC_REFERENCE_FAULT", "bogus")
    assert cli.main(["wait"], root=paths.root) == 64
    message = paths.termination_log.read_text()
    assert message.startswith("unknown WPC_REFERENCE_FAULT value 'bogus'")
