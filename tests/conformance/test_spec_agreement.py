"""The WPC spec: SPEC.md and requirements.yaml agree, and the check can fail.

We test these aspects:
- the shipped pair agrees (same IDs, levels, layouts, features, profiles,
  statuses and observation kinds, in the same order, each clause in its area's
  section, saying its own level, with an *Observed by* paragraph);
- shipped IDs are unique and match WPC-<AREA>-<NNN>; every feature and profile
  a clause names is declared exactly once and every declared one is used;
  LEGACY_LAYOUT is Core and INITLESS_LAYOUT Extended;
- size and coverage: at least 80 active clauses, every area has one, the
  counts SPEC.md states are true;
- cross-references in SPEC.md point at existing clauses and open questions,
  and *Open questions* is the last section;
- negative fixture pairs (level mismatch, missing ID, layout mismatch,
  duplicate ID, undeclared feature, unknown key) each give the expected
  problem or SpecError, and so do in-memory variants of every other
  validation rule of the loader and the Markdown parser;
- the public names of `conformance.spec` are pinned.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance import spec
from conformance.spec import history

FIXTURES = Path(__file__).parent / "fixtures" / "spec"
AGREEING = FIXTURES / "agreeing"
REQUIRED_AREAS = (
    "LAYOUT",
    "POD",
    "LEGACY",
    "INITLESS",
    "HANDSHAKE",
    "EMISSARY",
    "STATUS",
    "FINALIZER",
    "KILL",
    "RESULT",
    "INSTANCE",
    "VALIDATE",
    "RECOVERY",
)


@pytest.fixture(scope="module")
def shipped() -> spec.Spec:
    return spec.load()


@pytest.fixture(scope="module")
def markdown() -> str:
    return spec.SPEC_PATH.read_text(encoding="utf-8")


def load_pair(case: str) -> tuple[spec.Spec, str]:
    directory = FIXTURES / case
    return spec.load(directory / "requirements.yaml"), (
        directory / "SPEC.md"
    ).read_text(encoding="utf-8")


def agreeing_data() -> dict[str, Any]:
    loaded = yaml.safe_load(
        (AGREEING / "requirements.yaml").read_text(encoding="utf-8")
    )
    assert isinstance(loaded, dict)
    return loaded


def agreeing_markdown() -> str:
    return (AGREEING / "SPEC.md").read_text(encoding="utf-8")


# The shipped spec.


def test_shipped_markdown_and_yaml_agree(shipped, markdown):
    assert spec.check_agreement(shipped, markdown) == []


def test_shipped_ids_are_unique_and_well_formed(shipped, markdown):
    ids = [req.id for req in shipped.requirements]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"WPC-[A-Z]+-[0-9]{3}", i) for i in ids)
    headings = [h.id for h in spec.parse_markdown(markdown)]
    assert headings == ids


def test_every_named_feature_and_profile_is_declared_once_and_used(shipped):
    declared = Counter(f.name for f in shipped.features)
    assert all(n == 1 for n in declared.values())
    used = {req.feature for req in shipped.active()}
    assert used <= set(declared)
    assert set(declared) - used == set()
    profiles = Counter(p.name for p in shipped.profiles)
    assert all(n == 1 for n in profiles.values())
    assert {req.profile for req in shipped.active()} == set(profiles)


def test_layout_features_have_their_support_level(shipped):
    assert shipped.feature("LEGACY_LAYOUT").support == "Core"
    assert shipped.feature("INITLESS_LAYOUT").support == "Extended"


def test_spec_has_at_least_80_active_clauses_and_every_area(shipped):
    active = shipped.active()
    assert len(active) >= 80
    assert {req.area for req in active} >= set(REQUIRED_AREAS)
    assert spec.AREAS == REQUIRED_AREAS


def test_counts_stated_in_spec_md_are_true(shipped, markdown):
    match = re.search(
        r"This version has (\d+) clauses \((\d+) MUST, (\d+) SHOULD, (\d+) MAY\) in (\d+) areas",
        markdown,
    )
    assert match, "SPEC.md must state its clause counts"
    levels = Counter(req.level for req in shipped.active())
    stated = tuple(int(g) for g in match.groups())
    actual = (
        len(shipped.active()),
        levels["MUST"],
        levels["SHOULD"],
        levels["MAY"],
        len({req.area for req in shipped.active()}),
    )
    assert stated == actual


def test_spec_md_references_point_at_existing_clauses_and_questions(shipped, markdown):
    ids = set(shipped.by_id())
    referenced = set(re.findall(r"WPC-[A-Z]+-[0-9]{3}", markdown))
    assert referenced - ids == set()
    questions = set(re.findall(r"^\*\*OQ-(\d+)\.", markdown, flags=re.MULTILINE))
    cited = set(re.findall(r"\bOQ-(\d+)\b", markdown))
    assert questions, "SPEC.md must list its open questions"
    assert cited <= questions
    assert sorted(int(q) for q in questions) == list(range(1, len(questions) + 1))


def test_open_questions_is_the_last_section(markdown):
    sections = re.findall(r"^## (.+)$", markdown, flags=re.MULTILINE)
    assert sections[-1] == "Open questions"


def test_area_sections_appear_in_area_order(markdown):
    sections = [
        s.split(" — ")[0]
        for s in re.findall(r"^## (.+)$", markdown, flags=re.MULTILINE)
    ]
    assert [s for s in sections if s in REQUIRED_AREAS] == list(REQUIRED_AREAS)


# Fixture pairs: the check can fail.


def test_agreeing_fixture_pair_agrees():
    assert spec.check_agreement(*load_pair("agreeing")) == []


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (
            "level-mismatch",
            "WPC-LEGACY-001: level differs: SPEC.md says 'SHOULD', requirements.yaml says 'MUST'",
        ),
        ("missing-id", "WPC-HANDSHAKE-001: in requirements.yaml but not in SPEC.md"),
        (
            "layout-mismatch",
            "WPC-LEGACY-001: layouts differs: SPEC.md says 'legacy, initless', requirements.yaml says 'legacy'",
        ),
    ],
)
def test_disagreeing_fixture_pair_reports_the_problem(case, expected):
    assert spec.check_agreement(*load_pair(case)) == [expected]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("duplicate-id", "requirement ID 'WPC-LEGACY-001' is declared more than once"),
        (
            "undeclared-feature",
            "requirement WPC-LEGACY-001: feature 'NOT_DECLARED' is not declared under features",
        ),
        ("unknown-key", "requirement WPC-LEGACY-001: unknown key(s) 'severity'"),
    ],
)
def test_invalid_fixture_requirements_raise_spec_error(case, expected):
    with pytest.raises(spec.SpecError) as info:
        spec.load(FIXTURES / case / "requirements.yaml")
    assert expected in str(info.value)


# In-memory variants of the other validation rules.


def _first_requirement(data: dict[str, Any]) -> dict[str, Any]:
    requirement = data["requirements"][0]
    assert isinstance(requirement, dict)
    return requirement


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda d: d["features"].append(
                {"name": "LEGACY_LAYOUT", "support": "Core"}
            ),
            "feature 'LEGACY_LAYOUT' is declared more than once",
        ),
        (
            lambda d: d["profiles"].append({"name": "pod"}),
            "profile 'pod' is declared more than once",
        ),
        (
            lambda d: _first_requirement(d).update(level="MUSt"),
            "requirement WPC-LEGACY-001: level must be one of MUST, SHOULD, MAY",
        ),
        (
            lambda d: _first_requirement(d).update(layouts=["legacy", "sideways"]),
            "requirement WPC-LEGACY-001: layouts must be one of legacy, initless",
        ),
        (
            lambda d: _first_requirement(d).update(layouts=["legacy", "legacy"]),
            "requirement WPC-LEGACY-001: layouts lists a value twice",
        ),
        (
            lambda d: _first_requirement(d).update(layouts=[]),
            "requirement WPC-LEGACY-001: layouts must be a non-empty list",
        ),
        (
            lambda d: _first_requirement(d).update(id="WPC-LEGACY-1"),
            "requirement WPC-LEGACY-1: ID must match WPC-<AREA>-<NNN>",
        ),
        (
            lambda d: _first_requirement(d).update(id="WPC-NOWHERE-001"),
            "requirement WPC-NOWHERE-001: unknown area 'NOWHERE'",
        ),
        (
            lambda d: _first_requirement(d).update(observe=["vibes"]),
            "requirement WPC-LEGACY-001: observe must be one of",
        ),
        (
            lambda d: _first_requirement(d).update(profile="nobody"),
            "requirement WPC-LEGACY-001: profile 'nobody' is not declared",
        ),
        (
            lambda d: _first_requirement(d).update(status="deprecated"),
            "requirement WPC-LEGACY-001: status must be one of active, retired",
        ),
        (
            lambda d: _first_requirement(d).pop("summary"),
            "requirement WPC-LEGACY-001: missing key(s) 'summary'",
        ),
        (
            lambda d: d["features"][0].update(support="Optional"),
            "feature 'LEGACY_LAYOUT': support must be one of Core, Extended",
        ),
        (
            lambda d: d["features"][0].update(name="legacy_layout"),
            "feature 'legacy_layout': name must be UPPER_SNAKE_CASE",
        ),
        (
            lambda d: d["features"][0].update(since="1.0"),
            "feature 'LEGACY_LAYOUT': unknown key(s) 'since'",
        ),
        (lambda d: d.update(extra=True), "the document: unknown key(s) 'extra'"),
        (
            lambda d: d.update(apiVersion="wpc.dev/v2"),
            "expected apiVersion 'wpc.dev/v1'",
        ),
        (lambda d: d.update(requirements=[]), "requirements must be a non-empty list"),
    ],
)
def test_loader_rejects_invalid_data_naming_the_entry(mutate, expected):
    data = copy.deepcopy(agreeing_data())
    mutate(data)
    with pytest.raises(spec.SpecError) as info:
        spec._loading.build(data)
    assert expected in str(info.value)


def test_retired_clause_round_trips_and_is_not_active():
    data = agreeing_data()
    _first_requirement(data)["status"] = "retired"
    retired = spec._loading.build(data)
    markdown = agreeing_markdown().replace(
        "feature: LEGACY_LAYOUT · profile: pod",
        "feature: LEGACY_LAYOUT · profile: pod · status: retired",
    )
    assert spec.check_agreement(retired, markdown) == []
    assert [r.id for r in retired.active()] == ["WPC-HANDSHAKE-001"]
    assert retired.by_id()["WPC-LEGACY-001"].status == "retired"
    assert spec.check_agreement(
        spec.load(AGREEING / "requirements.yaml"), markdown
    ) == [
        "WPC-LEGACY-001: status differs: SPEC.md says 'retired', requirements.yaml says 'active'"
    ]


def test_loaded_requirement_has_typed_fields():
    req = spec.load(AGREEING / "requirements.yaml").by_id()["WPC-HANDSHAKE-001"]
    assert req == spec.Requirement(
        id="WPC-HANDSHAKE-001",
        level="SHOULD",
        layouts=frozenset({"initless"}),
        feature="INITLESS_LAYOUT",
        profile="pod",
        observe=("exec-files", "timing"),
        summary="The supervisor heartbeats every 5 s.",
        status="active",
    )
    assert req.area == "HANDSHAKE"


@pytest.mark.parametrize("load", [spec.load, history.load])
def test_missing_file_and_bad_yaml_raise_spec_error(tmp_path, load):
    absent = tmp_path / "absent.yaml"
    with pytest.raises(spec.SpecError, match=f"^{absent}: cannot read: "):
        load(absent)
    broken = tmp_path / "requirements.yaml"
    broken.write_text("requirements: [unclosed\n", encoding="utf-8")
    with pytest.raises(spec.SpecError, match=f"^{broken}: not valid YAML: "):
        load(broken)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "## HANDSHAKE",
            "### WPC-LEGACY-001 · MUST · layouts: legacy · feature: LEGACY_LAYOUT · profile: pod\n\n"
            "A second copy MUST be caught.\n\n*Observed by:* pod-spec — twice.\n\n## HANDSHAKE",
            "WPC-LEGACY-001: appears twice in SPEC.md (lines 11 and 17)",
        ),
        (
            "## HANDSHAKE — The status marker",
            "## STATUS — Misfiled",
            "WPC-HANDSHAKE-001: sits in section 'STATUS'",
        ),
        (
            "*Observed by:* pod-spec — the pod's `spec.initContainers[0].name`.",
            "",
            "WPC-LEGACY-001: has no '*Observed by:*' paragraph",
        ),
        (
            "*Observed by:* pod-spec —",
            "*Observed by:* pod-spec, timing —",
            "WPC-LEGACY-001: observe differs",
        ),
        (
            "The first init container MUST be named",
            "The first init container is named",
            "WPC-LEGACY-001: is a MUST clause but its text never says MUST",
        ),
        (
            "· profile: pod\n\nThe supervisor",
            "· profile: status\n\nThe supervisor",
            "WPC-HANDSHAKE-001: profile differs",
        ),
        (
            "feature: INITLESS_LAYOUT",
            "feature: LEGACY_LAYOUT",
            "WPC-HANDSHAKE-001: feature differs",
        ),
    ],
)
def test_markdown_problems_are_reported(old, new, expected):
    markdown = agreeing_markdown()
    assert old in markdown
    problems = spec.check_agreement(
        spec.load(AGREEING / "requirements.yaml"), markdown.replace(old, new, 1)
    )
    assert any(p.startswith(expected) for p in problems), problems


def test_clause_order_must_match():
    markdown = agreeing_markdown()
    legacy = markdown[markdown.index("## LEGACY") : markdown.index("## HANDSHAKE")]
    handshake = markdown[markdown.index("## HANDSHAKE") :]
    swapped = (
        markdown[: markdown.index("## LEGACY")] + handshake.rstrip() + "\n\n" + legacy
    )
    problems = spec.check_agreement(spec.load(AGREEING / "requirements.yaml"), swapped)
    assert problems == [
        "WPC-HANDSHAKE-001: SPEC.md lists it where requirements.yaml has "
        "WPC-LEGACY-001; keep both files in the same order"
    ]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "· MUST · layouts: legacy ·",
            "· MUST · layouts: legacy",
            "SPEC.md line 11: a clause heading has 5 or 6",
        ),
        (
            "### WPC-LEGACY-001 · MUST",
            "### WPC-LEGACY-1 · MUST",
            "SPEC.md line 11: 'WPC-LEGACY-1' does not match",
        ),
        (
            "· MUST · layouts: legacy ·",
            "· MUSTN'T · layouts: legacy ·",
            "level must be one of MUST, SHOULD, MAY",
        ),
        (
            "LEGACY-001 · MUST · layouts: legacy ·",
            "LEGACY-001 · MUST · layouts: legacy, upside-down ·",
            "layouts must be drawn once each from legacy, initless",
        ),
        (
            "LEGACY-001 · MUST · layouts: legacy ·",
            "LEGACY-001 · MUST · layout: legacy ·",
            "expected a segment 'layouts: <value>'",
        ),
        (
            "· profile: pod\n\nThe first",
            "· profile: pod · status: gone\n\nThe first",
            "status must be one of active, retired",
        ),
        (
            "*Observed by:* pod-spec — the pod's",
            "*Observed by:* pod-spec: the pod's",
            "SPEC.md line 11: the *Observed by* paragraph must be",
        ),
    ],
)
def test_malformed_markdown_is_one_problem_naming_the_line(old, new, expected):
    markdown = agreeing_markdown()
    assert old in markdown
    broken = markdown.replace(old, new, 1)
    with pytest.raises(spec.SpecError) as info:
        spec.parse_markdown(broken)
    assert expected in str(info.value)
    assert spec.check_agreement(spec.load(AGREEING / "requirements.yaml"), broken) == [
        str(info.value)
    ]


def test_parse_markdown_reads_headings_and_observed_by():
    headings = spec.parse_markdown(agreeing_markdown())
    assert [(h.id, h.section, h.line, h.observe) for h in headings] == [
        ("WPC-LEGACY-001", "LEGACY", 11, ("pod-spec",)),
        ("WPC-HANDSHAKE-001", "HANDSHAKE", 19, ("exec-files", "timing")),
    ]
    assert headings[1].text == "The supervisor SHOULD rewrite the marker every 5 s."


def test_public_names_are_pinned():
    assert sorted(spec.__all__) == sorted(
        [
            "AREAS",
            "LAYOUTS",
            "LEVELS",
            "OBSERVATIONS",
            "REQUIREMENTS_PATH",
            "SPEC_PATH",
            "STATUSES",
            "SUPPORTS",
            "ClauseHeading",
            "Feature",
            "Profile",
            "Requirement",
            "Spec",
            "SpecError",
            "check_agreement",
            "heading_anchor",
            "load",
            "parse_markdown",
        ]
    )
    assert all(hasattr(spec, name) for name in spec.__all__)
