"""Check that SPEC.md and requirements.yaml say the same thing.

The YAML is what code reads and the Markdown is what people read; a clause
whose level or layouts differ between them would make the suite test something
the prose does not say. Problems are returned as sentences, one per mismatch,
so a failing check lists every disagreement at once.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.spec._errors import SpecError
from conformance.spec._models import LAYOUTS
from conformance.spec._models import Requirement
from conformance.spec._models import Spec
from conformance.spec._parsing import ClauseHeading
from conformance.spec._parsing import parse_markdown

_FIELDS: tuple[tuple[str, Callable[[Requirement | ClauseHeading], str]], ...] = (
    ("level", lambda c: c.level),
    ("layouts", lambda c: ", ".join(name for name in LAYOUTS if name in c.layouts)),
    ("feature", lambda c: c.feature),
    ("profile", lambda c: c.profile),
    ("status", lambda c: c.status),
    ("observe", lambda c: ", ".join(c.observe)),
)


def check_agreement(spec: Spec, markdown_text: str) -> list[str]:
    """Human-readable disagreements between the spec and SPEC.md; empty means they agree."""
    try:
        headings = parse_markdown(markdown_text)
    except SpecError as err:
        return [str(err)]
    problems: list[str] = []
    by_id: dict[str, ClauseHeading] = {}
    for heading in headings:
        if heading.id in by_id:
            problems.append(
                f"{heading.id}: appears twice in SPEC.md (lines {by_id[heading.id].line} and {heading.line})"
            )
            continue
        by_id[heading.id] = heading
        problems.extend(_heading_problems(heading))
    requirements = spec.by_id()
    for req_id in requirements:
        if req_id not in by_id:
            problems.append(f"{req_id}: in requirements.yaml but not in SPEC.md")
    for heading in by_id.values():
        req = requirements.get(heading.id)
        if req is None:
            problems.append(
                f"{heading.id}: in SPEC.md (line {heading.line}) but not in requirements.yaml"
            )
            continue
        for name, value in _FIELDS:
            if value(heading) != value(req):
                problems.append(
                    f"{heading.id}: {name} differs: SPEC.md says {value(heading)!r}, "
                    f"requirements.yaml says {value(req)!r}"
                )
    problems.extend(_order_problems([h.id for h in headings], list(requirements)))
    return problems


def _heading_problems(heading: ClauseHeading) -> list[str]:
    """What is wrong with one clause regardless of the YAML."""
    area = heading.id.split("-")[1]
    problems = []
    if heading.section != area:
        problems.append(
            f"{heading.id}: sits in section {heading.section!r} (line {heading.line}), not in {area!r}"
        )
    if not heading.observe:
        problems.append(f"{heading.id}: has no '*Observed by:*' paragraph")
    if not heading.text:
        problems.append(f"{heading.id}: has no clause text")
    elif heading.level not in heading.text:
        problems.append(
            f"{heading.id}: is a {heading.level} clause but its text never says {heading.level}"
        )
    return problems


def _order_problems(markdown_ids: list[str], yaml_ids: list[str]) -> list[str]:
    """The first clause the two files list in a different order, if any."""
    common = set(markdown_ids) & set(yaml_ids)
    in_markdown = [i for i in dict.fromkeys(markdown_ids) if i in common]
    in_yaml = [i for i in yaml_ids if i in common]
    for md_id, yaml_id in zip(in_markdown, in_yaml, strict=True):
        if md_id != yaml_id:
            return [
                f"{md_id}: SPEC.md lists it where requirements.yaml has {yaml_id}; keep both files in the same order"
            ]
    return []
