"""We test the known-differences file: a mapping of corpus file to reason, nothing else."""

from __future__ import annotations

import pytest

from conformance.errors import DataError
from wpc.differential import known


def test_the_shipped_file_loads():
    assert isinstance(known.load(known.SHIPPED), dict)


def test_every_shipped_entry_names_a_corpus_file_and_the_deviations_doc():
    """A stale or misspelt entry would silently excuse nothing (or the wrong file)."""
    corpus = known.SHIPPED.with_name("corpus")
    for file, reason in known.load(known.SHIPPED).items():
        assert (corpus / file).is_file(), file
        assert "docs/known-deviations.md" in reason, file


def test_entries_and_an_empty_file(tmp_path):
    path = tmp_path / "k.yaml"
    path.write_text("dag-x.yaml: upstream keeps the pod (docs/known-deviations.md)\n")
    assert known.load(path) == {
        "dag-x.yaml": "upstream keeps the pod (docs/known-deviations.md)"
    }
    path.write_text("")
    assert known.load(path) == {}
    assert known.load(None) == {}


@pytest.mark.parametrize(
    "text", ["- a\n- b\n", "a.yaml: ''\n", "a.yaml: [x]\n", "a: [\n"]
)
def test_a_malformed_file_is_refused_naming_it(tmp_path, text):
    path = tmp_path / "k.yaml"
    path.write_text(text)
    with pytest.raises(DataError, match="--known"):
        known.load(path)
