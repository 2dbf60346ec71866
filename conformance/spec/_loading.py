"""Read `requirements.yaml` into a validated `Spec`.

Validation is strict because other parts (the pytest plugin, the coverage
ledger) trust the result: an unknown key, an undeclared feature or a duplicate
ID raises `SpecError` naming the entry instead of being ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.spec._errors import SpecError
from conformance.spec._models import AREAS
from conformance.spec._models import FEATURE_PATTERN
from conformance.spec._models import ID_PATTERN
from conformance.spec._models import LAYOUTS
from conformance.spec._models import LEVELS
from conformance.spec._models import OBSERVATIONS
from conformance.spec._models import PROFILE_PATTERN
from conformance.spec._models import STATUSES
from conformance.spec._models import SUPPORTS
from conformance.spec._models import Feature
from conformance.spec._models import Profile
from conformance.spec._models import Requirement
from conformance.spec._models import Spec

REQUIREMENTS_PATH = Path(__file__).with_name("requirements.yaml")
"""The shipped requirements file, loaded when `load()` gets no path."""

API_VERSION = "wpc.dev/v1"
KIND = "Requirements"
TOP_KEYS = frozenset(
    {"apiVersion", "kind", "specVersion", "profiles", "features", "requirements"}
)
PROFILE_KEYS = frozenset({"name", "description"})
FEATURE_KEYS = frozenset({"name", "support", "description"})
REQUIRED_KEYS = frozenset(
    {"id", "level", "layouts", "feature", "profile", "observe", "summary"}
)
REQUIREMENT_KEYS = REQUIRED_KEYS | {"status"}


def load(path: Path | None = None) -> Spec:
    """Load and validate a requirements file (the shipped one by default)."""
    source = path or REQUIREMENTS_PATH
    return build(read_yaml(source), source=source.name)


def read_yaml(source: Path) -> Any:
    """The YAML document of a spec file; SpecError naming the file otherwise."""
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as err:
        raise SpecError(f"{source}: cannot read: {err}") from err
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise SpecError(f"{source}: not valid YAML: {err}") from err


def build(data: Any, *, source: str = "requirements.yaml") -> Spec:
    """Validate already-parsed YAML data and turn it into a `Spec`."""
    top = _mapping(data, f"{source}: the document")
    _check_keys(
        top, allowed=TOP_KEYS, required=TOP_KEYS, where=f"{source}: the document"
    )
    if top["apiVersion"] != API_VERSION or top["kind"] != KIND:
        raise SpecError(
            f"{source}: expected apiVersion {API_VERSION!r} and kind {KIND!r}, "
            f"got {top['apiVersion']!r} and {top['kind']!r}"
        )
    version = _text(top["specVersion"], f"{source}: specVersion")
    profiles = tuple(
        _profile(entry, i, source)
        for i, entry in enumerate(_items(top, "profiles", source))
    )
    features = tuple(
        _feature(entry, i, source)
        for i, entry in enumerate(_items(top, "features", source))
    )
    _unique([p.name for p in profiles], what="profile", source=source)
    _unique([f.name for f in features], what="feature", source=source)
    known = _Known(
        profiles=frozenset(p.name for p in profiles),
        features=frozenset(f.name for f in features),
    )
    requirements = tuple(
        _requirement(entry, i, source, known)
        for i, entry in enumerate(_items(top, "requirements", source))
    )
    _unique([r.id for r in requirements], what="requirement ID", source=source)
    return Spec(
        version=version, profiles=profiles, features=features, requirements=requirements
    )


@dataclass(frozen=True)
class _Known:
    """Declared names a requirement may refer to."""

    profiles: frozenset[str]
    features: frozenset[str]


def _profile(entry: Any, index: int, source: str) -> Profile:
    where = f"{source}: profiles[{index}]"
    item = _mapping(entry, where)
    name = _text(item.get("name"), f"{where}.name")
    where = f"{source}: profile {name!r}"
    _check_keys(item, allowed=PROFILE_KEYS, required={"name"}, where=where)
    if not PROFILE_PATTERN.match(name):
        raise SpecError(f"{where}: name must be lower-case words joined by '-'")
    return Profile(name=name, description=_optional_text(item, "description", where))


def _feature(entry: Any, index: int, source: str) -> Feature:
    where = f"{source}: features[{index}]"
    item = _mapping(entry, where)
    name = _text(item.get("name"), f"{where}.name")
    where = f"{source}: feature {name!r}"
    _check_keys(item, allowed=FEATURE_KEYS, required={"name", "support"}, where=where)
    if not FEATURE_PATTERN.match(name):
        raise SpecError(f"{where}: name must be UPPER_SNAKE_CASE")
    support = _choice(item["support"], SUPPORTS, f"{where}: support")
    return Feature(
        name=name,
        support=support,
        description=_optional_text(item, "description", where),
    )


def _requirement(entry: Any, index: int, source: str, known: _Known) -> Requirement:
    where = f"{source}: requirements[{index}]"
    item = _mapping(entry, where)
    req_id = _text(item.get("id"), f"{where}.id")
    where = f"{source}: requirement {req_id}"
    _check_keys(item, allowed=REQUIREMENT_KEYS, required=REQUIRED_KEYS, where=where)
    match = ID_PATTERN.match(req_id)
    if not match:
        raise SpecError(f"{where}: ID must match WPC-<AREA>-<NNN> (three digits)")
    if match.group("area") not in AREAS:
        raise SpecError(
            f"{where}: unknown area {match.group('area')!r}; areas are {', '.join(AREAS)}"
        )
    feature = _text(item["feature"], f"{where}: feature")
    if feature not in known.features:
        raise SpecError(f"{where}: feature {feature!r} is not declared under features")
    profile = _text(item["profile"], f"{where}: profile")
    if profile not in known.profiles:
        raise SpecError(f"{where}: profile {profile!r} is not declared under profiles")
    return Requirement(
        id=req_id,
        level=_choice(item["level"], LEVELS, f"{where}: level"),
        layouts=frozenset(_choices(item["layouts"], LAYOUTS, f"{where}: layouts")),
        feature=feature,
        profile=profile,
        observe=_choices(item["observe"], OBSERVATIONS, f"{where}: observe"),
        summary=_text(item["summary"], f"{where}: summary"),
        status=_choice(item.get("status", "active"), STATUSES, f"{where}: status"),
    )


def _items(top: Mapping[str, Any], key: str, source: str) -> list[Any]:
    value = top[key]
    if not isinstance(value, list) or not value:
        raise SpecError(f"{source}: {key} must be a non-empty list")
    return value


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SpecError(f"{where} must be a mapping, not {type(value).__name__}")
    return value


def _check_keys(
    item: Mapping[str, Any],
    *,
    allowed: frozenset[str],
    required: set[str] | frozenset[str],
    where: str,
) -> None:
    unknown = sorted(str(k) for k in item if k not in allowed)
    if unknown:
        raise SpecError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed))}"
        )
    missing = sorted(k for k in required if k not in item)
    if missing:
        raise SpecError(f"{where}: missing key(s) {', '.join(map(repr, missing))}")


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f"{where} must be a non-empty string, not {value!r}")
    return value


def _optional_text(item: Mapping[str, Any], key: str, where: str) -> str:
    return _text(item[key], f"{where}: {key}") if key in item else ""


def _choice(value: Any, allowed: tuple[str, ...], where: str) -> str:
    if value not in allowed:
        raise SpecError(f"{where} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def _choices(value: Any, allowed: tuple[str, ...], where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise SpecError(
            f"{where} must be a non-empty list drawn from {', '.join(allowed)}"
        )
    items = tuple(_choice(v, allowed, where) for v in value)
    if len(set(items)) != len(items):
        raise SpecError(f"{where} lists a value twice: {list(items)}")
    return items


def _unique(names: list[str], *, what: str, source: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise SpecError(f"{source}: {what} {name!r} is declared more than once")
        seen.add(name)
