"""We test these aspects of layout divergences:

- the bundled divergences file is valid;
- a difference matching an entry (scenario, key and exact values) is declared;
- a difference with other values, or on another key, is undeclared;
- an invalid file is an error naming the key.
"""

from __future__ import annotations

import pytest

from conformance.errors import DataError
from conformance.report.runs import divergences
from tests.conformance.conftest import DIVERGENCES


def test_bundled_divergences_are_valid():
    ids = {d.id for d in divergences.load()}
    assert {"symlinked-input-artifacts", "erofs-under-read-only-root"} <= ids


def test_declared_and_undeclared_differences_are_told_apart():
    found = divergences.compare(
        short_name="HelloWorld",
        observations={
            "legacy": {
                "pods.main.auxContainer": "wait",
                "nodes.main.exitCode": "0",
                "same": 1,
            },
            "initless": {
                "pods.main.auxContainer": "supervisor",
                "nodes.main.exitCode": "65",
                "same": 1,
            },
        },
        divergences=divergences.load(DIVERGENCES),
    )
    assert [(d.key, d.divergence) for d in found] == [
        ("nodes.main.exitCode", None),
        ("pods.main.auxContainer", "aux-container-name"),
    ]


def test_declared_values_must_match_exactly():
    found = divergences.compare(
        short_name="HelloWorld",
        observations={"legacy": {"pods.main.auxContainer": "wait"}, "initless": {}},
        divergences=divergences.load(DIVERGENCES),
    )
    assert found[0].divergence is None
    assert found[0].by_layout == {"legacy": "wait", "initless": divergences.ABSENT}


def test_invalid_file_names_the_key(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(
        "apiVersion: wpc.dev/v1alpha1\nkind: LayoutDivergences\n"
        "divergences:\n  - {id: x, scenarios: ['*'], observations: ['*'], reason: r, colour: red}\n"
    )
    with pytest.raises(
        DataError,
        match=r"divergences.0: Additional properties are not allowed \('colour'",
    ):
        divergences.load(path)
