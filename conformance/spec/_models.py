"""The spec's vocabulary and the frozen records the loader returns.

The vocabularies are closed: a value outside them is a spec error, so a typo in
`requirements.yaml` or `SPEC.md` fails loudly instead of silently widening the
spec.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LEVELS = ("MUST", "SHOULD", "MAY")
"""RFC 2119 levels a clause may have."""

LAYOUTS = ("legacy", "initless")
"""Pod layouts, in canonical order; a clause applies to a non-empty subset."""

SUPPORTS = ("Core", "Extended")
"""Core features every implementation supports; Extended ones it may claim."""

STATUSES = ("active", "retired")
"""A retired clause keeps its ID for ever; tests stop citing it."""

AREAS = (
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
"""The `<AREA>` part of clause IDs, in SPEC.md section order."""

OBSERVATIONS = (
    "pod-spec",
    "container-status",
    "termination-message",
    "workflow-status",
    "task-result",
    "events",
    "exec-files",
    "timing",
    "controller-config",
    "rbac",
)
"""How a black-box test sees a clause; defined in SPEC.md's conventions."""

ID_PATTERN = re.compile(r"^WPC-(?P<area>[A-Z]+)-(?P<number>[0-9]{3})$")
FEATURE_PATTERN = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
PROFILE_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Profile:
    """A reporting group of clauses (for example `pod` or `controller`)."""

    name: str
    description: str = ""


@dataclass(frozen=True)
class Feature:
    """A unit an implementation supports (Core) or may claim (Extended)."""

    name: str
    support: str
    description: str = ""

    @property
    def core(self) -> bool:
        """Whether every conformant implementation must support it."""
        return self.support == "Core"


@dataclass(frozen=True)
class Requirement:
    """One clause of the spec, as `requirements.yaml` states it."""

    id: str
    level: str
    layouts: frozenset[str]
    feature: str
    profile: str
    observe: tuple[str, ...]
    summary: str
    status: str = "active"

    @property
    def area(self) -> str:
        """The `<AREA>` part of the ID, which is also its SPEC.md section."""
        match = ID_PATTERN.match(self.id)
        return match.group("area") if match else ""

    @property
    def active(self) -> bool:
        """Whether tests may still cite it."""
        return self.status == "active"


@dataclass(frozen=True)
class Spec:
    """The whole spec: its version, profiles, features and clauses in file order."""

    version: str
    profiles: tuple[Profile, ...]
    features: tuple[Feature, ...]
    requirements: tuple[Requirement, ...]

    def by_id(self) -> dict[str, Requirement]:
        """Every clause, retired ones included, keyed by ID."""
        return {req.id: req for req in self.requirements}

    def active(self) -> tuple[Requirement, ...]:
        """The clauses tests may cite, in file order."""
        return tuple(req for req in self.requirements if req.active)

    def feature(self, name: str) -> Feature:
        """The declared feature called `name`; KeyError if there is none."""
        for feature in self.features:
            if feature.name == name:
                return feature
        raise KeyError(name)
