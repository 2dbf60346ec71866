"""We test these aspects of `argoexec init` and of init-less input linking (contract 1.5, 2.3):

init copies the executor (0555) and its bundle beside it, writes the template (0444, also when
ARGO_TEMPLATE is offloaded to a file), stages the script (0755) and loads
inputs; without a binary to copy it exits 64 with a message. In init-less
mains, inputs are symlinked into place, replacing what the image had there,
refusing to delete into a volume mount, and a working directory that is no
longer a directory is a pre-main failure.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from reference_impl.executor.child import linking
from reference_impl.executor.commands.initializing import run_init
from reference_impl.executor.errors import PreMainFailure
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.templates import Template

TEMPLATE = {
    "script": {"source": "print(1)"},
    "inputs": {"artifacts": [{"name": "a", "path": "/in/a", "raw": {"data": "x"}}]},
}


def test_init_prepares_the_shared_volumes(paths, store, tmp_path):
    binary = tmp_path / "argoexec"
    binary.write_bytes(b"\x7fELF...")
    settings = ExecutorSettings(
        template_env=json.dumps(TEMPLATE), executor_binary=binary
    )
    assert run_init(settings=settings, paths=paths, stores_for=store.factory) == 0
    assert paths.executor_copy.read_bytes() == b"\x7fELF..."
    assert paths.executor_copy.stat().st_mode & 0o777 == 0o555
    assert json.loads(paths.template.read_text()) == TEMPLATE
    assert paths.template.stat().st_mode & 0o777 == 0o444
    assert paths.script.read_text() == "print(1)"
    assert paths.script.stat().st_mode & 0o777 == 0o755
    assert paths.input_artifact("a").read_text() == "x"


def test_init_copies_the_launchers_bundle_beside_it(paths, store, tmp_path):
    binary = tmp_path / "argoexec"
    binary.write_bytes(b"launcher")
    bundle = tmp_path / "argoexec.bundle"
    (bundle / "lib").mkdir(parents=True)
    (bundle / "lib" / "python311.zip").write_bytes(b"zip")
    os.symlink("python311.zip", bundle / "lib" / "link")
    settings = ExecutorSettings(template_env="{}", executor_binary=binary)
    assert run_init(settings=settings, paths=paths, stores_for=store.factory) == 0
    copied = paths.executor_copy.with_name("argoexec.bundle")
    assert (copied / "lib" / "python311.zip").read_bytes() == b"zip"
    assert os.readlink(copied / "lib" / "link") == "python311.zip"
    assert paths.executor_copy.read_bytes() == b"launcher"
    assert sorted(p.name for p in paths.var_run_argo.iterdir()) == [
        "argoexec",
        "argoexec.bundle",
        "template",
    ]


def test_init_reads_an_offloaded_template(paths, store, tmp_path):
    binary = tmp_path / "argoexec"
    binary.write_bytes(b"bin")
    paths.offloaded_template.parent.mkdir(parents=True)
    paths.offloaded_template.write_text(json.dumps({"container": {"image": "x"}}))
    settings = ExecutorSettings(template_env="offloaded", executor_binary=binary)
    assert run_init(settings=settings, paths=paths, stores_for=store.factory) == 0
    assert json.loads(paths.template.read_text()) == {"container": {"image": "x"}}


def test_init_without_a_binary_exits_64(paths, store):
    settings = ExecutorSettings(template_env="{}")
    assert run_init(settings=settings, paths=paths, stores_for=store.factory) == 64
    assert "cannot locate the argoexec executable" in paths.termination_log.read_text()


def linked(paths: Paths, raw: dict[str, Any]) -> None:
    paths.input_artifact("a").parent.mkdir(parents=True, exist_ok=True)
    paths.input_artifact("a").write_text("payload")
    linking.link_input_artifacts(template=Template(raw=raw), paths=paths)


def test_inputs_are_symlinked_into_place(paths):
    linked(paths, {"inputs": {"artifacts": [{"name": "a", "path": "/deep/dir/a"}]}})
    assert os.readlink(paths.at("/deep/dir/a")) == str(paths.input_artifact("a"))
    assert paths.at("/deep/dir/a").read_text() == "payload"


def test_what_the_image_had_at_the_path_is_replaced(paths):
    paths.at("/etc/conf").mkdir(parents=True)
    (paths.at("/etc/conf") / "old").write_text("old")
    linked(paths, {"inputs": {"artifacts": [{"name": "a", "path": "/etc/conf"}]}})
    assert paths.at("/etc/conf").read_text() == "payload"


def test_unsupplied_optional_inputs_are_skipped(paths):
    raw = {"inputs": {"artifacts": [{"name": "b", "path": "/b", "optional": True}]}}
    linking.link_input_artifacts(template=Template(raw=raw), paths=paths)
    assert not os.path.lexists(paths.at("/b"))


def test_clearing_into_a_volume_mount_is_refused(paths):
    paths.at("/data/x").mkdir(parents=True)
    raw = {
        "inputs": {"artifacts": [{"name": "a", "path": "/data/x"}]},
        "container": {"volumeMounts": [{"name": "vol", "mountPath": "/data"}]},
    }
    with pytest.raises(PreMainFailure, match='refusing to stage input artifact "a"'):
        linked(paths, raw)
    assert paths.at("/data/x").is_dir()


def test_a_working_dir_replaced_by_a_file_is_a_pre_main_failure(paths):
    linked(paths, {"inputs": {"artifacts": [{"name": "a", "path": "/work"}]}})
    with pytest.raises(PreMainFailure, match="failed to re-enter working directory"):
        linking.check_working_dir(str(paths.at("/work")))
