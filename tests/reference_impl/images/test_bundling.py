"""We test these aspects of bundling the executor, without building a bundle:

the archive holds sourceless `.pyc` files an interpreter imports from the zip,
is byte-for-byte the same when written twice, drops excluded top-level names
and takes only the listed files of a listed root; `ldd` output becomes a
soname -> file map with the loader under its fixed name; the bundle's key
follows the executor's sources; an executor that imports a third-party
package cannot be bundled; the benchmark's figures are nearest-rank
percentiles, and its sweep names the latest fatal and lost delays.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from reference_impl.images import archiving
from reference_impl.images import benchmarking
from reference_impl.images import bundling
from reference_impl.images import figures
from reference_impl.images import sources
from reference_impl.images.errors import SourceError
from reference_impl.images.settings import PackagingSettings


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text("VALUE = 42\n")
    (root / "skipped.py").write_text("raise SystemExit('excluded')\n")
    (root / "broken.py").write_text("print 'python 2'\n")
    (root / "config-3.11").mkdir()
    (root / "config-3.11" / "python-config.py").write_text("")
    return root


def test_the_archive_is_importable_without_sources(tmp_path):
    out = tmp_path / "python311.zip"
    assert archiving.write(out, [str(tree(tmp_path))], {"skipped"}) == 2
    probe = f"import sys; sys.path.insert(0, {str(out)!r}); import pkg.mod; print(pkg.mod.VALUE)"
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True
    )
    assert result.stdout == "42\n", result.stderr


def test_the_archive_is_deterministic_and_honours_listings(tmp_path):
    root = tree(tmp_path)
    listing = tmp_path / "list.txt"
    listing.write_text("pkg/mod.py\n")
    first, second = tmp_path / "a.zip", tmp_path / "b.zip"
    archiving.write(first, [f"{root}={listing}"], set())
    archiving.write(second, [f"{root}={listing}"], set())
    assert first.read_bytes() == second.read_bytes()
    assert zipfile.ZipFile(first).namelist() == ["pkg/mod.pyc"]


LDD = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f66)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f65)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f67)
"""


def test_ldd_output_becomes_a_library_map(monkeypatch):
    monkeypatch.setattr(bundling.commands, "capture", lambda argv, error: LDD)
    libraries = bundling._libraries([Path("/usr/bin/python3")])
    assert set(libraries) == {"libm.so.6", "libc.so.6", bundling.LOADER}


def test_the_key_follows_the_executors_sources(tmp_path, monkeypatch):
    settings = PackagingSettings(cache_dir=tmp_path)
    monkeypatch.setattr(
        bundling,
        "_interpreter",
        lambda python: bundling.Interpreter(
            Path(sys.executable), Path(), Path(), "3.11.2", "3.11"
        ),
    )
    path = tmp_path / "m.py"
    path.write_text("a")
    source_set = sources.SourceSet(files={"m.py": path}, third_party=frozenset())
    first = bundling.key(settings=settings, source_set=source_set)
    path.write_text("b")
    assert bundling.key(settings=settings, source_set=source_set) != first


def test_a_third_party_import_cannot_be_bundled(tmp_path, monkeypatch):
    monkeypatch.setattr(
        bundling.sources,
        "closure",
        lambda root, entry: sources.SourceSet(
            files={}, third_party=frozenset({"yaml"})
        ),
    )
    with pytest.raises(SourceError, match="yaml"):
        bundling.build(settings=PackagingSettings(cache_dir=tmp_path))


def test_percentiles_are_nearest_rank():
    values = [0.1 * n for n in range(1, 11)]
    assert figures.percentile(values, 50) == pytest.approx(0.5)
    assert figures.percentile(values, 90) == pytest.approx(0.9)
    assert figures.percentile([3.0], 90) == 3.0


def test_the_sweep_names_its_windows():
    lines = figures.render_sweep(
        {0.0: benchmarking.LOST, 0.05: "exit 2", 0.1: "signal 15", 0.15: "143"}
    )
    assert "fatal-signal window (latest fatal delay): 100 ms" in lines[1]
    assert "lost-signal window (latest delay it was dropped): 0 ms" in lines[2]
    assert figures.render_sweep({0.0: "143"})[1].endswith(": none")
