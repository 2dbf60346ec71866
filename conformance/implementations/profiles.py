"""Implementation profiles: what an implementation claims and how to drive it.

A profile is YAML (`conformance/profiles/<name>.yaml`, or any path), checked
against `profiles/profile.schema.json` and then against the spec's feature
names, so a typo is an error naming the key rather than a silently skipped
test (Gateway API accepts unknown feature names; we do not). Commands are argv
lists with `{placeholders}`; `render()` fills them and refuses unknown ones.
A profile may declare extra placeholders under `variables` (name: default),
usable in its commands and instance IDs; a run overrides their values with
`--profile-var NAME=VALUE`, so one profile can drive, say, every deliberate
fault of the reference implementation, each in instances of its own.

A variable's default may itself name `{version}`, `{name}` and variables
declared before it, and `{a|b}` takes `a`, or `b` when `a` is empty: the
upstream profile's `build: "{ref|version}"` gives every git ref its own image
tag and cache directory, while a run that names no ref keeps the profile's
version. Image references may use the variables too; a value given with
`--profile-var` is taken as it is, never filled.
"""

from __future__ import annotations

import dataclasses
import json
import re
import string
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance import contract
from conformance.errors import DataError
from conformance.errors import HarnessError
from conformance.harness.instances.layouts import Instance
from plumbing import textfiles

PROFILES_DIR = Path(__file__).parent.parent / "profiles"
SCHEMA_PATH = PROFILES_DIR / "profile.schema.json"

PROFILE_LIMIT_BYTES = 1 * textfiles.MIB
"""The largest profile read: the bundled ones are under 10 KB, so 1 MiB is room for
any real one while a runaway file is refused before it is parsed."""

COMMON_PLACEHOLDERS = frozenset(
    {
        "repo",
        "python",
        "kubeconfig",
        "kubectl",
        "provider",
        "cluster",
        "cache_dir",
        "name",
        "version",
    }
)
"""Filled for every command: where things are and what is being installed."""

INSTANCE_PLACEHOLDERS = frozenset({"instance_id", "layout", "namespace", "initless"})
"""Filled for per-instance commands (all but `prepare`); `initless` is "true"/"false"."""

COMMAND_PLACEHOLDERS = {
    "prepare": frozenset({"layouts"}),
    "describe": frozenset(),
    "layouts": frozenset(),
    "install": INSTANCE_PLACEHOLDERS,
    "uninstall": INSTANCE_PLACEHOLDERS,
    "stop": INSTANCE_PLACEHOLDERS,
    "start": INSTANCE_PLACEHOLDERS,
    "restart": INSTANCE_PLACEHOLDERS,
    "setLayout": INSTANCE_PLACEHOLDERS,
    "setStatusFinalizer": INSTANCE_PLACEHOLDERS | {"enabled"},
    "setConfig": INSTANCE_PLACEHOLDERS | {"key", "value", "config_patch"},
}
"""Extra placeholders per command, on top of the common ones and `<key>_image`."""

BUILTIN_PLACEHOLDERS = COMMON_PLACEHOLDERS.union(*COMMAND_PLACEHOLDERS.values())
"""Names a profile's `variables` may not take."""

Command = tuple[str, ...]


@dataclass(frozen=True)
class Profile:
    """A validated implementation profile."""

    name: str
    version: str
    path: Path
    images: Mapping[str, str]
    controller_namespace: str
    controller_pod_selector: str
    instance_ids: Mapping[str, str]
    layouts: tuple[str, ...]
    features: frozenset[str]
    """Features claimed in the file, plus the feature of each claimed layout."""
    commands: Mapping[str, tuple[Command, ...]]
    variables: Mapping[str, str] = dataclasses.field(default_factory=dict)
    repository_secrets: tuple[tuple[str, str], ...] = ()
    """`artifactRepository.secrets` as (namespace, name): copied into test namespaces."""
    """Declared `variables` with this run's values (defaults, or --profile-var)."""
    unsupported_layouts: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Layouts the file claims that this run's build cannot run, with the reason
    (the `layouts` command's answer, `without_layouts`); they are not in `layouts`."""
    capabilities: frozenset[str] = frozenset()
    """What else its commands can change (`capabilities`: `executor-config`); the
    chaos experiments that need one it lacks do not apply."""
    organization: str = ""
    """Who makes the implementation (`organization`), or '' when the file does not say."""
    url: str = ""
    """The implementation's project URL (`url`), or ''."""
    contact: tuple[str, ...] = ()
    """How to reach the people who answer for it (`contact`)."""

    def maker(self) -> dict[str, Any]:
        """The report's organization, url and contact: those the profile gives."""
        found: dict[str, Any] = {
            "organization": self.organization,
            "url": self.url,
            "contact": list(self.contact),
        }
        return {key: value for key, value in found.items() if value}

    def controller_selector(self, instance: Instance) -> str:
        """The label selector of `instance`'s controller pods (in its namespace)."""
        return self.controller_pod_selector.format_map(
            {"instance_id": instance.instance_id, "layout": instance.layout}
        )

    def instance(self, layout: str) -> Instance:
        """The controller instance that serves `layout`."""
        instance_id = self.instance_ids[layout]
        values = {"instance_id": instance_id, "layout": layout}
        return Instance(
            layout=layout,
            instance_id=instance_id,
            namespace=self.controller_namespace.format_map(values),
        )


def _placeholders(arg: str) -> Iterable[str]:
    """The names `arg` fills; ValueError for a malformed one, a format spec or conversion.

    Only a plain `{name}` is filled (`render` uses str.format_map): a format spec
    such as `{namespace:>99999999999999}` would pad to that width, a MemoryError in
    the middle of a run, so `profile check` refuses it as `fill_template` does.
    """
    for _literal, field, spec, conversion in string.Formatter().parse(arg):
        if field is None:
            continue
        if spec or conversion:
            raise ValueError(
                f"{{{field}}} in {arg!r}: no format spec or conversion allowed, "
                "only {name}"
            )
        yield field


def _placeholders_of(template: str) -> list[str]:
    """The fields a template names; a malformed one has none (fill_template says why)."""
    try:
        return list(_placeholders(template))
    except ValueError:
        return []


def fill_template(template: str, values: Mapping[str, str], where: str) -> str:
    """Fill a variable default or image reference; `{a|b}` is a, else b if a is empty.

    DataError naming `where` for an unknown name, a format spec or conversion
    (`{a:>3}`, `{a!r}`), or a malformed template.
    """
    out = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise DataError(f"{where}: {exc} in {template!r}") from exc
    for literal, field, spec, conversion in parsed:
        out.append(literal)
        if field is None:
            continue
        if spec or conversion:
            raise DataError(
                f"{where}: {{{field}}} in {template!r}: no format spec or conversion allowed"
            )
        choices = field.split("|")
        unknown = [c for c in choices if c not in values]
        if unknown:
            raise DataError(
                f"{where}: unknown placeholder {{{unknown[0]}}} in {template!r} "
                f"(allowed here: {', '.join(sorted(values)) or 'none'})"
            )
        out.append(next((values[c] for c in choices if values[c]), ""))
    return "".join(out)


def _image_placeholders(images: Mapping[str, str]) -> frozenset[str]:
    return frozenset(f"{key}_image" for key in images)


def _where(path: Iterable[object]) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else f".{p}" for p in path]
    return "".join(parts).lstrip(".") or "<top level>"


def _check_schema(data: object, source: Path) -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(data),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        lines = [f"{_where(e.absolute_path)}: {e.message}" for e in errors]
        raise DataError(
            f"{source}: invalid implementation profile:\n  " + "\n  ".join(lines)
        )


def _check_commands(data: Mapping[str, Any], source: Path) -> None:
    image_fields = _image_placeholders(data["images"])
    variables = frozenset(data.get("variables", {}))
    problems = [
        f"variables.{name}: clashes with the built-in placeholder {{{name}}}"
        for name in sorted(variables & (BUILTIN_PLACEHOLDERS | image_fields))
    ]
    for kind, commands in data["commands"].items():
        allowed = (
            COMMON_PLACEHOLDERS | COMMAND_PLACEHOLDERS[kind] | image_fields | variables
        )
        for i, command in enumerate(commands):
            for j, arg in enumerate(command):
                try:
                    fields = set(_placeholders(arg))
                except ValueError as exc:
                    problems.append(f"commands.{kind}[{i}][{j}]: {exc}")
                    continue
                for field in sorted(fields - allowed):
                    problems.append(
                        f"commands.{kind}[{i}][{j}]: unknown placeholder {{{field}}} "
                        f"(allowed here: {', '.join(sorted(allowed))})"
                    )
    for key in ("namespace", "podSelector"):
        try:
            named = set(_placeholders(data["controller"][key]))
        except ValueError as exc:
            problems.append(f"controller.{key}: {exc}")
            continue
        for field in sorted(named - {"instance_id", "layout"}):
            problems.append(f"controller.{key}: unknown placeholder {{{field}}}")
    tools = data["images"].get("tools", contract.TOOLS_IMAGE)
    if tools != contract.TOOLS_IMAGE:
        problems.append(
            f"images.tools: {tools!r}: the suite loads its own tools image "
            f"({contract.TOOLS_IMAGE}) into every cluster; name that one or leave the key out"
        )
    if problems:
        raise DataError(
            f"{source}: invalid implementation profile:\n  " + "\n  ".join(problems)
        )


def _check_features(
    features: list[str], known: frozenset[str] | None, source: Path
) -> None:
    if known is None:
        return
    for i, feature in enumerate(features):
        if feature not in known:
            raise DataError(
                f"{source}: features[{i}]: unknown feature {feature!r} "
                f"(the spec defines: {', '.join(sorted(known))})"
            )


def resolve(name_or_path: str) -> Path:
    """Find a profile by file path, or by name among the bundled profiles."""
    candidate = Path(name_or_path)
    if candidate.suffix in {".yaml", ".yml"} or candidate.exists():
        if not candidate.is_file():
            raise DataError(f"implementation profile {candidate} does not exist")
        return candidate
    bundled = PROFILES_DIR / f"{name_or_path}.yaml"
    if bundled.is_file():
        return bundled
    names = sorted(p.stem for p in PROFILES_DIR.glob("*.yaml"))
    raise DataError(
        f"unknown implementation {name_or_path!r}: not a file, and not one of "
        f"the bundled profiles ({', '.join(names)})"
    )


def _variable_values(
    data: Mapping[str, Any], given: Mapping[str, str], source: Path
) -> dict[str, str]:
    """Each declared variable's value: given as it is, else its default filled in order."""
    declared: Mapping[str, str] = data.get("variables", {})
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise DataError(
            f"{source}: unknown profile variable(s) {', '.join(unknown)} "
            f"(the profile declares: {', '.join(sorted(declared)) or 'none'})"
        )
    values = {"name": str(data["name"]), "version": str(data["version"]), **given}
    filling: list[str] = []

    def value(name: str) -> str:
        # A default names other variables in any order (YAML tools sort keys); each
        # is filled once, on first use, and a cycle is an error naming it.
        if name in values:
            return values[name]
        if name in filling:
            cycle = " -> ".join([*filling[filling.index(name) :], name])
            raise DataError(
                f"{source}: variables.{name}: defaults name each other: {cycle}"
            )
        filling.append(name)
        template = declared[name]
        names = {n for f in _placeholders_of(template) for n in f.split("|")}
        known = {n: value(n) for n in sorted(names) if n in declared or n in values}
        values[name] = fill_template(template, known, f"{source}: variables.{name}")
        filling.pop()
        return values[name]

    return {name: value(name) for name in declared}


IMAGE_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
"""What an image tag may be (the OCI distribution spec's tag grammar)."""


def _images(
    data: Mapping[str, Any], variables: Mapping[str, str], source: Path
) -> dict[str, str]:
    """The image references, filled with the variables; pinned and well-formed or an error."""
    known = {"name": str(data["name"]), "version": str(data["version"]), **variables}
    filled = {}
    for key, raw in data["images"].items():
        where = f"{source}: images.{key}"
        ref = fill_template(raw, known, where)
        last = raw.rsplit("/", 1)[-1]
        if "@" not in raw and ":" in last:
            # The tag as the template spells it, filled alone: a value with a slash
            # would otherwise move the tag's boundary and hide the mistake.
            tag = fill_template(last.partition(":")[2], known, where)
            if not IMAGE_TAG.match(tag):
                raise DataError(
                    f"{where}: {ref!r} (from {raw!r}): {tag!r} is not a valid image tag "
                    "(letters, digits, _ . -, at most 128): give the variable it comes "
                    "from a value that is one"
                )
        if ref.endswith(":latest") or (":" not in last and "@" not in raw):
            raise DataError(
                f"{source}: invalid implementation profile:\n  images.{key}: "
                f"{ref!r} needs a pinned tag or digest, never latest"
            )
        filled[key] = ref
    return filled


INSTANCE_ID = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
"""A filled-in instanceID: a DNS label (it names namespaces and labels)."""


def _instance_ids(
    data: Mapping[str, Any], variables: Mapping[str, str], source: Path
) -> dict[str, str]:
    given = data["controller"].get("instances", {})
    filled = {}
    for layout in contract.LAYOUTS:
        raw = given.get(layout, f"wpc-{layout}")
        # The schema allows only `{name}` here (and a well-formed template).
        unknown = sorted(set(_placeholders(raw)) - set(variables))
        if unknown:
            raise DataError(
                f"{source}: controller.instances.{layout}: unknown placeholder "
                f"{{{unknown[0]}}} (the profile declares: {', '.join(sorted(variables)) or 'none'})"
            )
        value = raw.format_map(variables)
        if not INSTANCE_ID.match(value) or len(value) > 40:
            raise DataError(
                f"{source}: controller.instances.{layout}: {value!r} (from {raw!r}) "
                "is not a DNS label of at most 40 characters"
            )
        filled[layout] = value
    return filled


def load(
    name_or_path: str,
    *,
    known_features: frozenset[str] | None = None,
    variables: Mapping[str, str] | None = None,
) -> Profile:
    """Load and validate a profile; DataError names the file and the key.

    `variables` overrides the defaults of the profile's declared `variables`
    (`--profile-var`); a name the profile does not declare is a DataError.
    """
    source = resolve(name_or_path)
    try:
        text = textfiles.read(
            source, limit=PROFILE_LIMIT_BYTES, what="implementation profile"
        )
    except textfiles.TextFileError as exc:
        raise DataError(str(exc)) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataError(f"{source}: not valid YAML: {exc}") from exc
    _check_schema(data, source)
    _check_commands(data, source)
    _check_features(data["features"], known_features, source)
    claimed_layouts = tuple(
        layout for layout in contract.LAYOUTS if layout in data["layouts"]
    )
    values = _variable_values(data, variables or {}, source)
    return Profile(
        name=data["name"],
        version=str(data["version"]),
        path=source.resolve(),
        images={**_images(data, values, source), "tools": contract.TOOLS_IMAGE},
        controller_namespace=data["controller"]["namespace"],
        controller_pod_selector=data["controller"]["podSelector"],
        instance_ids=_instance_ids(data, values, source),
        layouts=claimed_layouts,
        features=frozenset(data["features"])
        | {contract.LAYOUT_FEATURES[layout] for layout in claimed_layouts},
        commands={
            kind: tuple(tuple(cmd) for cmd in data["commands"].get(kind, []))
            for kind in COMMAND_PLACEHOLDERS
        },
        variables=values,
        repository_secrets=tuple(
            (secret["namespace"], secret["name"])
            for secret in data.get("artifactRepository", {}).get("secrets", [])
        ),
        capabilities=frozenset(data.get("capabilities", [])),
        organization=str(data.get("organization", "")),
        url=str(data.get("url", "")),
        contact=tuple(data.get("contact", [])),
    )


def without_layouts(profile: Profile, unsupported: Mapping[str, str]) -> Profile:
    """The profile claiming only the layouts its build supports.

    `unsupported` maps a layout to the reason the build cannot run it (what the
    profile's `layouts` command said); each such layout, and its feature, is no
    longer claimed, and the reason is kept for the header, the skips and the report.
    """
    dropped = {
        layout: why for layout, why in unsupported.items() if layout in profile.layouts
    }
    if not dropped:
        return profile
    if set(dropped) == set(profile.layouts):
        raise DataError(
            f"{profile.path}: the build runs none of the layouts the profile claims: "
            + "; ".join(f"{layout}: {why}" for layout, why in dropped.items())
        )
    return dataclasses.replace(
        profile,
        layouts=tuple(layout for layout in profile.layouts if layout not in dropped),
        features=profile.features
        - {contract.LAYOUT_FEATURES[layout] for layout in dropped},
        unsupported_layouts={**profile.unsupported_layouts, **dropped},
    )


def layout_support(output: str, where: str) -> dict[str, str]:
    """The unsupported layouts a `layouts` command printed, each with its reason.

    The command's last non-empty line is one JSON object with a key per layout:
    null when the build runs it, else a sentence saying why it cannot, e.g.
    `{"legacy": null, "initless": "no init-less layout in this source"}`. A layout it
    does not name is taken as supported. DataError naming `where` for anything else.
    """
    line = next((x for x in reversed(output.splitlines()) if x.strip()), "")
    try:
        answer = json.loads(line)
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict):
        raise DataError(
            f"{where}: expected a JSON object of layouts as the last line, got {line!r}"
        )
    problems = [
        f"{layout!r}: not a layout (known: {', '.join(contract.LAYOUTS)})"
        for layout in answer
        if layout not in contract.LAYOUTS
    ] + [
        f"{layout}: {why!r}: expected null or the reason, a non-empty string"
        for layout, why in answer.items()
        if why is not None and not (isinstance(why, str) and why.strip())
    ]
    if problems:
        raise DataError(f"{where}: " + "; ".join(problems))
    return {layout: why for layout, why in answer.items() if why is not None}


def render(command: Command, values: Mapping[str, str]) -> list[str]:
    """Fill a command's placeholders; a missing value is a DataError."""
    try:
        return [arg.format_map(values) for arg in command]
    except KeyError as exc:
        raise DataError(
            f"no value for placeholder {{{exc.args[0]}}} in {list(command)}"
        ) from exc


CONFIG_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
"""A top-level field of the controller configuration (`instanceID`, `images`, ...)."""


def config_values(key: str, value: Any) -> dict[str, str]:
    """The `setConfig` placeholders for setting configuration field `key` to `value`.

    `{key}` is the field, `{value}` its value as one line of JSON (`null`: remove the
    field), and `{config_patch}` a JSON merge patch of a ConfigMap that keeps Argo's
    configuration one data key per top-level field, each value a YAML document (JSON
    is one): `{"data": {"images": "{...}"}}`, or `{"data": {"instanceID": null}}` to
    remove it. Argo's single `config` key is not a field, so it is refused.
    """
    if not CONFIG_KEY.match(key) or key == "config":
        raise HarnessError(
            f"configuration key {key!r}: expected one top-level field name "
            f"({CONFIG_KEY.pattern}, not 'config')"
        )
    text = json.dumps(value, sort_keys=True)
    patch = {"data": {key: None if value is None else text}}
    return {"key": key, "value": text, "config_patch": json.dumps(patch)}


def placeholder_values(profile: Profile, base: Mapping[str, str]) -> dict[str, str]:
    """Common values plus the profile's variables, name, version and `<key>_image`."""
    values = {**profile.variables, **base}
    values["name"] = profile.name
    values["version"] = profile.version
    values.update({f"{key}_image": ref for key, ref in profile.images.items()})
    return values
