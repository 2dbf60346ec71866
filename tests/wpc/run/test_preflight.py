"""We test these aspects of the checks before a run changes the host:

- an unknown implementation, a profile with a typo, an unknown provider, a
  layout the profile does not claim, an unknown feature or a missing file each
  stop `python -m conformance run` with exit code 10 within 5 CPU seconds, naming the
  option, file and key (a timeout scale that is NaN, infinite or below 1 too),
  before `clusters up`: the state and cache directories
  are never created;
- every problem is reported at once;
- the local provider needs root, Go and apt on the host, and says so;
- a valid request passes and returns the profile.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.implementations import checking
from wpc.run import preflight

ROOT_WITH_EVERYTHING = preflight.Host(
    which=lambda tool: f"/usr/bin/{tool}", euid=lambda: 0
)


def values(**given: object) -> dict[str, object]:
    found: dict[str, object] = {"wpc_implementation": "reference", "wpc_layout": "both"}
    found.update(given)
    return found


def typo_profile(tmp_path: Path) -> Path:
    path = checking.write_skeleton(tmp_path / "typo.yaml")
    path.write_text(path.read_text().replace("  stop:\n", "  stopp:\n"))
    return path


def run_cli(
    tmp_path: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {
        **os.environ,
        "WPC_STATE_DIR": str(tmp_path / "state"),
        "WPC_CACHE_DIR": str(tmp_path / "cache"),
    }
    # CPU seconds of the child, not wall time: the unit stage shares two cores with a
    # test that loads them to twice their count, and a bound on wall time would
    # measure that neighbour. The work before the first host change is what counts.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-m", "conformance", "run", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, cpu


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--implementation", "nosuch"), "unknown implementation 'nosuch'"),
        (
            ("--implementation", "reference", "--provider", "nosuch"),
            "--provider nosuch: unknown provider",
        ),
        (
            ("--implementation", "reference", "--features", "WARP"),
            "--features: unknown feature(s) WARP",
        ),
        (
            ("--implementation", "reference", "--kubeconfig", "/nonexistent/kc"),
            "--kubeconfig: /nonexistent/kc is not a file",
        ),
        *(
            (
                ("--implementation", "reference", "--timeout-scale", scale),
                f"--timeout-scale {scale}: must be a finite number of at least 1",
            )
            for scale in ("nan", "inf", "0.5")
        ),
        (
            ("--implementation", "reference", "--shard", "5/4"),
            "--shard 5/4: I must be between 1 and N",
        ),
        (
            ("--implementation", "reference", "--durations-file", "/nonexistent/d"),
            "--durations-file: durations file /nonexistent/d: cannot read it",
        ),
        (
            ("--implementation", "reference", "--history-result", "/nonexistent/h"),
            "--history-result: /nonexistent/h: cannot read the history result",
        ),
    ],
)
def test_bad_input_stops_the_run_before_the_host_changes(tmp_path, args, named):
    proc, seconds = run_cli(tmp_path, *args)
    assert proc.returncode == ExitCode.INVALID_INPUT, proc.stderr
    assert named in proc.stderr
    assert "nothing on this host was changed" in proc.stderr
    assert seconds < 5
    assert not (tmp_path / "state").exists()
    assert not (tmp_path / "cache").exists()
    assert not (tmp_path / "reports").exists()


def test_a_profile_typo_names_the_file_and_the_key(tmp_path):
    path = typo_profile(tmp_path)
    proc, seconds = run_cli(tmp_path, "--implementation", str(path))
    assert proc.returncode == ExitCode.INVALID_INPUT
    assert f"{path}: invalid implementation profile" in proc.stderr
    assert "commands: 'stop' is a required property" in proc.stderr
    assert seconds < 5
    assert not (tmp_path / "cache").exists()


def test_every_problem_is_reported_at_once(tmp_path):
    with pytest.raises(DataError) as info:
        preflight.check(
            values(wpc_provider="nosuch", wpc_features="WARP", wpc_timeout_scale=0),
            host=ROOT_WITH_EVERYTHING,
        )
    message = str(info.value)
    for part in (
        "--provider nosuch",
        "--features: unknown",
        "--timeout-scale 0.0: must be a finite number of at least 1",
    ):
        assert part in message


def test_a_layout_the_profile_does_not_claim_is_refused(tmp_path):
    path = checking.write_skeleton(tmp_path / "legacy.yaml")
    path.write_text(
        path.read_text().replace("layouts: [legacy, initless]", "layouts: [legacy]")
    )
    with pytest.raises(
        DataError, match=r"--layout initless: .*legacy.yaml claims only legacy"
    ):
        preflight.check(
            values(wpc_implementation=str(path), wpc_layout="initless"),
            host=ROOT_WITH_EVERYTHING,
        )


def test_the_local_provider_needs_root_go_and_apt():
    bare = preflight.Host(which=lambda tool: None, euid=lambda: 1000)
    with pytest.raises(DataError) as info:
        preflight.check(values(wpc_provider="local"), host=bare)
    message = str(info.value)
    assert "must run as root" in message
    assert "go is not on PATH" in message
    assert "apt-get is not on PATH" in message


def test_k3d_needs_its_cli_and_docker_on_path():
    bare = preflight.Host(which=lambda tool: None, euid=lambda: 1000)
    with pytest.raises(DataError, match="k3d is not on PATH"):
        preflight.check(values(wpc_provider="k3d"), host=bare)


def test_kind_needs_what_the_local_provider_needs_and_no_kind_or_docker_on_path():
    bare = preflight.Host(which=lambda tool: None, euid=lambda: 1000, environ={})
    with pytest.raises(DataError) as info:
        preflight.check(values(wpc_provider="kind"), host=bare)
    message = str(info.value)
    assert "--provider kind: starts its own Docker engine" in message
    assert "go is not on PATH" in message
    assert "kind is not on PATH" not in message
    assert "docker is not on PATH" not in message
    root_without_kind = preflight.Host(
        which=lambda tool: None if tool in {"kind", "docker"} else f"/usr/bin/{tool}",
        euid=lambda: 0,
        environ={},
    )
    assert preflight.check(values(wpc_provider="kind"), host=root_without_kind)


def test_a_valid_request_returns_the_profile():
    profile = preflight.check(values(wpc_provider="local"), host=ROOT_WITH_EVERYTHING)
    assert profile.name == "reference"


def test_kind_on_the_hosts_docker_needs_go_docker_and_a_writable_state_dir_not_root():
    runner = preflight.Host(
        which=lambda tool: None,
        euid=lambda: 1001,
        environ={"WPC_KIND_DOCKER": "host", "WPC_STATE_DIR": "/var/lib/wpc"},
        writable=lambda path: False,
    )
    with pytest.raises(DataError) as info:
        preflight.check(values(wpc_provider="kind"), host=runner)
    message = str(info.value)
    assert "must run as root" not in message
    assert "apt-get" not in message
    assert "--provider kind: go is not on PATH" in message
    assert "--provider kind: docker is not on PATH" in message
    assert "WPC_STATE_DIR /var/lib/wpc is not writable" in message
    ready = preflight.Host(
        which=lambda tool: f"/usr/bin/{tool}",
        euid=lambda: 1001,
        environ={"WPC_KIND_DOCKER": "host", "WPC_STATE_DIR": "/home/runner/wpc"},
        writable=lambda path: True,
    )
    assert preflight.check(values(wpc_provider="kind"), host=ready)


def test_a_bad_kind_setting_is_named_before_anything_runs():
    bad = preflight.Host(
        which=lambda tool: f"/usr/bin/{tool}",
        euid=lambda: 0,
        environ={"WPC_KIND_NODE_IMAGE": "kindest/node@sha256:short"},
    )
    with pytest.raises(DataError, match="--provider kind: WPC_KIND_NODE_IMAGE="):
        preflight.check(values(wpc_provider="kind"), host=bad)


def test_a_bad_existing_registry_is_named_before_anything_runs(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    bad = preflight.Host(
        which=lambda tool: f"/usr/bin/{tool}",
        euid=lambda: 0,
        environ={"WPC_EXISTING_REGISTRY": "ftp://registry.test"},
    )
    given = values(wpc_provider="existing", wpc_cluster_name=str(kubeconfig))
    with pytest.raises(DataError, match="--provider existing: WPC_EXISTING_REGISTRY "):
        preflight.check(given, host=bad)
