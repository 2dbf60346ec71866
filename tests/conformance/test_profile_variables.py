"""We test these aspects of profile `variables` and `--profile-var`:

- a profile without `variables` loads and renders as before (backwards compatible);
- declared variables are placeholders in every command, filled with their defaults,
  or with the values a run gives; the controller commands of a run see them too;
- instance IDs may use declared variables (one instance per value, e.g. per fault);
  an undeclared one, or a filled-in ID that is no DNS label, is an error;
- a variable the profile does not declare, a malformed or repeated --profile-var,
  and a variable named like a built-in placeholder are errors naming the problem;
- end to end (pytester, fake cluster): --profile-var reaches the profile, and an
  undeclared name is a usage error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.harness.instances import layouts
from conformance.implementations import driving
from conformance.implementations import profiles
from conformance.plugin.selection import options
from tests.conformance.conftest import wpc_args
from tests.conformance.test_implementations import KNOWN
from tests.conformance.test_implementations import write_profile

VALUES = {
    "repo": "/repo",
    "python": "python3",
    "kubeconfig": "/kc",
    "kubectl": "kubectl",
    "provider": "local",
    "cluster": "wpc",
    "cache_dir": "/cache",
}


def faulty_profile(tmp_path: Path, **changes: object) -> Path:
    return write_profile(
        tmp_path,
        variables={"fault": "", "tier": "gold"},
        commands__install=[["deploy", "{instance_id}", "--fault", "{fault}", "{tier}"]],
        commands__prepare=[["prepare", "{tier}"]],
        **changes,
    )


def test_a_profile_without_variables_has_none():
    profile = profiles.load("reference")
    assert profile.variables == {}


def test_declared_variables_render_with_their_defaults(tmp_path):
    profile = profiles.load(str(faulty_profile(tmp_path)), known_features=KNOWN)
    values = profiles.placeholder_values(profile, {**VALUES, "instance_id": "i1"})
    command = profile.commands["install"][0]
    assert profiles.render(command, values) == [
        "deploy",
        "i1",
        "--fault",
        "",
        "gold",
    ]


def test_given_values_override_the_defaults(tmp_path):
    profile = profiles.load(
        str(faulty_profile(tmp_path)),
        known_features=KNOWN,
        variables={"fault": "never-ready"},
    )
    assert profile.variables == {"fault": "never-ready", "tier": "gold"}


def test_the_driver_passes_variables_to_instance_commands(tmp_path):
    out = tmp_path / "out.txt"
    path = write_profile(
        tmp_path,
        variables={"fault": ""},
        commands__install=[
            ["sh", "-c", 'echo "$0 $1" > "$2"', "{fault}", "{layout}", str(out)]
        ],
    )
    profile = profiles.load(
        str(path), known_features=KNOWN, variables={"fault": "exit-1-not-65"}
    )
    driver = driving.Driver(
        profile=profile, values=VALUES, log_dir=tmp_path / "logs", timeout=10
    )
    driver.install([layouts.Instance("initless", "i1", "ns1")])
    assert out.read_text() == "exit-1-not-65 initless\n"


def test_instance_ids_may_use_variables(tmp_path):
    path = faulty_profile(
        tmp_path,
        controller__instances={"legacy": "neg-{fault}-l", "initless": "neg-i"},
    )
    profile = profiles.load(
        str(path), known_features=KNOWN, variables={"fault": "never-ready"}
    )
    assert profile.instance("legacy").instance_id == "neg-never-ready-l"
    assert profile.instance("legacy").namespace == "fake-legacy"
    assert profile.instance("initless").instance_id == "neg-i"


def test_an_instance_id_may_not_use_an_undeclared_variable(tmp_path):
    path = write_profile(tmp_path, controller__instances={"legacy": "neg-{fault}"})
    with pytest.raises(
        DataError,
        match=r"controller.instances.legacy: unknown placeholder \{fault\} "
        r"\(the profile declares: none\)",
    ):
        profiles.load(str(path), known_features=KNOWN)


@pytest.mark.parametrize("fault", ["Never_Ready", "x" * 41, ""])
def test_a_filled_instance_id_must_be_a_dns_label(tmp_path, fault):
    path = faulty_profile(tmp_path, controller__instances={"legacy": "{fault}"})
    with pytest.raises(DataError, match=r"is not a DNS label of at most 40"):
        profiles.load(str(path), known_features=KNOWN, variables={"fault": fault})


def test_an_undeclared_variable_is_an_error_naming_the_declared_ones(tmp_path):
    with pytest.raises(
        DataError,
        match=r"unknown profile variable\(s\) faul \(the profile declares: fault, tier\)",
    ):
        profiles.load(
            str(faulty_profile(tmp_path)), known_features=KNOWN, variables={"faul": "x"}
        )


def test_a_profile_without_variables_refuses_any():
    with pytest.raises(DataError, match=r"declares: none"):
        profiles.load("reference", variables={"fault": "x"})


def test_an_undeclared_placeholder_is_still_an_error(tmp_path):
    path = write_profile(tmp_path, commands__install=[["deploy", "{fault}"]])
    with pytest.raises(DataError, match=r"unknown placeholder \{fault\}"):
        profiles.load(str(path), known_features=KNOWN)


@pytest.mark.parametrize("name", ["layout", "kubeconfig", "executor_image"])
def test_a_variable_may_not_shadow_a_built_in_placeholder(tmp_path, name):
    path = write_profile(tmp_path, variables={name: "x"})
    with pytest.raises(DataError, match=rf"variables\.{name}: clashes"):
        profiles.load(str(path), known_features=KNOWN)


def test_variable_names_are_checked_by_the_schema(tmp_path):
    path = write_profile(tmp_path, variables={"Fault-Name": "x"})
    with pytest.raises(DataError, match=r"variables: 'Fault-Name' does not match"):
        profiles.load(str(path), known_features=KNOWN)


def test_profile_var_options_parse_into_a_mapping():
    assert options.profile_vars(["fault=never-ready", "empty=", "eq=a=b"]) == {
        "fault": "never-ready",
        "empty": "",
        "eq": "a=b",
    }


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        (["fault"], "must look like NAME=VALUE"),
        (["=x"], "must look like NAME=VALUE"),
        (["fault=a", "fault=b"], "given twice"),
    ],
)
def test_malformed_profile_vars_are_usage_errors(pairs, message):
    with pytest.raises(pytest.UsageError, match=message):
        options.profile_vars(pairs)


def test_profile_var_reaches_the_run(suite, tmp_path):
    profile = faulty_profile(tmp_path)
    suite.makepyfile(
        test_vars="""
        def test_vars(profile):
            assert profile.variables == {
                "fault": "never-ready", "tier": "gold"}
        """
    )
    result = suite.runpytest(
        *wpc_args("--wpc-profile-var", "fault=never-ready", profile=profile)
    )
    result.assert_outcomes(passed=1)


def test_an_undeclared_profile_var_is_a_usage_error(suite, tmp_path):
    suite.makepyfile(test_vars="def test_vars():\n    pass\n")
    result = suite.runpytest(
        *wpc_args("--wpc-profile-var", "faul=x", profile=faulty_profile(tmp_path))
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown profile variable(s) faul*"])
