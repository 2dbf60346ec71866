"""We test these aspects of the plugin's options (pytester, no cluster):

- every pytest flag carries the `--wpc-` prefix, and every option has an ini key
  named after it;
- the plugin loads beside another plugin that defines `--report` and
  `--kubeconfig`, and stays inert (no `wpc:` header) while that project runs;
- the ini key `wpc_implementation` activates the suite like the flag, and other
  ini keys give values the command line overrides;
- `KUBECONFIG` names the cluster unless a kubeconfig, provider or cluster is given;
- a bad `--wpc-layout` or `wpc_layout` is refused in the words every verb uses;
- `--wpc-timeout-scale` (or its ini key) below 1, NaN or infinite is a usage error
  naming where it came from.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conformance.plugin.selection import options
from tests.conformance.conftest import DIVERGENCES
from tests.conformance.conftest import PROFILE
from tests.conformance.conftest import SPEC

HELLO = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Hello", clauses=["WPC-POD-001"])
    def test_hello():
        pass
    """
)

OTHER_PLUGIN = textwrap.dedent(
    """
    def pytest_addoption(parser):
        parser.addoption("--report", default=None)
        parser.addoption("--kubeconfig", default=None)
    """
)


def test_every_pytest_flag_is_prefixed_and_has_an_ini_key():
    for option in options.OPTIONS:
        assert all(flag.startswith("--wpc-") for flag in option.pytest_flags)
        assert option.ini == option.pytest_flags[0][2:].replace("-", "_")


def test_plugin_loads_beside_a_plugin_defining_report_and_kubeconfig(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(OTHER_PLUGIN)
    pytester.makepyfile(
        test_other=textwrap.dedent(
            """
            def test_other_options(pytestconfig):
                assert pytestconfig.getoption("report") == "out.html"
                assert pytestconfig.getoption("kubeconfig") == "/k"
            """
        )
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--report", "out.html", "--kubeconfig", "/k"
    )
    result.assert_outcomes(passed=1)
    assert "wpc:" not in result.stdout.str()
    assert "conflicting option" not in result.stderr.str()


def _ini(pytester: pytest.Pytester, **values: str) -> None:
    lines = "".join(f"{key} = {value}\n" for key, value in values.items())
    pytester.makeini("[pytest]\n" + lines)


def test_ini_implementation_activates_the_suite(suite: pytest.Pytester) -> None:
    _ini(
        suite,
        wpc_implementation=str(PROFILE),
        wpc_spec=str(SPEC),
        wpc_divergences=str(DIVERGENCES),
        wpc_layout="legacy",
    )
    suite.makepyfile(test_hello=HELLO)
    result = suite.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(
        ["wpc: implementation fake*", "*test_hello?legacy? PASSED*"]
    )


def test_the_command_line_overrides_the_ini_file(suite: pytest.Pytester) -> None:
    _ini(
        suite,
        wpc_implementation=str(PROFILE),
        wpc_spec=str(SPEC),
        wpc_divergences=str(DIVERGENCES),
        wpc_layout="legacy",
    )
    suite.makepyfile(test_hello=HELLO)
    result = suite.runpytest("-p", "no:cacheprovider", "--wpc-layout", "initless")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["wpc: layouts selected initless*"])


def test_a_bad_ini_value_names_the_key(pytester: pytest.Pytester) -> None:
    _ini(pytester, wpc_implementation=str(PROFILE), wpc_layout="sideways")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stderr.fnmatch_lines(
        ["*ini option wpc_layout: must be legacy, initless or both, not 'sideways'*"]
    )


def test_a_bad_layout_flag_is_refused_in_the_words_of_every_verb(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--wpc-layout", "sideways")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*argument --wpc-layout: must be legacy, initless or both, not 'sideways'*"]
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), Path("/env/kubeconfig")),
        (("--wpc-kubeconfig", "/given"), Path("/given")),
        (("--wpc-provider", "kind"), None),
        (("--wpc-cluster", "other"), None),
    ],
)
def test_kubeconfig_comes_from_the_environment_unless_a_cluster_is_named(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args, expected
) -> None:
    monkeypatch.setenv("KUBECONFIG", "/env/kubeconfig:/second")
    pytester.makeini("[pytest]\n")
    config = pytester.parseconfig(*args)
    assert options.kubeconfig(config) == expected


@pytest.mark.parametrize("scale", ["nan", "inf", "-1", "0", "0.5"])
@pytest.mark.parametrize("where", ["command line", "ini file"])
def test_a_timeout_scale_below_1_or_not_finite_is_refused_naming_the_option(
    pytester: pytest.Pytester, scale: str, where: str
) -> None:
    # NaN waits never run out, and a scale below 1 would shorten the windows in
    # which nothing must happen (issue 29, item 5).
    if where == "ini file":
        _ini(pytester, wpc_timeout_scale=scale)
        config = pytester.parseconfig()
        named = "ini option wpc_timeout_scale"
    else:
        pytester.makeini("[pytest]\n")
        config = pytester.parseconfig(f"--wpc-timeout-scale={scale}")
        named = "--wpc-timeout-scale"
    with pytest.raises(pytest.UsageError, match=f"^{named} .*at least 1"):
        options.settings(config)


def test_a_timeout_scale_of_at_least_1_is_taken(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    config = pytester.parseconfig("--wpc-timeout-scale", "2.5")
    assert options.settings(config).timeout_scale == 2.5
