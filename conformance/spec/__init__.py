"""The WPC spec: SPEC.md for people, requirements.yaml for code.

`load()` gives the validated clauses the plugin and the coverage ledger use;
`check_agreement()` proves the Markdown says the same thing as the YAML.
"""

from __future__ import annotations

from pathlib import Path

from conformance.spec._comparing import check_agreement
from conformance.spec._errors import SpecError
from conformance.spec._loading import REQUIREMENTS_PATH
from conformance.spec._loading import load
from conformance.spec._models import AREAS
from conformance.spec._models import LAYOUTS
from conformance.spec._models import LEVELS
from conformance.spec._models import OBSERVATIONS
from conformance.spec._models import STATUSES
from conformance.spec._models import SUPPORTS
from conformance.spec._models import Feature
from conformance.spec._models import Profile
from conformance.spec._models import Requirement
from conformance.spec._models import Spec
from conformance.spec._parsing import ClauseHeading
from conformance.spec._parsing import heading_anchor
from conformance.spec._parsing import parse_markdown

SPEC_PATH = Path(__file__).parent.parent / "SPEC.md"
"""The shipped SPEC.md, the Markdown twin of `REQUIREMENTS_PATH`."""

__all__ = [
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
