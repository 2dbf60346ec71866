"""We test these aspects of the field coverage (#16): every committed CRD field path is
classified and every rule classifies one; the paths derived from upstream's CRD equal the
committed ones (skipped without the upstream checkout); the derivation stops below a
whole-covered path yet lists a new field anywhere else; the document is up to date; and
the "exercised by" column comes from Workflows the reference accepts."""

from __future__ import annotations

import pytest

from reference_impl.controller.templates.checks import coverage
from reference_impl.coverage import __main__ as tool
from reference_impl.coverage import crdfields
from reference_impl.coverage import upstream
from reference_impl.coverage import uses


def test_every_committed_path_is_classified():
    paths = tool.committed_paths()
    assert len(paths) > 500
    assert [p for p in paths if coverage.rule_for(p) is None] == []


def test_every_rule_classifies_a_committed_path():
    used = {coverage.rule_for(p) for p in tool.committed_paths()}
    assert [r.pattern for r in coverage.RULES if r not in used] == []


def test_the_committed_paths_are_sorted_and_unique():
    paths = tool.committed_paths()
    assert paths == sorted(set(paths))


def test_upstreams_crd_yields_exactly_the_committed_paths():
    try:
        derived = tool.derived_paths(upstream.MIRROR, upstream.TAG)
    except upstream.MirrorMissing as err:
        pytest.skip(f"the upstream checkout is absent, nothing to derive from: {err}")
    new = sorted(set(derived) - set(tool.committed_paths()))
    gone = sorted(set(tool.committed_paths()) - set(derived))
    assert (new, gone) == ([], []), (
        "run `python -m reference_impl.coverage fields`, classify, then `... doc`"
    )


SCHEMA = {
    "properties": {
        "affinity": {"properties": {"nodeAffinity": {"type": "object"}}},
        "templates": {
            "type": "array",
            "items": {
                "properties": {
                    "name": {"type": "string"},
                    "brandNew": {"properties": {"inner": {"type": "string"}}},
                }
            },
        },
        "hooks": {
            "additionalProperties": {"properties": {"template": {"type": "string"}}}
        },
    }
}


def test_the_walk_stops_below_whole_paths_and_lists_new_fields_with_their_children():
    paths = crdfields.field_paths(SCHEMA, whole=coverage.covered_whole)
    assert "spec.affinity" in paths
    assert "spec.affinity.nodeAffinity" not in paths
    assert "spec.templates[].brandNew.inner" in paths
    assert [p for p in paths if coverage.rule_for(p) is None] == [
        "spec.templates[].brandNew",
        "spec.templates[].brandNew.inner",
    ]


def test_maps_of_objects_get_braces():
    paths = crdfields.field_paths(SCHEMA, whole=lambda _: False)
    assert "spec.hooks{}.template" in paths


def test_a_file_that_is_no_workflow_crd_is_named():
    with pytest.raises(crdfields.CrdError, match="not a Workflow CRD"):
        crdfields.spec_schema("kind: ConfigMap\n")


def test_the_document_is_up_to_date():
    assert tool.DOC.read_text() == tool.rendered_doc(), (
        "run `python -m reference_impl.coverage doc`"
    )


def test_a_workflow_the_reference_rejects_exercises_nothing():
    accepted = {
        "kind": "Workflow",
        "spec": {"entrypoint": "m", "templates": [{"name": "m", "container": {}}]},
    }
    rejected = {**accepted, "spec": {**accepted["spec"], "priority": 3}}
    assert uses.fields_of(accepted) == {
        "spec.entrypoint",
        "spec.templates",
        "spec.templates[].name",
        "spec.templates[].container",
    }
    assert uses.fields_of(rejected) == set()
