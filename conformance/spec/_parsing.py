"""Read the clause headings (and their *Observed by* kinds) out of SPEC.md.

A clause is a level-3 heading starting with `WPC-`, split on ` · `:

    ### WPC-LEGACY-001 · MUST · layouts: legacy · feature: LEGACY_LAYOUT · profile: pod

with an optional last segment `status: retired`. Its *Observed by* paragraph
starts with the observation kinds, comma-separated, up to ` — `. Headings inside
fenced code blocks are examples, not clauses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conformance.spec._errors import SpecError
from conformance.spec._models import ID_PATTERN
from conformance.spec._models import LAYOUTS
from conformance.spec._models import LEVELS
from conformance.spec._models import STATUSES

CLAUSE_PREFIX = "### WPC-"
SEPARATOR = " · "
OBSERVED_BY = "*Observed by:*"
OBSERVED_DASH = " — "
FENCES = ("```", "~~~")
KEYED_SEGMENTS = ("layouts", "feature", "profile")


@dataclass(frozen=True)
class ClauseHeading:
    """One clause as SPEC.md states it."""

    id: str
    level: str
    layouts: frozenset[str]
    feature: str
    profile: str
    status: str
    observe: tuple[str, ...]
    """Kinds from the *Observed by* paragraph; empty when there is none."""
    section: str
    """The `## <SECTION> — ...` heading the clause sits under."""
    line: int
    """1-based line number of the heading."""
    text: str
    """The clause text between the heading and the *Observed by* paragraph."""
    anchor: str = ""
    """The heading's anchor in rendered Markdown (`heading_anchor`), for links to it."""


def heading_anchor(heading: str) -> str:
    """The id a Markdown renderer gives a heading (GitHub's and GitLab's rule).

    Lower case, every character but letters, digits, `_`, `-` and spaces
    dropped, spaces made `-`: `WPC-POD-001 · MUST · layouts: legacy` gives
    `wpc-pod-001--must--layouts-legacy`.
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def parse_markdown(text: str) -> list[ClauseHeading]:
    """Every clause heading in SPEC.md order; SpecError names a malformed line."""
    clauses: list[ClauseHeading] = []
    section = ""
    in_fence = False
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith(FENCES):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if line.startswith("## "):
            section = line[3:].split(" — ", 1)[0].strip()
        elif line.startswith(CLAUSE_PREFIX):
            body = _body(lines, number)
            observe, clause_text = _observed_by(body, number)
            clauses.append(
                _heading(
                    line, number, section=section, observe=observe, text=clause_text
                )
            )
    return clauses


def _heading(
    line: str, number: int, *, section: str, observe: tuple[str, ...], text: str
) -> ClauseHeading:
    where = f"SPEC.md line {number}"
    segments = [s.strip() for s in line[len("### ") :].split(SEPARATOR)]
    if len(segments) not in (5, 6):
        raise SpecError(
            f"{where}: a clause heading has 5 or 6 ' · '-separated segments "
            f"(ID, level, layouts, feature, profile[, status]), found {len(segments)}"
        )
    clause_id, level = segments[0], segments[1]
    if not ID_PATTERN.match(clause_id):
        raise SpecError(f"{where}: {clause_id!r} does not match WPC-<AREA>-<NNN>")
    if level not in LEVELS:
        raise SpecError(
            f"{where}: {clause_id}: level must be one of {', '.join(LEVELS)}, not {level!r}"
        )
    keyed = [
        _keyed(segment, key, where=f"{where}: {clause_id}")
        for segment, key in zip(segments[2:5], KEYED_SEGMENTS, strict=True)
    ]
    layouts = [name.strip() for name in keyed[0].split(",")]
    if (
        not layouts
        or any(name not in LAYOUTS for name in layouts)
        or len(set(layouts)) != len(layouts)
    ):
        raise SpecError(
            f"{where}: {clause_id}: layouts must be drawn once each from {', '.join(LAYOUTS)}, not {keyed[0]!r}"
        )
    status = (
        _keyed(segments[5], "status", where=f"{where}: {clause_id}")
        if len(segments) == 6
        else "active"
    )
    if status not in STATUSES:
        raise SpecError(
            f"{where}: {clause_id}: status must be one of {', '.join(STATUSES)}, not {status!r}"
        )
    return ClauseHeading(
        id=clause_id,
        level=level,
        layouts=frozenset(layouts),
        feature=keyed[1],
        profile=keyed[2],
        status=status,
        observe=observe,
        section=section,
        line=number,
        text=text,
        anchor=heading_anchor(line[len("### ") :]),
    )


def _keyed(segment: str, key: str, *, where: str) -> str:
    prefix = f"{key}: "
    if not segment.startswith(prefix) or not segment[len(prefix) :].strip():
        raise SpecError(
            f"{where}: expected a segment '{prefix}<value>', found {segment!r}"
        )
    return segment[len(prefix) :].strip()


def _body(lines: list[str], number: int) -> list[str]:
    """Lines after the heading on line `number`, up to the next heading."""
    body: list[str] = []
    in_fence = False
    for line in lines[number:]:
        if line.lstrip().startswith(FENCES):
            in_fence = not in_fence
        elif line.startswith("#") and not in_fence:
            break
        body.append(line)
    return body


def _observed_by(body: list[str], number: int) -> tuple[tuple[str, ...], str]:
    """Split a clause body into its observation kinds and its clause text."""
    for index, line in enumerate(body):
        if not line.startswith(OBSERVED_BY):
            continue
        paragraph = [line]
        for more in body[index + 1 :]:
            if not more.strip():
                break
            paragraph.append(more.strip())
        joined = " ".join(paragraph)[len(OBSERVED_BY) :]
        if OBSERVED_DASH not in joined:
            raise SpecError(
                f"SPEC.md line {number}: the *Observed by* paragraph must be "
                f"'{OBSERVED_BY} <kind>, <kind> — <how>'"
            )
        kinds = tuple(k.strip() for k in joined.split(OBSERVED_DASH, 1)[0].split(","))
        return kinds, "\n".join(body[:index]).strip()
    return (), "\n".join(body).strip()
