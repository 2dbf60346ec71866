"""Allure labels, links, steps and attachments, typed in one place.

allure-pytest is a hard dependency, but its API is untyped; this module is the
only one that calls it. Outside an allure run (no --alluredir) the calls do
nothing.

What a person sees in the Allure report (#26): the test's title is its
ShortName and clauses; Behaviors groups it by epic Core or Extended, feature the
spec area of its clauses (KILL, STATUS, ...) and story the ShortName; its
severity comes from its strongest clause (MUST critical, SHOULD normal, MAY
minor); each clause is a link to its heading in SPEC.md; the layout is one
parameter; and the harness's phases (prepare, submit, wait, observe) are its
steps, in the order they ran, the failing one marked.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from pathlib import Path

import allure
from allure_commons.types import ParameterMode
from allure_commons.types import Severity

from conformance import spec
from conformance.harness.cluster import timing

SEVERITIES = {
    "MUST": Severity.CRITICAL,
    "SHOULD": Severity.NORMAL,
    "MAY": Severity.MINOR,
}
"""A clause's level as an Allure severity; a test takes its strongest clause's."""
CLAUSE_LINK = "clause"
"""The link type of a clause: `--allure-link-pattern clause:URL#{}` points them at a
published SPEC.md (`{}` is the heading's anchor); else the SPEC.md that ran."""
STEP_TITLES = {
    timing.INSTALL: "prepare: install a controller",
    timing.CONFIG_CHANGE: "prepare: change the controller's configuration",
    timing.RESTART: "prepare: stop, start or restart the controller",
    timing.SUBMIT: "submit",
    timing.WAIT: "wait",
    timing.OBSERVE: "observe",
}
"""Each timed phase of the harness (`conformance.harness.cluster.timing`) as a step title."""


def title(short_name: str, clauses: Iterable[str]) -> str:
    """`ShortName (WPC-X-001, WPC-X-002)`, or the ShortName alone."""
    cited = ", ".join(clauses)
    return f"{short_name} ({cited})" if cited else short_name


def severity(levels: Iterable[str]) -> Severity:
    """The Allure severity of the strongest level (MUST over SHOULD over MAY)."""
    found = [SEVERITIES[level] for level in levels if level in SEVERITIES]
    order = list(SEVERITIES.values())
    return min(found, key=order.index) if found else Severity.NORMAL


@functools.cache
def anchors(path: Path = spec.SPEC_PATH) -> Mapping[str, str]:
    """Each clause's heading anchor in SPEC.md."""
    return {h.id: h.anchor for h in spec.parse_markdown(path.read_text("utf-8"))}


def clause_url(clause: str, patterns: Mapping[str, str]) -> str:
    """Where a clause's link points: its heading's anchor in SPEC.md.

    With a `clause` link pattern, the anchor alone (allure-pytest fills the
    pattern in); else in the SPEC.md the suite ran with, as a file URI.
    """
    anchor = anchors().get(clause, clause.lower())
    if CLAUSE_LINK in patterns:
        return anchor  # allure-pytest applies the pattern
    return f"{spec.SPEC_PATH.resolve().as_uri()}#{anchor}"


def label_test(
    *,
    short_name: str,
    layout: str,
    layout_param: str,
    support: str,
    clauses: Mapping[str, spec.Requirement],
    features: list[str],
    patterns: Mapping[str, str],
) -> None:
    """Label the running test; `clauses` maps each cited clause to the spec's entry.

    The layout is one parameter, `layout`: pytest's own parameter of it
    (`layout_param`) is declared first, hidden and left out of the history ID,
    so that allure-pytest does not add it a second time.
    """
    allure.dynamic.epic(support)  # type: ignore[no-untyped-call]
    for area in sorted({clause.area for clause in clauses.values()}):
        allure.dynamic.feature(area)  # type: ignore[no-untyped-call]
    allure.dynamic.story(short_name)  # type: ignore[no-untyped-call]
    allure.dynamic.severity(severity(c.level for c in clauses.values()))  # type: ignore[no-untyped-call]
    allure.dynamic.tag(*clauses, *features)  # type: ignore[no-untyped-call]
    allure.dynamic.label("layout", layout)  # type: ignore[no-untyped-call]
    allure.dynamic.parameter(
        layout_param, layout, excluded=True, mode=ParameterMode.HIDDEN
    )
    allure.dynamic.parameter("layout", layout)
    for clause in clauses:
        allure.dynamic.link(  # type: ignore[no-untyped-call]
            clause_url(clause, patterns), link_type=CLAUSE_LINK, name=clause
        )


def title_test(short_name: str, clauses: Iterable[str]) -> None:
    """Title the running test (allure-pytest names it when its setup ends: after that)."""
    allure.dynamic.title(title(short_name, clauses))  # type: ignore[no-untyped-call]


@contextlib.contextmanager
def phase_step(name: str) -> Iterator[None]:
    """One timed phase of the harness as a step of the running test."""
    with allure.step(STEP_TITLES.get(name, name)):
        yield


def attach_file(path: Path, *, name: str, yaml: bool) -> None:
    """Attach one evidence file to the running test."""
    kind = allure.attachment_type.YAML if yaml else allure.attachment_type.TEXT
    allure.attach.file(str(path), name=name, attachment_type=kind)  # type: ignore[no-untyped-call]
