"""We test these aspects of collection, end to end with pytester:

- the plugin is inert without --wpc-implementation (markers registered, suite skipped);
- a suite test fans out over the layouts its clauses apply to;
- --wpc-layout deselects the other layout's items;
- an unclaimed feature skips with exactly "implementation does not claim X";
- invalid markers (unknown clause, unknown feature, wrong ShortName) are collection errors;
- profile and --wpc-features validation errors name the key.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.conformance.conftest import PROFILE_LEGACY_ONLY
from tests.conformance.conftest import wpc_args

HELLO = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Hello", clauses=["WPC-POD-001"])
    def test_hello():
        pass
    """
)


def test_plugin_is_inert_without_implementation(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "wpc:" not in result.stdout.str()


def test_marker_is_registered_even_when_inert(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["*@pytest.mark.conformance(short_name, clauses*"])


def test_a_test_runs_once_per_claimed_layout(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_hello=HELLO)
    result = suite.runpytest(*wpc_args("-v"))
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["*test_hello?legacy? PASSED*", "*test_hello?initless? PASSED*"]
    )


def test_layout_option_deselects_the_other_layout(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_hello=HELLO)
    result = suite.runpytest(*wpc_args("--wpc-layout", "initless", "-v"))
    result.assert_outcomes(passed=1, deselected=1)


def test_clauses_of_one_layout_run_only_there(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_marker=textwrap.dedent(
            """
            import pytest

            @pytest.mark.conformance(short_name="Marker", clauses=["WPC-INITLESS-001"])
            def test_marker():
                pass
            """
        )
    )
    result = suite.runpytest(*wpc_args("--collect-only", "-q"))
    result.stdout.fnmatch_lines(["*test_marker?initless?"])
    assert "legacy" not in result.stdout.str()


def test_unclaimed_feature_is_skipped_with_the_exact_reason(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(
        test_retry=textwrap.dedent(
            """
            import pytest

            @pytest.mark.conformance(short_name="Retry", clauses=["WPC-RECOVERY-001"], features=["RETRY"])
            def test_retry():
                pass
            """
        )
    )
    result = suite.runpytest(*wpc_args("-rs"))
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["SKIPPED * implementation does not claim RETRY"])


def test_unclaimed_layout_is_skipped_not_run(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_hello=HELLO)
    result = suite.runpytest(*wpc_args("-rs", profile=PROFILE_LEGACY_ONLY))
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["SKIPPED * implementation does not claim INITLESS_LAYOUT"]
    )


def test_features_option_overrides_the_profile_claims(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_hello=HELLO)
    result = suite.runpytest(*wpc_args("--wpc-features", "LEGACY_LAYOUT", "-rs"))
    result.assert_outcomes(passed=1, skipped=1)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            'short_name="Bad", clauses=["WPC-NOPE-999"]',
            "*unknown clause ID(s): WPC-NOPE-999*",
        ),
        (
            'short_name="Bad", clauses=["WPC-POD-001"], features=["TELEPORT"]',
            "*unknown feature(s): TELEPORT*",
        ),
        (
            'short_name="Wrong", clauses=["WPC-POD-001"]',
            "*must match the file name test_bad.py ('Bad')*",
        ),
        (
            'short_name="Bad", clauses=[]',
            "*clauses must name at least one spec clause ID*",
        ),
        (
            'short_name="Bad", clauses=["WPC-POD-003"]',
            "*retired clause ID(s) may no longer be cited: WPC-POD-003*",
        ),
        (
            'short_name="Bad", clauses=["WPC-POD-001"], colour="red"',
            "*unknown marker argument(s): colour*",
        ),
    ],
)
def test_invalid_marker_is_a_collection_error(
    suite: pytest.Pytester, marker: str, message: str
) -> None:
    suite.makepyfile(
        test_bad=f"import pytest\n\n@pytest.mark.conformance({marker})\ndef test_bad():\n    pass\n"
    )
    result = suite.runpytest(*wpc_args())
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_unknown_feature_in_features_option_is_a_usage_error(
    suite: pytest.Pytester,
) -> None:
    result = suite.runpytest(*wpc_args("--wpc-features", "LEGACY_LAYOUT,WARP"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--wpc-features: unknown feature(s) WARP*"])


def test_invalid_profile_is_a_usage_error_naming_the_key(
    suite: pytest.Pytester,
) -> None:
    bad = suite.path / "bad.yaml"
    bad.write_text(
        (PROFILE_LEGACY_ONLY.read_text()).replace(
            "features: []", "features: [WARP_DRIVE]"
        )
    )
    result = suite.runpytest(*wpc_args(profile=bad))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*features[[]0[]]: unknown feature 'WARP_DRIVE'*"])


def test_core_features_are_judged_even_when_the_profile_does_not_list_them(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(
        test_status=textwrap.dedent(
            """
            import pytest

            @pytest.mark.conformance(short_name="Status", clauses=["WPC-POD-002"], features=["NODE_STATUS"])
            def test_status():
                pass
            """
        )
    )
    result = suite.runpytest(*wpc_args("-rs"))
    result.assert_outcomes(passed=2)
