"""We test these aspects of the differential corpus's reference-features workflows (#16):
each file holds exactly one Workflow with a generateName, runs the suite's test image
placeholder, and passes the reference controller's validation."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reference_impl.controller.templates import validation

FOLDER = (
    Path(__file__).resolve().parents[3]
    / "conformance/differential/corpus/reference-features"
)
FILES = sorted(FOLDER.glob("*.yaml"))


def test_the_corpus_is_there():
    assert len(FILES) >= 2


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_one_valid_workflow_per_file(path):
    documents = list(yaml.safe_load_all(path.read_text()))
    assert len(documents) == 1
    wf = documents[0]
    assert wf["kind"] == "Workflow"
    assert wf["metadata"].get("generateName")
    assert "name" not in wf["metadata"]
    images = {
        t["container"]["image"] for t in wf["spec"]["templates"] if "container" in t
    }
    assert images == {"${tools_image}"}
    validation.validate({**wf, "metadata": {"name": "wf", "namespace": "ns"}})
