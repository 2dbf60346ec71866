"""Which Workflow fields the reference controller implements and which it rejects (#16).

The classification is data: `RULES`, an ordered list of path patterns over the Workflow
CRD's field paths (`spec.templates[].steps[][].hooks`: `[]` a list's items, `{}` a map's
values, `*` any run of characters), the first match deciding. A field is either
implemented with upstream's semantics or rejected at validation with its path and the
words "not supported by the reference controller"; no field is accepted and ignored.
A rule marked `whole` covers everything below its path: a core Kubernetes type the pod
receives unchanged, or a feature rejected as a whole.

`rejected_fields` walks a workflow document with these rules, which is how validation
rejects a field. The list of CRD paths the rules must cover is derived from upstream's
CRD and committed (tests/reference_impl/coverage); the table in docs/reference-coverage.md
is generated from both. This module is shipped in the controller image, hence Python
data rather than a YAML file.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
from collections.abc import Iterator
from typing import Any

Json = dict[str, Any]

UNSUPPORTED = "is not supported by the reference controller"


class Status(enum.Enum):
    """What the reference controller does with a field."""

    IMPLEMENTED = "implemented"
    REJECTED = "rejected"


@dataclasses.dataclass(frozen=True)
class Rule:
    """The status of every field path matching `pattern` (the first matching rule wins)."""

    pattern: str
    status: Status
    note: str = ""
    whole: bool = False
    """The rule covers the paths below its own too (the walk does not descend)."""

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """The pattern as a regular expression: `*` is any run of characters."""
        return re.compile(".*".join(re.escape(p) for p in self.pattern.split("*")))

    def matches(self, path: str) -> bool:
        """Return whether the rule applies to the field path."""
        return self.regex.fullmatch(path) is not None


IMPL, REJ = Status.IMPLEMENTED, Status.REJECTED
T = "spec.templates[]"
STEP = f"{T}.steps[][]"
TASK = f"{T}.dag.tasks[]"
K8S = "core Kubernetes type, copied to the pod unchanged"
CONTAINER = "core Kubernetes Container field, passed to the pod unchanged"
NO_EFFECT = "documentation only; it has no effect upstream either"
EXPORTED = "exported as workflow.outputs.{kind}.<name> and in status.outputs"
NOT_EXPORTED = "only outputs are exported; no effect upstream either"
LOCATIONS = ("artifactory", "azure", "gcs", "git", "hdfs", "oss", "plugin")


def _r(pattern: str, note: str = "", *, whole: bool = False) -> Rule:
    return Rule(pattern, REJ, note, whole)


def _i(pattern: str, note: str = "", *, whole: bool = False) -> Rule:
    return Rule(pattern, IMPL, note, whole)


_CONTAINER_FIELDS = (
    ("args", False),
    ("command", False),
    ("env", True),
    ("envFrom", True),
    ("image", False),
    ("imagePullPolicy", False),
    ("lifecycle", True),
    ("livenessProbe", True),
    ("name", False),
    ("ports", True),
    ("readinessProbe", True),
    ("resizePolicy", True),
    ("resources", True),
    ("restartPolicy", False),
    ("restartPolicyRules", True),
    ("securityContext", True),
    ("startupProbe", True),
    ("stdin", False),
    ("stdinOnce", False),
    ("terminationMessagePath", False),
    ("terminationMessagePolicy", False),
    ("tty", False),
    ("volumeDevices", True),
    ("volumeMounts", True),
    ("workingDir", False),
)


def _containers() -> list[Rule]:
    rules = [
        _i(f"{T}.container", "the main container; emissary wraps its command"),
        _i(f"{T}.script", "the main container plus its source file"),
        _i(f"{T}.script.source", "staged as a file passed as main's last argument"),
        _i(f"{T}.sidecars", "appended to the pod's containers"),
        _i(f"{T}.sidecars[].mirrorVolumeMounts", "main's mounts copied"),
        _i(f"{T}.initContainers", "appended after the executor's init container"),
        _i(f"{T}.initContainers[].mirrorVolumeMounts", "main's mounts copied"),
    ]
    for owner in ("container", "script", "sidecars[]", "initContainers[]"):
        rules += [
            _i(f"{T}.{owner}.{field}", CONTAINER, whole=whole)
            for field, whole in _CONTAINER_FIELDS
        ]
    return rules


def _parameters() -> list[Rule]:
    args = "*.arguments.parameters[]"
    inputs = f"{T}.inputs.parameters[]"
    outputs = f"{T}.outputs.parameters[]"
    return [
        _i("*.parameters", "a list of parameters"),
        _i("*.parameters[].name", "the parameter's name"),
        _i("*.parameters[].description", NO_EFFECT),
        _i(f"{outputs}.globalName", EXPORTED.format(kind="parameters")),
        _i("*.parameters[].globalName", NOT_EXPORTED),
        _i(f"{args}.value", "the value passed"),
        _i(f"{args}.enum", "validation: the value must be in the list"),
        _r(f"{args}.default", "an argument's default"),
        _r(f"{args}.valueFrom", "configMapKeyRef, supplied and event", whole=True),
        _i(f"{inputs}.value", "the value when no argument is passed"),
        _i(f"{inputs}.default", "the value when no argument is passed"),
        _i(f"{inputs}.enum", "choices for suspend templates and the UI only upstream"),
        _i(f"{inputs}.valueFrom", "only `default` is implemented"),
        _i(f"{inputs}.valueFrom.default", "the value when no argument is passed"),
        _r(
            f"{inputs}.valueFrom.*",
            "inputs from config maps, events, expressions",
            whole=True,
        ),
        _r(f"{outputs}.value", "a literal output value"),
        _r(f"{outputs}.default", "an output's default outside valueFrom"),
        _r(f"{outputs}.enum", "choices for suspend templates"),
        _i(f"{outputs}.valueFrom", "path, parameter and default"),
        _i(f"{outputs}.valueFrom.path", "read by the wait/supervisor after main"),
        _i(f"{outputs}.valueFrom.parameter", "a steps/DAG output from a child's"),
        _i(f"{outputs}.valueFrom.default", "used when the value is missing"),
        _r(
            f"{outputs}.valueFrom.*",
            "expression, jqFilter, jsonPath, event, supplied, configMapKeyRef",
            whole=True,
        ),
    ]


def _artifacts() -> list[Rule]:
    art = "*.artifacts[]"
    out = f"{T}.outputs.artifacts[]"
    rules = [
        _i("*.artifacts", "a list of artifacts"),
        _i(f"{art}.name", "the artifact's name"),
        _i(f"{art}.path", "where the artifact is placed or collected"),
        _i(f"{art}.optional", "a missing artifact is no error"),
        _i(f"{art}.from", "an artifact of a finished step or task"),
        _r(f"{art}.fromExpression", "artifacts chosen by expression"),
        _i(f"{art}.mode", "chmod of a loaded input artifact"),
        _i(f"{art}.recurseMode", "chmod applied recursively"),
        _r(f"{art}.archiveLogs", "per-artifact log archiving"),
        _r(f"{art}.artifactGC", "artifact garbage collection", whole=True),
        _r(f"{art}.deleted", "set by artifact garbage collection"),
        _i(f"{out}.globalName", EXPORTED.format(kind="artifacts")),
        _i(f"{art}.globalName", NOT_EXPORTED),
        _r(f"{art}.subPath", "a sub-path of an artifact"),
        _i(f"{art}.archive", "how an output is stored"),
        _i(f"{art}.archive.none", "stored as is"),
        _i(f"{art}.archive.tar", "stored as a gzipped tar (the default)"),
        _r(f"{art}.archive.tar.compressionLevel", "tar compression level"),
        _r(f"{art}.archive.zip", "zip archives"),
        _r(f"{out}.raw", "a raw output location"),
        _r(f"{out}.http", "uploading outputs over HTTP", whole=True),
        _i(f"{art}.raw", "an inline input artifact"),
        _i(f"{art}.raw.data", "the artifact's content"),
        _i(f"{art}.http", "an input artifact downloaded over HTTP"),
        _i(f"{art}.http.url", "the URL fetched"),
        _i(f"{art}.http.headers", "headers sent", whole=True),
        _r(f"{art}.http.auth", "HTTP artifact authentication", whole=True),
        _r(f"{art}.http.saveStreamViaFile", "HTTP streaming mode"),
    ]
    rules += _s3(art)
    rules += [
        _r(f"{art}.{k}", f"the {k} artifact driver", whole=True) for k in LOCATIONS
    ]
    return rules


def _s3(owner: str) -> list[Rule]:
    return [
        _i(f"{owner}.s3", "S3 location (merged over the repository's)"),
        *(
            _i(f"{owner}.s3.{k}", "S3 location", whole=True)
            for k in (
                "accessKeySecret",
                "bucket",
                "endpoint",
                "insecure",
                "key",
                "region",
                "secretKeySecret",
            )
        ),
        _r(f"{owner}.s3.*", "S3 options beyond static keys", whole=True),
    ]


def _hooks(owner: str, note: str) -> list[Rule]:
    """Lifecycle hooks: only `exit`, run as an exit handler; other keys fail validation."""
    hook = f"{owner}.hooks{{}}"
    return [
        _i(f"{owner}.hooks", f"only the exit hook: {note}"),
        _i(f"{hook}.template", "the template the hook runs"),
        _i(f"{hook}.arguments", "the hook's arguments (else the workflow's)"),
        _r(f"{hook}.expression", "expression hooks (and exit hook conditions)"),
        _r(f"{hook}.templateRef", "workflow template references", whole=True),
    ]


def _steps_and_tasks() -> list[Rule]:
    rules: list[Rule] = []
    for item in (STEP, TASK):
        rules += [
            _i(f"{item}.name", "the node is <parent>.<name> or <parent>[i].<name>"),
            _i(f"{item}.template", "the template run"),
            _i(f"{item}.arguments", "parameters and artifacts passed"),
            _i(f"{item}.continueOn", "a failure does not fail the parent"),
            _i(f"{item}.continueOn.error", "an Error does not fail the parent"),
            _i(f"{item}.continueOn.failed", "a Failure does not fail the parent"),
            _i(f"{item}.when", "a false condition skips the node"),
            _i(f"{item}.withItems", "one node per item", whole=True),
            _i(f"{item}.withParam", "one node per JSON list element"),
            _i(f"{item}.withSequence", "one node per number"),
            _i(f"{item}.withSequence.*", "count, start, end, format"),
            *_hooks(item, "<node>.onExit once the step or task has completed"),
            _i(f"{item}.onExit", "the older spelling of hooks.exit (it wins over it)"),
            _r(f"{item}.inline", "inline templates", whole=True),
            _r(f"{item}.templateRef", "workflow template references", whole=True),
        ]
    rules += [
        _i(f"{TASK}.dependencies", "tasks that must succeed first"),
        _i(f"{TASK}.depends", "a condition on the dependencies' results"),
    ]
    return rules


def _templates() -> list[Rule]:
    return [
        _i(f"{T}.name", "the template's name"),
        _i(f"{T}.inputs", "parameters and artifacts"),
        _i(f"{T}.outputs", "parameters and artifacts"),
        _r(f"{T}.outputs.result", "set by the controller, not by users"),
        _r(f"{T}.outputs.exitCode", "set by the controller, not by users"),
        _i(f"{T}.activeDeadlineSeconds", "the pod's activeDeadlineSeconds"),
        _i(f"{T}.affinity", K8S, whole=True),
        _r(f"{T}.annotations", "template annotations (display names)", whole=True),
        _i(f"{T}.archiveLocation", "where outputs and logs are archived"),
        _i(f"{T}.archiveLocation.archiveLogs", "archive main's log"),
        *_s3(f"{T}.archiveLocation"),
        *(
            _r(f"{T}.archiveLocation.{k}", f"the {k} archive location", whole=True)
            for k in (*LOCATIONS, "http", "raw")
        ),
        _i(f"{T}.automountServiceAccountToken", "the pod's automount setting"),
        _r(f"{T}.containerSet", "containerSet templates", whole=True),
        _r(f"{T}.daemon", "daemoned steps"),
        _i(f"{T}.dag", "DAG templates"),
        _i(f"{T}.dag.failFast", "stop starting tasks after a failure"),
        _i(f"{T}.dag.target", "the tasks to run"),
        _i(f"{T}.dag.tasks", "the DAG's tasks"),
        _r(f"{T}.data", "data templates", whole=True),
        _r(f"{T}.executor", "a separate executor service account", whole=True),
        _i(f"{T}.failFast", "a failed child stops the steps or DAG"),
        _i(f"{T}.hostAliases", K8S, whole=True),
        _r(f"{T}.http", "HTTP templates", whole=True),
        _r(f"{T}.memoize", "memoization", whole=True),
        _i(f"{T}.metadata", "labels and annotations of the pod", whole=True),
        _r(f"{T}.metrics", "Prometheus metrics", whole=True),
        _i(f"{T}.nodeSelector", K8S, whole=True),
        _i(f"{T}.parallelism", "a limit on running children"),
        _i(f"{T}.pendingTimeout", "a Pending node fails after it"),
        _r(f"{T}.plugin", "plugin templates", whole=True),
        _r(f"{T}.podResources", "pod-level resources", whole=True),
        _i(f"{T}.podSpecPatch", "merged into the pod spec"),
        _i(f"{T}.priorityClassName", "the pod's priority class"),
        _r(f"{T}.resource", "resource templates", whole=True),
        _r(f"{T}.resourceClaims", "dynamic resource claims", whole=True),
        _i(f"{T}.retryStrategy", "retry nodes and attempts"),
        _i(
            f"{T}.retryStrategy.affinity",
            "nodeAntiAffinity: retries avoid the hosts earlier attempts failed on",
            whole=True,
        ),
        _r(f"{T}.retryStrategy.expression", "retry conditions by expression"),
        _i(f"{T}.retryStrategy.*", "limit, retryPolicy and backoff"),
        _i(f"{T}.schedulerName", "the pod's scheduler"),
        _i(f"{T}.securityContext", K8S, whole=True),
        _i(f"{T}.serviceAccountName", "the pod's service account"),
        _i(f"{T}.steps", "steps templates"),
        _i(f"{T}.suspend", "a Suspend node, resumed by the user or after duration"),
        _i(f"{T}.suspend.duration", "succeeds once startedAt + duration has passed"),
        _r(f"{T}.synchronization", "mutexes and semaphores", whole=True),
        _i(f"{T}.timeout", "the pod's deadline from the node's start"),
        _i(f"{T}.tolerations", K8S, whole=True),
        _i(f"{T}.volumes", K8S + " when mounted", whole=True),
    ]


def _spec() -> list[Rule]:
    return [
        _i("spec.activeDeadlineSeconds", "the workflow's deadline"),
        _i("spec.affinity", K8S, whole=True),
        _i("spec.archiveLogs", "archive every main's log"),
        _i("spec.arguments", "workflow parameters and artifacts"),
        _r("spec.artifactGC", "artifact garbage collection", whole=True),
        _r("spec.artifactRepositoryRef", "named artifact repositories", whole=True),
        _i("spec.automountServiceAccountToken", "the pods' automount setting"),
        _i("spec.dnsConfig", K8S, whole=True),
        _i("spec.dnsPolicy", "the pods' DNS policy"),
        _i("spec.entrypoint", "the template run first"),
        _r("spec.executor", "a separate executor service account", whole=True),
        _r("spec.executorPlugins", "executor plugins", whole=True),
        *_hooks("spec", "the exit handler, as spec.onExit (which wins over it)"),
        _i("spec.hostAliases", K8S, whole=True),
        _i("spec.hostNetwork", "the pods' host network"),
        _i("spec.imagePullSecrets", K8S, whole=True),
        _r("spec.metrics", "Prometheus metrics", whole=True),
        _i("spec.nodeSelector", K8S, whole=True),
        _i("spec.onExit", "the exit handler"),
        _i("spec.parallelism", "a limit on running pods"),
        _r("spec.podDisruptionBudget", "a PodDisruptionBudget", whole=True),
        _i("spec.podGC", "pod garbage collection"),
        _i("spec.podGC.deleteDelayDuration", "delay before deleting"),
        _i("spec.podGC.labelSelector", "which pods are collected", whole=True),
        _i("spec.podGC.strategy", "when pods are collected"),
        _i("spec.podMetadata", "labels and annotations of every pod", whole=True),
        _i("spec.podPriorityClassName", "the pods' priority class"),
        _r("spec.podResources", "pod-level resources", whole=True),
        _i("spec.podSpecPatch", "merged into every pod spec"),
        _r("spec.priority", "workflow priority in the controller's queue"),
        _r("spec.resourceClaims", "dynamic resource claims", whole=True),
        _r("spec.retryStrategy", "a default retry strategy", whole=True),
        _i("spec.schedulerName", "the pods' scheduler"),
        _i("spec.securityContext", K8S, whole=True),
        _i("spec.serviceAccountName", "the pods' service account"),
        _i("spec.shutdown", "Stop and Terminate"),
        _r("spec.suspend", "suspending the whole workflow"),
        _r("spec.synchronization", "mutexes and semaphores", whole=True),
        _r("spec.templateDefaults", "template defaults", whole=True),
        _i("spec.templates", "the templates"),
        _i("spec.tolerations", K8S, whole=True),
        _r("spec.ttlStrategy", "deleting finished workflows", whole=True),
        _r("spec.volumeClaimGC", "deleting claimed volumes", whole=True),
        _r("spec.volumeClaimTemplates", "per-workflow volume claims", whole=True),
        _i("spec.volumes", K8S + " when mounted", whole=True),
        _r("spec.workflowMetadata", "labels set on the workflow", whole=True),
        _r("spec.workflowTemplateRef", "workflow template references", whole=True),
    ]


RULES: tuple[Rule, ...] = (
    *_containers(),
    *_parameters(),
    *_artifacts(),
    *_steps_and_tasks(),
    *_templates(),
    *_spec(),
)


@functools.cache
def rule_for(path: str) -> Rule | None:
    """Return the first rule matching a field path, or None for an unclassified path."""
    return next((r for r in RULES if r.matches(path)), None)


def covered_whole(path: str) -> bool:
    """Return whether a classified path covers everything below it (the CRD walk stops)."""
    rule = rule_for(path)
    return rule is not None and rule.whole


@dataclasses.dataclass(frozen=True)
class Found:
    """A rejected field present in a workflow."""

    path: str
    """The field's CRD path, e.g. `spec.templates[].memoize`."""
    location: str
    """Where it is, as validation messages name it, e.g. `templates.main.memoize`."""

    @property
    def message(self) -> str:
        """The validation message."""
        return f"{self.location} {UNSUPPORTED}"


def rejected_fields(value: Json, *, path: str, location: str) -> Iterator[Found]:
    """Yield every rejected field set in `value` (found at CRD path `path`), in order."""
    for found in fields_set(value, path=path, location=location):
        rule = rule_for(found.path)
        if rule is not None and rule.status is REJ:
            yield found


def fields_set(value: Json, *, path: str, location: str) -> Iterator[Found]:
    """Yield every classified field set in `value` (found at CRD path `path`), in order.

    A field is set unless it is missing, null, false, "" or []. Keys no rule knows are
    skipped (the API server prunes fields its schema lacks); the walk does not descend
    below a rejected field or one covered as a whole.
    """
    for key, child in value.items():
        if child is None or child is False or child == "" or child == []:
            continue
        child_path = f"{path}.{key}"
        rule = rule_for(child_path)
        if rule is None:
            continue
        child_location = location if key == "dag" else f"{location}.{key}"
        yield Found(child_path, child_location)
        if rule.status is IMPL and not rule.whole:
            yield from _descend(child, path=child_path, location=child_location)


MAPS = (".hooks",)
"""Classified fields whose keys are names, not fields (`{}` in a path)."""


def _descend(value: Any, *, path: str, location: str) -> Iterator[Found]:
    if isinstance(value, dict) and path.endswith(MAPS):
        for key, item in value.items():
            if isinstance(item, dict):
                yield from fields_set(
                    item, path=f"{path}{{}}", location=f"{location}.{key}"
                )
    elif isinstance(value, dict):
        yield from fields_set(value, path=path, location=location)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            name = item.get("name") if isinstance(item, dict) else None
            if path.endswith(".steps") and path.startswith(T):
                group = item if isinstance(item, list) else (item or {}).get("steps")
                yield from _descend(
                    group or [], path=f"{path}[]", location=f"{location}[{index}]"
                )
            elif name:
                yield from _descend(
                    item, path=f"{path}[]", location=f"{location}.{name}"
                )
            else:
                yield from _descend(
                    item, path=f"{path}[]", location=f"{location}[{index}]"
                )
