"""We test these aspects of a profile's organization, url and contact (#26):

- all three are optional: a profile without them loads, and the report's
  implementation block then has none of them;
- given, they are validated (a URL that is not http(s), an empty contact list, an
  empty organization are errors naming the key) and reach the report's
  implementation block, which still validates against report.schema.json;
- the bundled profiles say who answers for them: reference is this project,
  argo-workflows (and argo-workflows-images) the Argo project on GitHub.
"""

from __future__ import annotations

import pytest
import yaml

from conformance.errors import DataError
from conformance.implementations import profiles
from conformance.report.runs import documents
from tests.conformance.conftest import wpc_args
from tests.conformance.test_implementations import KNOWN
from tests.conformance.test_implementations import write_profile

MAKER = {
    "organization": "Example Corp",
    "url": "https://github.com/example/controller",
    "contact": ["@someone", "https://github.com/example/controller/issues"],
}


def test_a_profile_without_them_has_none(tmp_path):
    profile = profiles.load(str(write_profile(tmp_path)), known_features=KNOWN)
    assert profile.maker() == {}


def test_given_they_are_loaded(tmp_path):
    path = write_profile(tmp_path, **MAKER)
    assert profiles.load(str(path), known_features=KNOWN).maker() == MAKER


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("url", "github.com/example"),
        ("url", "ftp://example.com/x"),
        ("contact", []),
        ("contact", "@someone"),
        ("organization", ""),
    ],
)
def test_a_bad_value_is_an_error_naming_the_key(tmp_path, key, value):
    path = write_profile(tmp_path, **{key: value})
    with pytest.raises(DataError, match=rf"invalid implementation profile:\n  {key}"):
        profiles.load(str(path), known_features=KNOWN)


def test_the_bundled_profiles_say_who_answers_for_them():
    assert profiles.load("reference").url == "https://wpc.dev"
    for name in ("argo-workflows", "argo-workflows-images"):
        argo = profiles.load(name)
        assert argo.organization.startswith("Argo Project")
        assert argo.url == "https://github.com/argoproj/argo-workflows"
        assert argo.contact == ("https://github.com/argoproj/argo-workflows/issues",)


def test_the_report_carries_them(suite, tmp_path):
    suite.makepyfile(
        test_finalizer="""
import pytest

@pytest.mark.conformance(short_name="Finalizer", clauses=["WPC-FINALIZER-001"])
def test_finalizer():
    pass
"""
    )
    profile = write_profile(tmp_path, **MAKER)
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(*wpc_args("--wpc-report", str(report), profile=profile))
    result.assert_outcomes(passed=2)
    document = yaml.safe_load(report.read_text())
    documents.validate(document)
    implementation = document["implementation"]
    assert {key: implementation[key] for key in MAKER} == MAKER
    page = report.with_suffix(".html").read_text()
    assert "<dt>organization</dt><dd>Example Corp</dd>" in page
