"""Which images a corpus workflow may run on a machine without a registry.

Every image must already be in the cluster: the suite's tools image (busybox
plus `probe`), plus whatever `--allow-image` names. An upstream example's image
can be mapped onto one of those with `--image-map FROM=TO` where that is honest
(docs/differential.md says which); an image neither allowed nor mapped makes the
workflow skipped with the reason "image X not available offline".

`FROM` is either a repository (`busybox`: any tag of it, and no tag) or an exact
reference (`alpine:3.23`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance import contract
from conformance.errors import DataError

Json = dict[str, Any]

CONTAINER_LISTS = ("sidecars", "initContainers")
"""Template fields holding lists of containers, besides containerSet's."""


def repository(ref: str) -> str:
    """`alpine` of `alpine:3.23`, `registry:5000/x` of `registry:5000/x:1` (digest too)."""
    name = ref.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    return name


def parse_map(pairs: list[str]) -> dict[str, str]:
    """`FROM=TO` pairs as a dict; DataError naming a malformed or repeated pair."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        source, sep, target = pair.partition("=")
        if not sep or not source.strip() or not target.strip():
            raise DataError(f"--image-map {pair!r}: expected FROM=TO")
        if source in mapping:
            raise DataError(f"--image-map: {source!r} is mapped twice")
        mapping[source.strip()] = target.strip()
    return mapping


@dataclass(frozen=True)
class ImagePolicy:
    """The images a run may use and how upstream's are mapped onto them."""

    allowed: frozenset[str] = frozenset({contract.TOOLS_IMAGE})
    mapping: Mapping[str, str] | None = None

    def mapped(self, ref: str) -> str:
        """`ref` after the map: an exact entry first, then its repository's."""
        table = self.mapping or {}
        if ref in table:
            return table[ref]
        return table.get(repository(ref), ref)

    def missing(self, ref: str) -> bool:
        """True when `ref`, once mapped, is not an image the cluster has."""
        return self.mapped(ref) not in self.allowed


def containers(workflow: Json) -> Iterator[Json]:
    """Every container-like object of every template (main, script, sidecars, ...)."""
    spec = workflow.get("spec") or {}
    for template in spec.get("templates") or []:
        if not isinstance(template, dict):
            continue
        for kind in ("container", "script"):
            if isinstance(template.get(kind), dict):
                yield template[kind]
        for field in CONTAINER_LISTS:
            yield from (c for c in template.get(field) or [] if isinstance(c, dict))
        container_set = template.get("containerSet")
        if isinstance(container_set, dict):
            yield from (
                c for c in container_set.get("containers") or [] if isinstance(c, dict)
            )


def images_of(workflow: Json) -> list[str]:
    """The images the workflow names, in order, each once (an absent image: '')."""
    seen: list[str] = []
    for container in containers(workflow):
        image = str(container.get("image", ""))
        if image not in seen:
            seen.append(image)
    return seen


def rewrite(workflow: Json, policy: ImagePolicy) -> Json:
    """A copy of `workflow` with every image mapped by `policy`."""
    result = copy.deepcopy(workflow)
    for container in containers(result):
        if container.get("image"):
            container["image"] = policy.mapped(str(container["image"]))
    return result
