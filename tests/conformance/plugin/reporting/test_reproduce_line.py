"""We test these aspects of the report's `reproduce` line (`conformance.plugin.reporting.reproducing`):

- it is the portable `wpc run` command: a bundled profile by its name, a profile
  below the run's directory by its relative path, the options that change what
  runs (from the command line or the ini file), the workers and the pytest
  arguments after `--`; no `cd`, no interpreter, no suite folder, and none of
  the outputs (report, JUnit XML, allure results);
- the pytest line `wpc run` launches comes back to exactly the user's pytest
  arguments, and the qualification still reads the `ref` profile variable back
  from the line.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from conformance.plugin.reporting import reproducing
from tests.conformance.conftest import DIVERGENCES
from tests.conformance.conftest import PROFILE
from tests.conformance.conftest import SPEC
from tests.conformance.conftest import wpc_args
from wpc.qualify import builds
from wpc.run import launching

FINALIZER = """
import pytest

@pytest.mark.conformance(short_name="Finalizer", clauses=["WPC-FINALIZER-001"])
def test_finalizer():
    pass
"""


def test_a_bundled_profile_is_named_and_a_local_one_is_relative(tmp_path):
    assert reproducing.implementation("reference", tmp_path) == "reference"
    bundled = reproducing.implementation(
        str(Path(launching.profiles.PROFILES_DIR, "argo-workflows.yaml")), tmp_path
    )
    assert bundled == "argo-workflows"
    mine = tmp_path / "profiles" / "acme.yaml"
    mine.parent.mkdir()
    mine.write_text("")
    assert reproducing.implementation(str(mine), tmp_path) == "profiles/acme.yaml"


def test_the_launched_pytest_line_comes_back_to_the_users_arguments(tmp_path):
    request = launching.RunRequest(
        options={
            "wpc_implementation": "argo-workflows",
            "wpc_select": ["HelloWorld"],
            "wpc_profile_vars": ["ref=v4.1.2"],
        },
        reports_dir=Path("reports"),
        workers=4,
        pytest_args=("-k", "hello", "--maxfail=3"),
    )
    argv = launching.pytest_command(request)[3:]  # after `python -m pytest`
    assert reproducing.pytest_arguments(argv, tmp_path) == [
        "-k",
        "hello",
        "--maxfail=3",
    ]


def test_the_report_carries_the_wpc_run_line(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_finalizer=FINALIZER)
    profile = suite.path / "profiles" / "fake.yaml"
    profile.parent.mkdir()
    shutil.copy(PROFILE, profile)
    spec = suite.path / "spec.yaml"
    shutil.copy(SPEC, spec)
    report = suite.path / "reports" / "conformance-fake.yaml"
    args = wpc_args(
        *("--wpc-report", str(report), "--wpc-junit", str(suite.path / "j.xml")),
        *("--alluredir", str(suite.path / "allure"), "--clean-alluredir"),
        *("--wpc-select", "Finalizer", "--wpc-timeout-scale=2", "-k", "finalizer"),
        profile=profile,
    )
    args[args.index(str(SPEC))] = str(spec)
    result = suite.runpytest(*args)
    result.assert_outcomes(passed=2)
    line = yaml.safe_load(report.read_text())["run"]["reproduce"]
    # pytester adds its own --basetemp=..., an argument pytest was given like any other.
    assert line.split(" --basetemp=")[0] == shlex.join(
        [
            *("wpc", "run", "--implementation", "profiles/fake.yaml"),
            *("--layout", "both", "--select", "Finalizer", "--timeout-scale", "2.0"),
            *("--wpc-spec", "spec.yaml", "--wpc-divergences", str(DIVERGENCES)),
            *("--", "-p", "no:cacheprovider"),
            *("-W", "ignore::pytest.PytestAssertRewriteWarning", "-k", "finalizer"),
        ]
    )


def test_the_qualification_reads_the_ref_back():
    line = (
        "wpc run --implementation argo-workflows --layout both --profile-var ref=v4.1.0"
    )
    assert builds.recorded_ref(line) == "v4.1.0"
