"""The runtime dockerd gets: plain runc, or the wrapper that drops withheld capabilities.

We test these aspects: the withheld set is read from CapBnd up to the
kernel's last capability (this machine's mask gives exactly CAP_SYS_RESOURCE;
a full mask gives nothing); the wrapper finds runc's verb past global options
and edits the bundle's config.json on create/run and the --process file on
exec, in every capability set, and leaves other calls alone; install writes
the wrapper with its settings, or hands dockerd plain runc.
"""

from __future__ import annotations

import json
import subprocess

from clusters.docker import capwrapper
from clusters.docker import runtimes
from clusters.docker.settings import DockerSettings

THIS_MACHINE = "Name:\tx\nCapBnd:\t000001fffeffffff\n"
FULL = "CapBnd:\t000001ffffffffff\n"


def test_the_withheld_capabilities_come_from_the_bounding_set():
    assert runtimes.withheld(THIS_MACHINE, 40) == ["CAP_SYS_RESOURCE"]
    assert runtimes.withheld(FULL, 40) == []
    # An older kernel knows fewer capabilities: nothing above cap_last_cap counts.
    assert runtimes.withheld("CapBnd:\t0000003fffffffff\n", 37) == []


def test_the_verb_is_found_past_runc_global_options():
    argv = [
        "--root",
        "/run/docker/runtime-runc/moby",
        "--log",
        "/x/log.json",
        "--log-format",
        "json",
        "--systemd-cgroup",
        "create",
        "--bundle",
        "/b",
        "id1",
    ]
    assert capwrapper.verb_and_args(argv) == ("create", ["--bundle", "/b", "id1"])
    assert capwrapper.document_to_edit(argv, cwd=None) == (
        capwrapper.Path("/b/config.json"),
        True,
    )


def test_exec_edits_the_process_file_and_other_verbs_nothing(tmp_path):
    exec_argv = ["--root", "/r", "exec", "--process", "/tmp/p.json", "--detach", "id"]
    assert capwrapper.document_to_edit(exec_argv, tmp_path) == (
        capwrapper.Path("/tmp/p.json"),
        False,
    )
    assert capwrapper.document_to_edit(["run", "id"], tmp_path) == (
        tmp_path / "config.json",
        True,
    )
    for verb in (["start", "id"], ["kill", "id", "9"], ["delete", "id"], ["features"]):
        assert capwrapper.document_to_edit(verb, tmp_path) is None


def _caps(*names):
    return {s: list(names) for s in capwrapper.CAPABILITY_SETS}


def test_the_withheld_capability_leaves_every_set_and_nothing_else(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "ociVersion": "1.0.2",
                "process": {
                    "args": ["/sbin/init"],
                    "capabilities": _caps("CAP_SYS_ADMIN", "CAP_SYS_RESOURCE"),
                },
            }
        )
    )
    assert capwrapper.edit(config, whole_config=True, drop=["CAP_SYS_RESOURCE"])
    doc = json.loads(config.read_text())
    assert doc["process"]["capabilities"] == _caps("CAP_SYS_ADMIN")
    assert doc["process"]["args"] == ["/sbin/init"]
    assert not capwrapper.edit(config, whole_config=True, drop=["CAP_SYS_RESOURCE"])


def test_install_writes_the_wrapper_only_when_something_is_withheld(tmp_path):
    s = DockerSettings(state_root=tmp_path / "state", run_root=tmp_path / "run")
    assert runtimes.install(s, []) == s.runc
    assert not s.wrapper.exists()
    path = runtimes.install(s, ["CAP_SYS_RESOURCE"])
    assert path == s.wrapper
    assert path.read_text().startswith(f"#!{s.python}\n")
    assert json.loads(path.with_suffix(".json").read_text()) == {
        "runc": str(s.runc),
        "drop": ["CAP_SYS_RESOURCE"],
    }
    runtimes.remove(s)
    assert not s.wrapper.exists()


def test_the_installed_wrapper_edits_then_becomes_the_runtime(tmp_path):
    """End to end with a fake runc that prints what it was given."""
    fake_runc = tmp_path / "runc"
    fake_runc.write_text('#!/bin/sh\necho "runc $*"; cat "$PWD/config.json"\n')
    fake_runc.chmod(0o755)
    s = DockerSettings(
        state_root=tmp_path / "state", run_root=tmp_path / "run", runc=fake_runc
    )
    wrapper = runtimes.install(s, ["CAP_SYS_RESOURCE"])
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "config.json").write_text(
        json.dumps({"process": {"capabilities": _caps("CAP_SYS_RESOURCE", "CAP_KILL")}})
    )
    done = subprocess.run(
        [str(wrapper), "--root", "/r", "create", "--bundle", str(bundle), "c1"],
        cwd=bundle,
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
    )
    first, rest = done.stdout.split("\n", 1)
    assert first == f"runc --root /r create --bundle {bundle} c1"
    assert json.loads(rest)["process"]["capabilities"] == _caps("CAP_KILL")
