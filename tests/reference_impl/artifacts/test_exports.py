"""The package's public surface is pinned, and the shipped client stays light.

We test these aspects:
- `reference_impl.artifacts.__all__` lists exactly its light modules, and
  `reference_impl.s3.__all__` the client's;
- importing the S3 client (what the packaged executor does) pulls in none of
  the artifact tooling (building, imaging, the bottom layer's runner).
"""

from __future__ import annotations

import subprocess
import sys

import reference_impl.artifacts as artifacts
import reference_impl.s3 as s3


def test_the_public_surface_is_pinned():
    assert sorted(artifacts.__all__) == ["errors", "names"]
    assert sorted(s3.__all__) == ["client", "errors", "signing"]


def test_importing_the_client_does_not_import_the_build_machinery():
    probe = (
        "import sys, reference_impl.s3.client; "
        "print(sorted(m for m in sys.modules "
        "if m.startswith(('reference_impl', 'plumbing', 'subprocess'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    assert "artifacts" not in out
    assert "plumbing" not in out
    assert "subprocess" not in out
