"""The controller ConfigMap (`workflow-controller-configmap`), parsed like Argo parses it.

Argo accepts either one `config:` key holding the whole YAML document, or one key per
top-level field whose value is YAML (`initlessPod` holding `enabled: true`); it joins the
second form into one document before parsing (`config/controller.go` `parseConfigMap`).
The reference controller does the same and keeps only the fields it implements.

The ConfigMap is read from the watch cache each time a pod is built, so a change to
`initlessPod` applies to the next pod; pods already created keep their layout. A change
to `parallelism` applies to the next workflow admitted (`runtime/throttling.py`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import yaml

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.formats import durations

Json = dict[str, Any]

DEFAULT_PULL_POLICY = "IfNotPresent"
DEFAULT_POD_GC_DELETE_DELAY = 5.0  # Argo: Config.GetPodGCDeleteDelayDuration


@dataclasses.dataclass(frozen=True)
class ControllerConfig:
    """The parts of Argo's controller `Config` the reference controller implements."""

    instance_id: str = ""
    """`instanceID`: label selector for workflows, pods and task results; copied onto pods."""
    initless: bool = False
    """`initlessPod.enabled`: build new pods in the init-less (supervisor) layout."""
    executor: Json = dataclasses.field(default_factory=dict)
    """`executor`: a Container snippet (image, imagePullPolicy, env, resources, args, ...)."""
    main_container: Json | None = None
    """`mainContainer`: defaults merged under every main container."""
    artifact_repository: Json | None = None
    """`artifactRepository`: default output location (`s3: {endpoint, bucket, ...}`)."""
    images: Json = dataclasses.field(default_factory=dict)
    """`images`: entrypoint index `{<image>: {entrypoint: [...], cmd: [...]}}` for commandless containers."""
    pod_gc_grace_period_seconds: int | None = None
    """`podGCGracePeriodSeconds`: grace period of pod GC deletes (None: the pod's own)."""
    pod_gc_delete_delay_seconds: float = DEFAULT_POD_GC_DELETE_DELAY
    """`podGCDeleteDelayDuration`: default delay before pod GC deletes (Argo: 5s)."""
    parallelism: int = 0
    """`parallelism`: how many workflows of this controller may run at once (0: no limit)."""

    def executor_image(self, override: str | None) -> str:
        """Return the executor image: `--executor-image` > `executor.image` > built-in default."""
        return override or str(self.executor.get("image") or common.EXECUTOR_IMAGE)

    def executor_pull_policy(self) -> str:
        """Return the executor image pull policy, also used for the `argoexec-bin` image volume."""
        return str(self.executor.get("imagePullPolicy") or DEFAULT_PULL_POLICY)


def parse(data: Mapping[str, str] | None) -> ControllerConfig:
    """Parse ConfigMap `data` into a ControllerConfig; None or empty gives the defaults.

    Raises ConfigError with the offending key when the content cannot be parsed.
    """
    document = _document(dict(data or {}))
    try:
        return ControllerConfig(
            instance_id=str(document.get("instanceID") or ""),
            initless=bool((document.get("initlessPod") or {}).get("enabled", False)),
            executor=dict(document.get("executor") or {}),
            main_container=document.get("mainContainer"),
            artifact_repository=document.get("artifactRepository"),
            images=dict(document.get("images") or {}),
            pod_gc_grace_period_seconds=document.get("podGCGracePeriodSeconds"),
            pod_gc_delete_delay_seconds=_delay(
                document.get("podGCDeleteDelayDuration")
            ),
            parallelism=_parallelism(document.get("parallelism")),
        )
    except (AttributeError, TypeError, ValueError) as err:
        raise errors.ConfigError(
            f"controller configuration is malformed: {err}"
        ) from err


def _document(data: dict[str, str]) -> Json:
    if "config" in data:
        if len(data) != 1:
            raise errors.ConfigError(
                "if you have an item in your config map named 'config', you must only have one item"
            )
        raw = data["config"]
    else:
        lines = []
        for name, value in data.items():
            if "\n" in value:
                body = "\n  ".join(value.strip("\n").split("\n"))
                lines.append(f"{name}:\n  {body}\n")
            else:
                lines.append(f"{name}: {value}\n")
        raw = "".join(lines)
    try:
        loaded = yaml.safe_load(raw) if raw.strip() else {}
    except yaml.YAMLError as err:
        raise errors.ConfigError(
            f"controller configuration is not valid YAML: {err}"
        ) from err
    if not isinstance(loaded, dict):
        raise errors.ConfigError("controller configuration must be a YAML mapping")
    return loaded


def _delay(value: Any) -> float:
    if value is None:
        return DEFAULT_POD_GC_DELETE_DELAY
    return durations.parse(str(value))


def _parallelism(value: Any) -> int:
    """The workflow limit: a whole number, at least 0 (absent or 0: no limit).

    Upstream's field is a Go `int`, so a string or a fraction does not parse there
    either; a negative limit would hold back every workflow for good, so it is refused
    here rather than read as "no limit".
    """
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise errors.ConfigError(
            f"parallelism must be a non-negative integer, not {value!r}"
        )
    return value
