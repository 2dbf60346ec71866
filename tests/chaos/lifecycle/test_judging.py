"""How an experiment run is judged and added to the report.

We test these aspects: the outcome's precedence (error > not-applicable >
injection-unverified > failed > passed), steady-state verdicts read from a
chaostoolkit journal, a report entry replaced (not duplicated) when an
experiment runs again, the JUnit twin, the settings read from configuration,
the declaration read from the `wpc` extension, and the failure classes.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from xml.etree import ElementTree

import pytest
import yaml

from chaos import activities
from chaos import declarations
from chaos.errors import Unexpected
from chaos.errors import Unsupported
from chaos.lifecycle import judging
from chaos.reporting import junit_xml
from chaos.reporting.chaos_report import Check
from chaos.reporting.chaos_report import ExperimentResult
from chaos.reporting.chaos_report import RunContext
from chaos.sessions import Failure
from chaos.sessions import Note
from chaos.settings import ChaosSettings
from chaos.settings import parse_vars
from plumbing.errors import WaitTimeout

OK = Check(ok=True, details="")
BAD = Check(ok=False, details="")
NOTE = Note(0.0, "probe", "seen")


def _session(*, failures=(), injections=(NOTE,), vulnerable=(NOTE,)):
    return SimpleNamespace(
        failures=list(failures),
        injections=list(injections),
        vulnerable=list(vulnerable),
    )


def _outcome(session, *, before=OK, after=OK, violations=(), errors=()):
    return judging.outcome(
        session,
        before=before,
        after=after,
        violations=list(violations),
        teardown_errors=list(errors),
    )


def test_a_clean_verified_run_passes():
    assert _outcome(_session()) == "passed"


@pytest.mark.parametrize(
    ("session", "kwargs", "expected"),
    [
        (_session(), {"before": BAD}, "error"),
        (_session(failures=[Failure("a", "error", "x")]), {}, "error"),
        (_session(), {"errors": ["namespace stuck"]}, "error"),
        (
            _session(failures=[Failure("a", "unsupported", "x")]),
            {"after": BAD},
            "not-applicable",
        ),
        (_session(injections=()), {}, "injection-unverified"),
        (_session(vulnerable=()), {}, "injection-unverified"),
        (
            _session(injections=(), failures=[Failure("a", "expectation", "x")]),
            {},
            "injection-unverified",
        ),
        (_session(failures=[Failure("a", "expectation", "x")]), {}, "failed"),
        (_session(), {"after": BAD}, "failed"),
        (_session(), {"violations": ["v"]}, "failed"),
    ],
)
def test_the_outcome_follows_its_precedence(session, kwargs, expected):
    assert _outcome(session, **kwargs) == expected


def test_steady_state_is_read_from_the_journal():
    journal = {
        "steady_states": {
            "before": {
                "steady_state_met": True,
                "probes": [{"activity": {"name": "p"}, "status": "succeeded"}],
            },
            "after": None,
        }
    }
    assert judging.steady_state(journal, "before") == Check(True, "p: held")
    assert not judging.steady_state(journal, "after").ok


CONTEXT = RunContext(
    "2026-11-24T08:00:00Z", "0.1.0", "abc", "reference", "p", "local", "v1"
)


def _result(outcome="passed", layout="legacy"):
    return ExperimentResult(
        name="e",
        layout=layout,
        outcome=outcome,
        injection_verified=outcome == "passed",
        injection_evidence="fault landed: x",
        steady_state_before=OK,
        steady_state_after=OK,
        invariants_checked=("terminal-within-deadline",),
        violations=(),
        duration_seconds=1.0,
        history_path="h",
        timeline_path="t",
        failed_checks=(("probe", "expectation", "no"),) if outcome == "failed" else (),
        faults=(("controller stopped", 1.0, 2.0),),
    )


def test_a_rerun_replaces_its_entry_and_writes_junit(tmp_path: Path):
    path = tmp_path / "chaos-reference.yaml"
    judging.add_to_report(path, CONTEXT, _result("failed"))
    judging.add_to_report(path, CONTEXT, _result("passed", layout="initless"))
    judging.add_to_report(path, CONTEXT, _result("passed"))
    report = yaml.safe_load(path.read_text())
    assert [(e["layout"], e["outcome"]) for e in report["experiments"]] == [
        ("initless", "passed"),
        ("legacy", "passed"),
    ]
    assert report["summary"]["passed"] == 2
    suite = ElementTree.parse(path.with_suffix(".junit.xml")).getroot()
    assert suite.get("tests") == "2"


def test_junit_marks_failures_with_their_evidence():
    finishing_report = {
        "implementation": {"name": "reference"},
        "experiments": [_result("failed").to_dict()],
    }
    case = ElementTree.fromstring(junit_xml.render(finishing_report)).find("testcase")
    failure = case.find("failure")
    assert failure is not None
    assert "probe (expectation): no" in failure.text


def test_settings_come_from_the_configuration():
    settings = ChaosSettings.from_configuration(
        {
            "wpc_layout": "initless",
            "wpc_profile_vars": "fault=x",
            "wpc_timeout_scale": "2",
        }
    )
    assert (settings.layout, settings.profile_vars, settings.timeout_scale) == (
        "initless",
        (("fault", "x"),),
        2.0,
    )
    with pytest.raises(ValueError, match="wpc_layout"):
        ChaosSettings.from_configuration({"wpc_layout": "both"})
    with pytest.raises(ValueError, match="NAME=VALUE"):
        parse_vars("fault")


def test_a_profile_variable_given_twice_is_refused_by_name():
    # Failed before: the second value silently won (`dict()` of the pairs).
    with pytest.raises(ValueError, match=r"^wpc_profile_vars fault given twice$"):
        ChaosSettings.from_configuration({"wpc_profile_vars": "fault=a,fault=b"})


@pytest.mark.parametrize("scale", ["nan", "inf", "0.5", "-1"])
def test_a_timeout_scale_below_1_or_not_finite_is_refused(scale):
    # A NaN wait never runs out (issue 29, item 5); the ValueError names the key.
    with pytest.raises(ValueError, match=rf"^wpc_timeout_scale {scale}.*at least 1"):
        ChaosSettings.from_configuration({"wpc_timeout_scale": scale})


def test_the_declaration_is_checked():
    declared = declarations.of(
        {"extensions": [{"name": "wpc", "experiment": "e", "deadlineSeconds": 60}]}
    )
    assert declared.layouts == ("legacy", "initless")
    assert declared.invariant_settings.deadline_seconds == 60
    with pytest.raises(ValueError, match="unknown"):
        declarations.of(
            {"extensions": [{"name": "wpc", "experiment": "e", "invariants": ["x"]}]}
        )
    with pytest.raises(ValueError, match="one `extensions`"):
        declarations.of({"title": "t"})
    declared = declarations.of(
        {
            "extensions": [
                {
                    "name": "wpc",
                    "experiment": "e",
                    "requires": ["node-faults"],
                    "recoverySeconds": 90,
                }
            ]
        }
    )
    assert (declared.requires, declared.recovery_seconds) == (("node-faults",), 90.0)
    with pytest.raises(ValueError, match=r"unknown .*requirements \['node-fault'\]"):
        declarations.of(
            {
                "extensions": [
                    {"name": "wpc", "experiment": "e", "requires": ["node-fault"]}
                ]
            }
        )
    for bad in ("90", 0, -1, float("nan"), True):
        with pytest.raises(ValueError, match="recoverySeconds must be a positive"):
            declarations.of(
                {
                    "extensions": [
                        {"name": "wpc", "experiment": "e", "recoverySeconds": bad}
                    ]
                }
            )


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (Unexpected("x"), "expectation"),
        (WaitTimeout(describe="d", timeout=1, last_observed="o"), "expectation"),
        (Unsupported("x"), "unsupported"),
        (RuntimeError("x"), "error"),
    ],
)
def test_failures_are_classified(exc, kind):
    assert activities.classify(exc) == kind


def test_a_final_expectation_ends_a_wait_at_once_and_counts_as_one():
    from chaos.errors import Final
    from plumbing.waiting import until

    calls = []

    def check():
        calls.append(1)
        raise Final("the pod is gone")

    with pytest.raises(Final):
        until(check, timeout=60, interval=0, describe="x")
    assert calls == [1]
    assert activities.classify(Final("x")) == "expectation"
