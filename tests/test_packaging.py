"""We test these aspects of the built distribution (no cluster, no network):

- the wheel carries every tracked file under the project's packages, so the
  suite finds its probe source, kustomize configs, schemas and spec at run time,
  and the HTML report pages their Jinja2 templates;
- it carries the LICENSE and the version from `conformance.__version__`;
- its metadata names the distribution `wpc-conformance` and carries the
  project's URLs (Homepage, Documentation, Source, Issues); with no public URL
  yet, each is the path of a tracked file, so none points nowhere;
- installed into a fresh venv, its `wpc` console script answers `--help` and
  checks a bundled profile, importing the installed copy, not the checkout, and
  draws a report's HTML page from the templates the wheel carries;
- from there, `wpc chaos run --list` lists every experiment of the chaos suite
  (the suite ships in the package), importing nothing from the checkout, and its
  phases' pytest processes collect every case (`-- --collect-only`, no cluster)
  with the suite's markers known although no project config is there.

The fresh venv gets the wheel alone (`--no-deps`); its dependencies come from
this interpreter's site-packages through a `.pth` line, so nothing is downloaded.
"""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path
from typing import Any

import pytest

import conformance

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("conformance", "chaos", "clusters", "plumbing", "reference_impl", "wpc")

pytestmark = pytest.mark.slow


def _tracked_files(*, everything: bool = False) -> list[str]:
    """Tracked files under the packages (`everything`: in the whole checkout)."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout to know the tracked files")
    out = subprocess.run(
        [
            "git",
            "-C",
            str(REPO),
            "ls-files",
            "-z",
            "--",
            *([] if everything else PACKAGES),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [name for name in out.split("\0") if name]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the tracked files (the checkout stays clean)."""
    source = tmp_path_factory.mktemp("source")
    for name in [*_tracked_files(), "pyproject.toml", "README.md", "LICENSE"]:
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(dist),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (found,) = dist.glob("wpc_conformance-*.whl")
    return found


def test_wheel_carries_every_tracked_file_under_the_packages(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in _tracked_files() if name not in names]
    assert missing == []


def test_wheel_carries_the_report_pages_templates(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "plumbing/templates/page.html.j2",
        "plumbing/templates/page.css",
        "plumbing/templates/macros.html.j2",
        "conformance/report/rendering/templates/report.html.j2",
        "chaos/reporting/templates/chaos.html.j2",
    } <= names


def test_wheel_carries_the_licence_and_the_single_sourced_version(wheel):
    assert wheel.name.startswith(f"wpc_conformance-{conformance.__version__}-")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "wpc = wpc.cli:main" in text


URL_LABELS = ("Homepage", "Documentation", "Source", "Issues")


def test_wheel_metadata_names_the_distribution_and_its_urls(wheel):
    archive = zipfile.ZipFile(wheel)
    metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    headers = email.parser.HeaderParser().parsestr(archive.read(metadata).decode())
    assert headers["Name"] == "wpc-conformance"
    pairs = [value.split(",", 1) for value in headers.get_all("Project-URL") or []]
    urls = {label.strip(): url.strip() for label, url in pairs}
    assert sorted(urls) == sorted(URL_LABELS)
    tracked = set(_tracked_files(everything=True))
    assert {label: url for label, url in urls.items() if url not in tracked} == {}


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; its dependencies from this interpreter."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = _site(python)
    # Dependencies from this interpreter, after the venv's own site-packages.
    Path(site, "_wpc_test_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return env_dir


def _site(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _from_elsewhere(tmp_path: Path) -> dict[str, Any]:
    """From an empty directory, no PYTHONPATH: nothing may come from the checkout."""
    return {
        "cwd": tmp_path,
        "capture_output": True,
        "text": True,
        "env": {"PATH": "/usr/bin:/bin"},
    }


def test_installed_wheel_runs_help_and_checks_a_bundled_profile(installed, tmp_path):
    python = installed / "bin" / "python"
    site = _site(python)
    wpc = installed / "bin" / "wpc"
    run = _from_elsewhere(tmp_path)
    helped = subprocess.run([str(wpc), "--help"], **run)
    assert helped.returncode == 0, helped.stderr
    assert "profile check" in helped.stdout
    checked = subprocess.run(
        [str(wpc), "profile", "check", "argo-workflows-images"], **run
    )
    assert checked.returncode == 0, checked.stderr
    assert (
        f"{site}/conformance/profiles/argo-workflows-images.yaml: valid profile"
        in checked.stdout
    )
    where = subprocess.run(
        [str(python), "-c", "import conformance.tools as t; print(t.PROBE_SOURCE)"],
        **run,
    )
    assert (Path(where.stdout.strip()) / "go.mod").is_file()


def test_installed_wheel_draws_a_report_page_from_its_templates(installed, tmp_path):
    report = tmp_path / "conformance-reference.yaml"
    shutil.copy(
        REPO / "docs/results/conformance-2026-11-28/conformance-reference.yaml", report
    )
    drawn = subprocess.run(
        [str(installed / "bin" / "wpc"), "html", str(report)],
        **_from_elsewhere(tmp_path),
    )
    assert drawn.returncode == 0, drawn.stderr
    page = report.with_suffix(".html").read_text()
    assert '<div class="banner PASS" id="banner">' in page


# What `wpc chaos run --list` imports, checked in the same process that lists.
LIST_AND_SAY_WHERE_FROM = """
import sys
from wpc.cli import main
code = main(["chaos", "run", "--list"])
sys.stdout.flush()
files = [getattr(m, "__file__", None) or "" for m in list(sys.modules.values())]
# The dependencies' site-packages may sit inside the checkout (a clone's .venv).
deps = sys.argv[2]
print(
    "checkout:",
    [f for f in files if f.startswith(sys.argv[1]) and not f.startswith(deps)],
)
sys.exit(code)
"""


def test_installed_wheel_lists_the_whole_chaos_suite(installed, tmp_path):
    run = _from_elsewhere(tmp_path)
    listed = subprocess.run(
        [str(installed / "bin" / "wpc"), "chaos", "run", "--list"], **run
    )
    assert listed.returncode == 0, listed.stderr
    experiments = sorted(
        p.stem for p in (REPO / "chaos" / "experiments").glob("*.yaml")
    )
    assert f"{len(experiments)} experiments," in listed.stdout
    assert {line.split()[-1] for line in listed.stdout.splitlines()[1:-1]} == set(
        experiments
    )
    imported = subprocess.run(
        [
            str(installed / "bin" / "python"),
            "-c",
            LIST_AND_SAY_WHERE_FROM,
            str(REPO),
            sysconfig.get_path("purelib"),
        ],
        **run,
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.splitlines()[-1] == "checkout: []"


def test_installed_wheel_collects_every_case_of_the_chaos_suite(installed, tmp_path):
    collected = subprocess.run(
        [
            str(installed / "bin" / "wpc"),
            *("chaos", "run", "--layout", "legacy", "--", "--collect-only", "-q"),
        ],
        **_from_elsewhere(tmp_path),
    )
    assert collected.returncode == 0, collected.stdout[-3000:]
    out = collected.stdout
    assert "PytestUnknownMarkWarning" not in out
    listed = subprocess.run(
        [
            str(installed / "bin" / "wpc"),
            "chaos",
            "run",
            "--layout",
            "legacy",
            "--list",
        ],
        **_from_elsewhere(tmp_path),
    ).stdout.splitlines()[1:-1]
    for phase, layout, name in (line.split() for line in listed):
        assert f"[{phase}] " in out, phase
        assert f"[{name}-{layout}]" in out, name
    # Logs and reports below the directory it ran from, not in the package.
    assert (tmp_path / "reports" / "chaos" / "pytest-node.log").is_file()
