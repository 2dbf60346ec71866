"""We test this aspect of validation (#16): every field path classified `rejected`, set in
an otherwise valid workflow, fails validation with that field's location and the words
"not supported by the reference controller" — one case per committed rejected path, so a
rule that stopped matching the walk, or a rejection that stopped firing, fails here."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.checks import coverage
from reference_impl.controller.templates.checks import validation
from reference_impl.coverage import __main__ as tool
from tests.reference_impl.controller.conftest import workflow

Json = dict[str, Any]

BASE = workflow("""
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: s, template: leaf}
    - - {name: d, template: dag}
  - name: dag
    dag:
      tasks:
      - {name: t, template: leaf}
  - name: leaf
    container: {image: busybox, command: ["true"]}
""")

REJECTED = [
    p
    for p in tool.committed_paths()
    if coverage.rule_for(p).status is coverage.REJ  # type: ignore[union-attr]
]


def _seed(path: str) -> Json:
    """Return a valid list item for the list at `path` (ending in `[]`)."""
    if path.endswith("outputs.parameters[]"):
        return {"name": "p", "valueFrom": {"path": "/tmp/p"}}
    if path.endswith("parameters[]"):
        return {"name": "p", "value": "v"}
    if path.endswith("outputs.artifacts[]"):
        return {"name": "a", "path": "/tmp/a"}
    if path.endswith("artifacts[]"):
        return {"name": "a", "path": "/tmp/a", "raw": {"data": "x"}}
    raise AssertionError(f"no seed for {path}")


def _set(wf: Json, path: str) -> str:
    """Set the field at `path` in `wf`; return the location validation should name."""
    spec = wf["spec"]
    by_name = {t["name"]: t for t in spec["templates"]}
    rest = path.removeprefix("spec.")
    if rest.startswith("templates[]."):
        rest = rest.removeprefix("templates[].")
        if rest.startswith("steps[][]."):
            target: Any = by_name["main"]["steps"][0][0]
            location = "templates.main.steps[0].s"
            rest = rest.removeprefix("steps[][].")
        elif rest.startswith("dag.tasks[]."):
            target = by_name["dag"]["dag"]["tasks"][0]
            location = "templates.dag.tasks.t"
            rest = rest.removeprefix("dag.tasks[].")
        else:
            target = by_name["leaf"]
            location = "templates.leaf"
            if rest in validation.TYPES:
                del target["container"]
    else:
        target, location = spec, "spec"
    walked = path[: len(path) - len(rest)].rstrip(".")
    parts = rest.split(".")
    for part in parts[:-1]:
        walked += f".{part}"
        if part.endswith("[]"):
            items = target.setdefault(part[:-2], [])
            if not items:
                items.append(_seed(walked))
            target = items[0]
            location += f".{part[:-2]}.{target['name']}"
        elif part.endswith("{}"):  # a map of hooks: the exit hook, running `leaf`
            target = target.setdefault(part[:-2], {}).setdefault(
                "exit", {"template": "leaf"}
            )
            location += f".{part[:-2]}.exit"
        else:
            target = target.setdefault(part, {})
            location += f".{part}"
    target[parts[-1]] = "x"
    return f"{location}.{parts[-1]}"


def test_there_are_rejected_paths_in_every_part():
    assert len(REJECTED) > 100
    for part in ("spec.", "spec.templates[].", "steps[][]", "dag.tasks[]"):
        assert any(part in p for p in REJECTED)


@pytest.mark.parametrize("path", REJECTED)
def test_a_rejected_field_fails_validation_with_its_path(path):
    wf = copy.deepcopy(BASE)
    location = _set(wf, path)
    with pytest.raises(errors.ValidationError) as caught:
        validation.validate(wf)
    assert str(caught.value) == (
        f"{location} is not supported by the reference controller"
    )


def test_the_base_workflow_is_valid():
    validation.validate(copy.deepcopy(BASE))
