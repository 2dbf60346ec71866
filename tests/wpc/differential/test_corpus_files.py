"""We test that every workflow of the project's differential corpus can be run here.

Each file under `wpc/differential/corpus/` (its subdirectories too)
must be one YAML document of kind Workflow with a `generateName`, name no
image but the suite's tools image, need nothing the machine lacks (the
runner would skip it), and pass the reference controller's validation (run
in process, no cluster): a file the reference rejects would compare a
validation message, not the feature the file is about. Files named
`invalid-*` are about exactly that message, so the reference must reject them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance import contract
from reference_impl.controller.errors import ValidationError
from reference_impl.controller.templates.checks import validation
from wpc.differential import cli
from wpc.differential import corpus
from wpc.differential import images
from wpc.differential import requirements
from wpc.differential.images import ImagePolicy

FILES = sorted(p for p in cli.CORPUS.rglob("*") if p.suffix in corpus.SUFFIXES)


def _name(path: Path) -> str:
    return path.relative_to(cli.CORPUS).as_posix()


def test_the_corpus_has_at_least_forty_workflows_of_its_own():
    own = [p for p in FILES if p.parent == cli.CORPUS]
    assert len(own) >= 40, len(own)


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_a_corpus_file_is_a_runnable_workflow_the_reference_accepts(path: Path):
    documents = list(yaml.safe_load_all(path.read_text()))
    assert len(documents) == 1
    workflow = documents[0]
    assert workflow["kind"] == "Workflow"
    assert workflow["apiVersion"] == contract.WORKFLOW_API_VERSION
    assert workflow["metadata"].get("generateName"), "needs generateName"
    assert "name" not in workflow["metadata"]
    assert set(images.images_of(workflow)) == {contract.TOOLS_IMAGE}
    assert requirements.reasons(workflow, ImagePolicy()) == []
    if path.name.startswith("invalid-"):
        with pytest.raises(ValidationError):
            validation.validate(workflow)
    else:
        validation.validate(workflow)


def test_the_corpus_loads_with_nothing_skipped():
    entries = corpus.load(cli.CORPUS, policy=ImagePolicy())
    assert [e.file for e in entries if e.skipped] == []
    assert len(entries) == len(FILES)
