"""`wpc run --repeat 2` end to end on the real local cluster (-m cluster).

We test these aspects, with HelloWorld in the legacy layout against the
reference (whose shared instances `make test`'s smoke run installed):

- each run is the ordinary run, its own report written by the plugin under
  `run-K-of-2/`, and both are compared: the StabilityReport names the two
  reports, compares both, and HelloWorld[legacy] passed twice without a flip;
- the command exits 0, as a single passing run does.

The unit tests (test_repeating.py) fake the runs; this proves the report paths,
the freshness check and the comparison against what a real run writes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = [pytest.mark.cluster, pytest.mark.ownership, pytest.mark.slow]

RUN_TIMEOUT = 1200.0
"""Two runs of one scenario, each with the profile's prepare and install (cached)."""


def test_two_runs_of_hello_world_are_compared_and_agree(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "conformance",
        "run",
        "--implementation",
        "reference",
        "--layout",
        "legacy",
        "--select",
        "HelloWorld",
        "--repeat",
        "2",
        "--reports-dir",
        str(tmp_path),
    ]

    done = subprocess.run(
        command, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )

    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    found = yaml.safe_load(
        (tmp_path / "stability-conformance-reference.yaml").read_text()
    )
    assert [r["report"] for r in found["runs"]] == [
        str(tmp_path / f"run-{k}-of-2" / "conformance-reference.yaml") for k in (1, 2)
    ]
    assert [(r["exitCode"], r["compared"]) for r in found["runs"]] == [(0, True)] * 2
    assert found["summary"]["flipped"] == 0
    outcomes = {i["id"]: i["outcomes"] for i in found["items"]}
    assert outcomes["HelloWorld[legacy]"] == ["passed", "passed"]
    assert "no item flipped" in done.stdout
