"""We test these aspects of freezing without running PyInstaller:

the cache key follows the program's sources, the generated spec stores the
archive uncompressed and carries the excludes, a binary whose inputs are
unchanged is reused without any build command, and the build CLI prints one
`<ref> <context>` line per image.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl import common
from reference_impl.images import __main__ as images_cli
from reference_impl.images import contexts
from reference_impl.images import freezing
from reference_impl.images import sources
from reference_impl.images.settings import PackagingSettings


def source_set(tmp_path: Path, text: str) -> sources.SourceSet:
    path = tmp_path / "m.py"
    path.write_text(text)
    return sources.SourceSet(files={"m.py": path}, third_party=frozenset())


def test_key_follows_the_sources(tmp_path):
    spec: dict[str, object] = {"python": "3.11.2"}
    a = freezing.build_key(
        program=freezing.EXECUTOR, source_set=source_set(tmp_path, "a"), spec=spec
    )
    b = freezing.build_key(
        program=freezing.EXECUTOR, source_set=source_set(tmp_path, "b"), spec=spec
    )
    again = freezing.build_key(
        program=freezing.EXECUTOR, source_set=source_set(tmp_path, "a"), spec=spec
    )
    assert a != b
    assert a == again


def test_spec_is_one_file_uncompressed_with_excludes(tmp_path):
    text = freezing._spec(
        program=freezing.EXECUTOR, entry=tmp_path / "e.py", src=tmp_path
    )
    assert "'reference_impl.executor.__main__'" in text
    assert "'BINARY': False" in text
    assert "'tkinter'" in text
    compile(text, "spec", "exec")


def test_unchanged_binary_is_reused(tmp_path, monkeypatch):
    settings = PackagingSettings(cache_dir=tmp_path)

    def no_builds(*args, **kwargs):
        raise AssertionError("nothing should be built")

    first_key: dict[str, str] = {}

    def remember(**kwargs):
        key = real_key(**kwargs)
        first_key["key"] = key
        return key

    real_key = freezing.build_key
    monkeypatch.setattr(freezing, "build_key", remember)
    monkeypatch.setattr(freezing, "ensure_venv", no_builds)
    monkeypatch.setattr(freezing, "_python_version", lambda python: "3.11.2")
    with pytest.raises(AssertionError, match="nothing should be built"):
        freezing.freeze(program=freezing.EXECUTOR, settings=settings)
    out = tmp_path / "packaging/bin" / f"argoexec-{first_key['key']}"
    out.parent.mkdir(parents=True)
    out.write_bytes(b"frozen")
    assert freezing.freeze(program=freezing.EXECUTOR, settings=settings) == out


def test_build_cli_prints_ref_and_context(tmp_path, monkeypatch, capsys):
    def fake(*, settings, out):
        return out / "ctx"

    monkeypatch.setattr(contexts, "PREPARERS", {"testimage": (common.TEST_IMAGE, fake)})
    monkeypatch.setenv("WPC_CACHE_DIR", str(tmp_path))
    assert (
        images_cli.main(["build", "--only", "testimage", "--out", str(tmp_path / "o")])
        == 0
    )
    assert capsys.readouterr().out == f"{common.TEST_IMAGE} {tmp_path / 'o' / 'ctx'}\n"


def test_a_cache_entry_is_built_by_one_process_at_a_time(tmp_path):
    # xdist workers and worktrees share the cache; a second builder of the same
    # entry must wait instead of sharing (and deleting) the first one's work dir.
    import fcntl

    settings = PackagingSettings(cache_dir=tmp_path)
    lock_file = settings.packaging_dir / "locks" / "argoexec-k1.lock"
    with freezing.exclusive(settings, "argoexec-k1"):
        with open(lock_file, "w") as other, pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with freezing.exclusive(settings, "argoexec-k2"):
            pass  # another entry is not blocked
    with open(lock_file, "w") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released on exit
