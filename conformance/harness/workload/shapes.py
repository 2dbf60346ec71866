"""A built pod taken apart by container, and a table of checks judged at once.

The pod-shape scenarios (LegacyPodShape, InitlessPodShape, LegacyInputArtifacts)
run a one-template workflow, take its one pod as API JSON and compare it with
what their layout's clauses demand, check by check, so that one failure report
lists every check that failed. Reading the pod and wording the failed checks is
the same for all of them, so it lives here once (#8); the checks themselves are
each scenario's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.harness.workload import pods
from conformance.harness.workload.observations import Observations
from conformance.harness.workload.workflows import Workflows

Check = tuple[str, str, Any, Any]
"""One row of a scenario's table: (clause, what is checked, got, want)."""


@dataclass(frozen=True)
class Shape:
    """The one pod of a finished one-template workflow, with the template it ran."""

    pod: dict[str, Any]
    """The pod as API JSON (camelCase dicts, as the clauses name its fields)."""
    template: dict[str, Any]
    """The workflow's only template, as submitted."""
    node: dict[str, Any]
    """The workflow's root node (`{}` if the status has none)."""

    @property
    def name(self) -> str:
        """The pod's name."""
        return str(self.pod["metadata"]["name"])

    @property
    def inits(self) -> list[dict[str, Any]]:
        """`spec.initContainers`, in order."""
        result: list[dict[str, Any]] = self.pod["spec"].get("initContainers") or []
        return result

    @property
    def regular(self) -> list[dict[str, Any]]:
        """`spec.containers`, in order."""
        result: list[dict[str, Any]] = self.pod["spec"]["containers"]
        return result

    @property
    def containers(self) -> dict[str, dict[str, Any]]:
        """Every container by name: the init containers, then the others."""
        return {c["name"]: c for c in [*self.inits, *self.regular]}

    @property
    def volumes(self) -> dict[str, dict[str, Any]]:
        """The pod's volumes by name."""
        return {v["name"]: v for v in self.pod["spec"].get("volumes") or []}

    @property
    def mounts(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Container name -> mount path -> its volume mount."""
        return {
            n: {m["mountPath"]: m for m in c.get("volumeMounts") or []}
            for n, c in self.containers.items()
        }

    @property
    def user(self) -> dict[str, dict[str, Any]]:
        """The template's own containers as submitted: `main`, then its sidecars."""
        return {
            "main": self.template["container"],
            **{s["name"]: s for s in self.template.get("sidecars") or []},
        }

    def holds_template(self, text: Any) -> bool:
        """True for the template as JSON (or `offloaded`): what `ARGO_TEMPLATE` holds."""
        return pods.is_template_json(text, name=self.template["name"])

    @property
    def parameters(self) -> dict[str, Any]:
        """Name -> value of the root node's output parameters."""
        outputs = self.node.get("outputs") or {}
        return {p["name"]: p.get("value") for p in outputs.get("parameters") or []}


def completed(
    workflows: Workflows, manifest: dict[str, Any], *, observations: Observations
) -> Shape:
    """Run a one-template `manifest` to completion (recorded) and take its pod apart."""
    name, workflow = workflows.completed(manifest, observations=observations)
    return Shape(
        pod=pods.only_pod_json(workflows.clients, workflows.namespace, name),
        template=manifest["spec"]["templates"][0],
        node=workflow["status"]["nodes"].get(name, {}),
    )


def init_names(shape: Shape, *, clause: str, want: list[str]) -> Check:
    """The check that the init containers are `want`, by name and in order."""
    return (clause, "init container names", [c["name"] for c in shape.inits], want)


def container_names(shape: Shape, *, clause: str, want: list[str]) -> Check:
    """The check that the (regular) containers are `want`, by name and in order."""
    return (clause, "container names", [c["name"] for c in shape.regular], want)


def user_commands(shape: Shape, *, clause: str, emissary: str) -> Check:
    """The check that main and the sidecars run their own command behind `emissary`.

    Each user container's command is `<emissary> emissary <logopts> -- <its
    command>` and its args are unchanged.
    """
    containers = shape.containers
    return (
        clause,
        "original command and args of main and the sidecars",
        {n: pods.behind_emissary(containers.get(n, {}), emissary) for n in shape.user},
        {n: [c.get("command"), c.get("args")] for n, c in shape.user.items()},
    )


def user_command_checks(
    shape: Shape, *, clause: str, binary: str, reader: str
) -> list[Check]:
    """What main's own command found: `binary` executable, the template readable.

    Both layouts' manifests run a main that checks `binary` (the emissary of
    its layout) and outputs `/var/run/argo/template` as the parameter
    `template`; `reader` says who read it, for the failure's wording.
    """
    template = shape.parameters.get("template")
    return [
        (
            clause,
            f"node of main's check that {binary} is executable",
            [shape.node.get("phase"), shape.node.get("message", "")],
            ["Succeeded", ""],
        ),
        (
            clause,
            f"/var/run/argo/template as {reader}",
            shape.holds_template(template) and template != pods.OFFLOADED,
            True,
        ),
    ]


def problems(checks: list[Check]) -> list[str]:
    """One line per check whose `got` is not its `want`, in the table's order."""
    return [
        f"{clause}: {what}: expected {want!r}, got {got!r}"
        for clause, what, got, want in checks
        if got != want
    ]


def verdict(shape: Shape, checks: list[Check]) -> None:
    """Fail, under the pod's name, with every check whose `got` is not its `want`."""
    failed = problems(checks)
    assert not failed, f"pod {shape.name}:\n" + "\n".join(failed)
