"""We test these aspects of which cluster `wpc run` uses (generated kubeconfigs, no cluster):

- `--provider existing` reads what kubectl reads: `KUBECONFIG` (a list, merged)
  and its current context, or `--context`; `--cluster PATH` names one file; with
  `KUBECONFIG` unset, ~/.kube/config;
- the local provider takes no `--context`; `--kubeconfig F` is used as it is,
  or that context of F with `--context`;
- a missing or unreadable kubeconfig or an unknown context stops `wpc run` with
  exit code 10 naming the file or context, before anything starts, and no
  traceback; `--list` says so on its cluster line and still lists;
- the run gives pytest the chosen context alone, in a private file, as the
  existing provider's cluster and as `KUBECONFIG`, and removes it afterwards;
  nothing brings a cluster up;
- `--list` names the cluster a run would use: provider, context and server.
"""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from plumbing import forwarding
from tests.clusters.access.test_kubeconfigs import kubeconfig
from tests.clusters.access.test_kubeconfigs import one_context
from wpc import suite_cli as cli
from wpc.run import launching
from wpc.run import targeting

EXISTING = {"wpc_implementation": "reference", "wpc_provider": "existing"}


def two_contexts(path: Path) -> Path:
    """A default context on an unreachable port and a second one elsewhere."""
    return kubeconfig(
        path,
        current="default",
        clusters={
            "nowhere": {"server": "https://127.0.0.1:1"},
            "there": {"server": "https://127.0.0.1:6443"},
        },
        users={"a": {"token": "a"}, "b": {"token": "b"}},
        contexts={"default": ("nowhere", "a"), "second": ("there", "b")},
    )


def lookup(variable: str = "", home: Path = Path("/nonexistent-home")):
    return targeting.Lookup(variable=variable, home=home)


def test_lookup_reads_kubeconfig_and_home():
    found = targeting.Lookup.from_env({"KUBECONFIG": "/a:/b", "HOME": "/h"})
    assert found == targeting.Lookup(variable="/a:/b", home=Path("/h"))


def test_existing_takes_kubeconfigs_current_context_or_the_named_one(tmp_path):
    path = two_contexts(tmp_path / "config")
    other = one_context(tmp_path / "other", "third", "https://127.0.0.1:7443")
    variable = f"{path}:{other}"
    chosen = targeting.choose(EXISTING, None, lookup(variable))
    assert chosen is not None
    assert (chosen.context, chosen.server) == ("default", "https://127.0.0.1:1")
    second = targeting.choose(EXISTING, "second", lookup(variable))
    assert second is not None
    assert second.server == "https://127.0.0.1:6443"
    third = targeting.choose(EXISTING, "third", lookup(variable))
    assert third is not None
    assert third.server == "https://127.0.0.1:7443"


def test_existing_without_kubeconfig_reads_the_home_default(tmp_path):
    one_context(tmp_path / ".kube" / "config", "home", "https://home:6443")
    chosen = targeting.choose(EXISTING, None, lookup("", tmp_path))
    assert chosen is not None
    assert chosen.context == "home"


def test_a_cluster_path_names_one_kubeconfig_file(tmp_path):
    path = two_contexts(tmp_path / "config")
    given = {**EXISTING, "wpc_cluster_name": str(path)}
    chosen = targeting.choose(given, "second", lookup("/not/read"))
    assert chosen is not None
    assert chosen.origin == str(path)


def test_the_local_provider_takes_no_context_and_a_given_kubeconfig_is_used_as_is(
    tmp_path,
):
    local = {"wpc_implementation": "reference"}
    assert targeting.choose(local, None, lookup()) is None
    with pytest.raises(DataError, match="--context second: the local provider"):
        targeting.choose(local, "second", lookup())
    path = two_contexts(tmp_path / "config")
    given = {**local, "wpc_kubeconfig": path}
    assert targeting.choose(given, None, lookup()) is None
    chosen = targeting.choose(given, "second", lookup())
    assert chosen is not None
    assert chosen.context == "second"


def test_missing_files_and_unknown_contexts_are_named(tmp_path):
    missing = tmp_path / "missing"
    with pytest.raises(DataError, match=f"{missing}: no such file"):
        targeting.choose(EXISTING, None, lookup(str(missing)))
    path = two_contexts(tmp_path / "config")
    with pytest.raises(DataError, match="--context 'typo' is not a context of"):
        targeting.choose(EXISTING, "typo", lookup(str(path)))


def test_the_list_line_names_provider_context_server_and_files(tmp_path):
    path = two_contexts(tmp_path / "config")
    line = targeting.describe(EXISTING, "second", lookup(str(path)))
    assert line == (
        f"cluster: existing, context second at https://127.0.0.1:6443 (from {path})"
    )
    assert targeting.describe({"wpc_implementation": "r"}, None, lookup()) == (
        "cluster: the local provider's cluster wpc (`wpc cluster up` makes it when "
        "it is not running)"
    )
    unusable = targeting.describe(EXISTING, None, lookup(str(tmp_path / "nope")))
    assert unusable.startswith("cluster: none a run could use: ")
    assert "exit 10" in unusable


def test_wpc_run_list_says_which_cluster(tmp_path, monkeypatch, capsys):
    path = two_contexts(tmp_path / "config")
    monkeypatch.setenv("KUBECONFIG", str(path))
    argv = ["run", "--implementation", "reference", "--provider", "existing"]
    assert cli.main([*argv, "--context", "second", "--list"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("cluster: existing, context second at https://127.0.0.1:")


@pytest.mark.parametrize(
    ("extra", "named"),
    [((), "missing/kubeconfig: no such file"), (("--context", "typo"), "'typo'")],
)
def test_wpc_run_stops_with_exit_10_naming_the_file_or_context(tmp_path, extra, named):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    if extra:
        env["KUBECONFIG"] = str(two_contexts(tmp_path / "config"))
    else:
        env["KUBECONFIG"] = str(tmp_path / "missing" / "kubeconfig")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--implementation",
            "reference",
            "--provider",
            "existing",
            *extra,
        ],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert proc.returncode == ExitCode.INVALID_INPUT, proc.stderr
    assert named in proc.stderr
    assert "Traceback" not in proc.stderr
    assert "--provider existing: " in proc.stderr
    assert not (tmp_path / "reports").exists()


def test_the_run_hands_pytest_the_chosen_context_alone(tmp_path, monkeypatch):
    path = two_contexts(tmp_path / "config")
    monkeypatch.setenv("KUBECONFIG", str(path))
    seen: dict[str, object] = {}

    def no_cluster_up(*args, **kwargs):
        raise AssertionError(f"an existing cluster is never brought up: {args}")

    def pytest_child(command, env=None):
        flag = command.index("--wpc-cluster")
        given = Path(command[flag + 1])
        seen.update(
            provider=command[command.index("--wpc-provider") + 1],
            file=given,
            env=(env or {}).get("KUBECONFIG"),
            mode=stat.S_IMODE(given.stat().st_mode),
            document=yaml.safe_load(given.read_text()),
        )
        return 0

    monkeypatch.setattr(forwarding, "run_to_end", no_cluster_up)
    monkeypatch.setattr(forwarding, "run_forwarding", pytest_child)
    request = launching.RunRequest(
        options={**EXISTING, "wpc_report": tmp_path / "r.yaml"},
        reports_dir=tmp_path,
        context="second",
    )
    assert launching.run(request) == 0
    assert seen["provider"] == "existing"
    assert seen["env"] == str(seen["file"])
    assert seen["mode"] == 0o600
    document = seen["document"]
    assert isinstance(document, dict)
    assert document["current-context"] == "second"
    assert [c["cluster"]["server"] for c in document["clusters"]] == [
        "https://127.0.0.1:6443"
    ]
    assert not Path(str(seen["file"])).exists()
    assert path.read_text() == two_contexts(tmp_path / "again").read_text()
