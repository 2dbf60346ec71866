"""The package's public surface is pinned, and stays light for the executor.

We test these aspects:
- `reference_impl.artifacts.__all__` lists exactly the light modules;
- importing the package (what the packaged executor does) pulls in none of
  the build machinery (subprocess-based building and imaging).
"""

from __future__ import annotations

import subprocess
import sys

import reference_impl.artifacts as artifacts


def test_the_public_surface_is_pinned():
    assert sorted(artifacts.__all__) == ["errors", "names", "s3client", "signing"]


def test_importing_the_client_does_not_import_the_build_machinery():
    probe = (
        "import sys, reference_impl.artifacts.s3client; "
        "print(sorted(m for m in sys.modules if m.startswith('reference_impl')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    assert "building" not in out
    assert "imaging" not in out
    assert "subprocess" not in out
