"""Workflow validation before the first pod: bad input fails the workflow, never the controller.

Messages follow Argo's `workflow/validate/validate.go` wording where Argo has the check;
the operator prefixes them with `invalid spec: ` and fails the workflow, as Argo does in
`setExecWorkflow`. Like Argo, only templates reachable from the entrypoint and `onExit` are
validated in depth. Template kinds the reference controller does not implement are rejected
here with a message that says so, instead of misbehaving later.
"""

from __future__ import annotations

import re
from typing import Any

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.formats import substitution
from reference_impl.controller.pods import volumes
from reference_impl.controller.templates.checks import coverage
from reference_impl.controller.templates.inputs import loops
from reference_impl.controller.templates.nodes import hooks

Json = dict[str, Any]

TYPES = (
    "container",
    "containerSet",
    "steps",
    "script",
    "resource",
    "dag",
    "suspend",
    "data",
    "http",
    "plugin",
)
SUPPORTED_TYPES = ("container", "script", "steps", "dag", "suspend")
_TYPE_CHOICES = "container, containerSet, steps, script, resource, dag, suspend, template, template ref"
_RETRY_POLICIES = ("", "Always", "OnError", "OnFailure", "OnTransientError")
_POD_GC_STRATEGIES = (
    "",
    "OnPodCompletion",
    "OnPodSuccess",
    "OnWorkflowCompletion",
    "OnWorkflowSuccess",
)
_NAME = re.compile(r"^[a-zA-Z0-9][-a-zA-Z0-9]*$")
_GLOBAL_NAME = re.compile(r"^[-a-zA-Z0-9_]+$")
_PARAMETER = re.compile(r"{{[-a-zA-Z0-9]+(\.[-a-zA-Z0-9_]+)*}}")
_RESERVED = (common.MAIN, common.INIT, common.WAIT, common.SUPERVISOR)


def validate(workflow: Json) -> None:
    """Raise ValidationError with Argo's message for the first problem found."""
    spec = workflow.get("spec")
    if not isinstance(spec, dict):
        raise errors.ValidationError("spec is required")
    templates = spec.get("templates")
    if not isinstance(templates, list):
        raise errors.ValidationError("spec.templates must be a list")
    _check_names("spec.templates", templates)
    _reject_unsupported(
        {k: v for k, v in spec.items() if k != "templates"}, "spec", "spec"
    )
    by_name = {t["name"]: t for t in templates}
    _check_arguments("spec.arguments.", spec.get("arguments") or {})
    entrypoint = spec.get("entrypoint")
    if not entrypoint:
        raise errors.ValidationError("spec.entrypoint is required")
    checked: set[str] = set()
    _check_holder(by_name, entrypoint, checked, args=spec.get("arguments") or {})
    _check_hooks(spec.get("hooks"), "hooks")
    exit_hook = hooks.exit_hook(spec, spec.get("arguments") or {})
    if exit_hook is not None:
        _check_holder(
            by_name,
            str(exit_hook.get("template", "")),
            checked,
            args=exit_hook.get("arguments") or {},
        )
    strategy = (spec.get("podGC") or {}).get("strategy", "")
    if strategy not in _POD_GC_STRATEGIES:
        raise errors.ValidationError(f"podGC.strategy unknown strategy '{strategy}'")
    if spec.get("shutdown", "") not in ("", "Stop", "Terminate"):
        raise errors.ValidationError(
            f"spec.shutdown unknown strategy '{spec['shutdown']}'"
        )


def template_type(template: Json) -> str | None:
    """Return the kind of a template (`container`, `steps`, ...), or None when it has none."""
    kinds = [t for t in TYPES if template.get(t) is not None]
    return kinds[0] if len(kinds) == 1 else None


def _check_names(prefix: str, items: list[Any]) -> None:
    seen: set[str] = set()
    for index, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        if not name:
            raise errors.ValidationError(f"{prefix}[{index}].name is required")
        if not _NAME.match(str(name)):
            raise errors.ValidationError(
                f"{prefix}[{index}].name: '{name}' is invalid: name must consist of alpha-numeric "
                "characters or '-', and must start with an alpha-numeric character"
            )
        if name in seen:
            raise errors.ValidationError(
                f"{prefix}[{index}].name '{name}' is not unique"
            )
        seen.add(name)


def _check_arguments(prefix: str, arguments: Json) -> None:
    for param in arguments.get("parameters") or []:
        name = param.get("name", "")
        if param.get("value") is None and param.get("valueFrom") is None:
            raise errors.ValidationError(
                f"{prefix}{name}.value or {prefix}{name}.valueFrom is required"
            )
        enum = param.get("enum")
        if enum is not None and str(param.get("value")) not in [str(v) for v in enum]:
            raise errors.ValidationError(
                f"{prefix}{name}.value should be present in {prefix}{name}.enum list"
            )
    for artifact in arguments.get("artifacts") or []:
        if not artifact.get("from") and not volumes.has_location(artifact):
            raise errors.ValidationError(
                f"{prefix}{artifact.get('name', '')}.from, artifact location, or key is required"
            )


def _check_holder(
    by_name: dict[str, Json], name: str, checked: set[str], *, args: Json
) -> None:
    template = by_name.get(name)
    if template is None:
        raise errors.ValidationError(f"template name '{name}' undefined")
    _check_inputs_supplied(template, args)
    if name in checked:
        return
    checked.add(name)
    _check_template(by_name, template, checked)


def _check_inputs_supplied(template: Json, args: Json) -> None:
    supplied = {p.get("name") for p in args.get("parameters") or []}
    for param in (template.get("inputs") or {}).get("parameters") or []:
        has_default = param.get("value") is not None or param.get("default") is not None
        if (
            param.get("name") not in supplied
            and not has_default
            and not param.get("valueFrom")
        ):
            raise errors.ValidationError(
                f"templates.{template['name']} inputs.parameters.{param.get('name')} was not supplied"
            )
    artifact_args = {a.get("name") for a in args.get("artifacts") or []}
    for artifact in (template.get("inputs") or {}).get("artifacts") or []:
        if (
            artifact.get("name") not in artifact_args
            and not artifact.get("optional")
            and not volumes.has_location(artifact)
        ):
            raise errors.ValidationError(
                f"templates.{template['name']} inputs.artifacts.{artifact.get('name')} was not supplied"
            )


def _check_template(
    by_name: dict[str, Json], template: Json, checked: set[str]
) -> None:
    name = template["name"]
    kinds = [t for t in TYPES if template.get(t) is not None]
    if not kinds:
        raise errors.ValidationError(
            f"templates.{name} template type unspecified. choose one of: {_TYPE_CHOICES}"
        )
    if len(kinds) > 1:
        raise errors.ValidationError(
            f"templates.{name} multiple template types specified. choose one of: {_TYPE_CHOICES}"
        )
    _reject_unsupported(template, coverage.T, f"templates.{name}")
    kind = kinds[0]
    if kind not in SUPPORTED_TYPES:
        raise errors.ValidationError(
            f"templates.{name}: {kind} templates are not supported by the reference controller"
        )
    policy = (template.get("retryStrategy") or {}).get("retryPolicy", "")
    if policy not in _RETRY_POLICIES:
        raise errors.ValidationError(f"{policy} is not a valid RetryPolicy")
    _check_timeouts(template, kind)
    _check_global_names(template)
    if kind == "suspend":
        _check_suspend(template)
    if kind in ("container", "script", "suspend"):
        if kind != "suspend":
            _check_leaf(template, kind)
        if template.get("parallelism") is not None:
            raise errors.ValidationError(
                f"templates.{name}.parallelism is only valid for steps and dag templates"
            )
    else:
        if template.get("activeDeadlineSeconds") is not None:
            raise errors.ValidationError(
                f"templates.{name}.activeDeadlineSeconds is only valid for leaf templates"
            )
        if kind == "steps":
            _check_steps(by_name, template, checked)
        else:
            _check_dag(by_name, template, checked)


def _reject_unsupported(value: Json, path: str, location: str) -> None:
    """Reject the first field `coverage` classifies as rejected, naming its path (#16)."""
    for found in coverage.rejected_fields(value, path=path, location=location):
        raise errors.ValidationError(found.message)


def _check_global_names(template: Json) -> None:
    """Reject an output's `globalName` that is no valid name (`validateOutputs`).

    A `globalName` that is itself a parameter (`{{inputs.parameters.x}}`) is only known
    at run time, as upstream leaves it.
    """
    outputs = template.get("outputs") or {}
    for kind in ("parameters", "artifacts"):
        for item in outputs.get(kind) or []:
            name = str(item.get("globalName") or "")
            if name and not _PARAMETER.search(name) and not _GLOBAL_NAME.match(name):
                raise errors.ValidationError(
                    f"templates.{template['name']}.outputs.{kind}.{item.get('name')}"
                    ".globalName: Parameter/Artifact name must consist of alpha-numeric "
                    "characters, '_' or '-' e.g. my_param_1, MY-PARAM-1"
                )


def _check_hooks(lifecycle_hooks: Json | None, base: str) -> None:
    """Reject a hook other than `exit` without an expression (`validateHooks`).

    One with an expression has already been rejected by the field audit: expression hooks
    are not implemented.
    """
    for key, hook in (lifecycle_hooks or {}).items():
        if key != hooks.EXIT and not (hook or {}).get("expression"):
            raise errors.ValidationError(f"{base}.{key} Expression required")


def _check_exit_hook(by_name: dict[str, Json], holder: Json, checked: set[str]) -> None:
    """Check the template a step's or task's exit hook runs, like any reachable template."""
    hook = hooks.exit_hook(holder, {})
    if hook is None:
        return
    name = str(hook.get("template", ""))
    if hook.get("arguments"):
        _check_holder(by_name, name, checked, args=hook["arguments"])
        return
    # Without arguments of its own the hook gets the workflow's at run time.
    template = by_name.get(name)
    if template is None:
        raise errors.ValidationError(f"template name '{name}' undefined")
    if name not in checked:
        checked.add(name)
        _check_template(by_name, template, checked)


def _check_suspend(template: Json) -> None:
    """Reject outputs of a suspend template: they are supplied on resume (`valueFrom.supplied`).

    Upstream fills them from `argo resume --output-parameter` or their defaults, which the
    reference controller does not implement; it says so rather than ignore them.
    """
    outputs = template.get("outputs") or {}
    if outputs.get("parameters") or outputs.get("artifacts"):
        raise errors.ValidationError(
            f"templates.{template['name']}.outputs of a suspend template "
            f"{coverage.UNSUPPORTED}"
        )


def _check_timeouts(template: Json, kind: str) -> None:
    """Reject `timeout`/`pendingTimeout` where upstream's `validateTemplate` does (#16)."""
    type_name = {"steps": "Steps", "dag": "DAG", "suspend": "Suspend"}.get(kind)
    timeout = template.get("timeout")
    if timeout:
        if type_name:
            raise errors.ValidationError(
                f"{type_name} template doesn't support timeout field"
            )
        if re.fullmatch(r"[+-]?\d+", str(timeout)):
            raise errors.ValidationError(
                f"{template['name']} has invalid duration format in timeout"
            )
    if template.get("pendingTimeout") and type_name:
        raise errors.ValidationError(
            f"{type_name} template doesn't support pendingTimeout field"
        )


def _check_leaf(template: Json, kind: str) -> None:
    name, body = template["name"], template[kind]
    if not isinstance(body, dict) or not body.get("image"):
        raise errors.ValidationError(f"templates.{name}.{kind}.image may not be empty")
    for sidecar in template.get("sidecars") or []:
        sidecar_name = str(sidecar.get("name", ""))
        if sidecar_name in _RESERVED or sidecar_name.startswith(
            common.ARTIFACT_PLUGIN_PREFIX
        ):
            raise errors.ValidationError(
                f'templates.{name}.sidecars: "{sidecar_name}" is a reserved Argo container name'
            )
    for init in template.get("initContainers") or []:
        # The legacy layout's own init container is called `init`: a user one
        # of that name makes a pod the API server rejects (duplicate name).
        if str(init.get("name", "")) == common.INIT:
            raise errors.ValidationError(
                f'templates.{name}.initContainers: "{common.INIT}" is a reserved Argo container name'
            )
    deadline = template.get("activeDeadlineSeconds")
    if (
        deadline is not None
        and not (str(deadline).isdigit() and int(str(deadline)) > 0)
        and "{{" not in str(deadline)
    ):
        raise errors.ValidationError(
            f"templates.{name}.activeDeadlineSeconds must be a positive integer > 0 or an argo variable"
        )
    declared = {
        f"inputs.parameters.{p.get('name')}"
        for p in (template.get("inputs") or {}).get("parameters") or []
    }
    for tag in substitution.unresolved(template):
        key = tag.strip("{} ")
        if key.startswith("inputs.parameters.") and key not in declared:
            raise errors.ValidationError(f"templates.{name}: failed to resolve {tag}")


def _check_steps(by_name: dict[str, Json], template: Json, checked: set[str]) -> None:
    name = template["name"]
    for index, group in enumerate(template["steps"]):
        steps = group if isinstance(group, list) else (group or {}).get("steps") or []
        seen: set[str] = set()
        for step in steps:
            step_name = step.get("name")
            if not step_name:
                raise errors.ValidationError(
                    f"templates.{name}.steps[{index}].name is required"
                )
            if step_name in seen:
                raise errors.ValidationError(
                    f"templates.{name}.steps[{index}].name '{step_name}' is not unique"
                )
            seen.add(step_name)
            _check_call(
                by_name,
                f"templates.{name}.steps[{index}].{step_name}",
                step,
                checked,
                looping_exit_hook=True,
            )


def _check_dag(by_name: dict[str, Json], template: Json, checked: set[str]) -> None:
    name = template["name"]
    tasks = (template.get("dag") or {}).get("tasks") or []
    if not tasks:
        raise errors.ValidationError(f"templates.{name} must have at least one task")
    problem = _sorting_problem(tasks)
    if problem:
        raise errors.ValidationError(f"templates.{name} sorting failed: {problem}")
    _check_names(f"templates.{name}.tasks", tasks)
    for task in tasks:
        _check_call(
            by_name,
            f"templates.{name}.tasks.{task['name']}",
            task,
            checked,
            looping_exit_hook=False,
        )


def _check_call(
    by_name: dict[str, Json],
    prefix: str,
    call: Json,
    checked: set[str],
    *,
    looping_exit_hook: bool,
) -> None:
    """A step or task at `prefix`: its loop, hooks, arguments and the template it calls.

    `looping_exit_hook`: whether an exit hook may sit on a looping call (the reference
    supports it on a step, not on a DAG task).
    """
    _check_loop(prefix, call)
    _check_hooks(call.get("hooks"), prefix)
    if (
        not looping_exit_hook
        and hooks.exit_hook(call, {}) is not None
        and loops.has_loop(call)
    ):
        raise errors.ValidationError(
            f"{prefix}: an exit hook on a looping task {coverage.UNSUPPORTED}"
        )
    _check_exit_hook(by_name, call, checked)
    _check_arguments(f"{prefix}.arguments.", call.get("arguments") or {})
    try:
        _check_holder(
            by_name, call.get("template", ""), checked, args=call.get("arguments") or {}
        )
    except errors.ValidationError as err:
        raise _called_from(prefix, err) from None


def _called_from(path: str, err: errors.ValidationError) -> errors.ValidationError:
    """The error of a template a step or task calls, as seen from that step or task.

    Upstream's validateSteps and validateDAG prefix every such error with the step's or
    task's path, a nested `templates.<t> ...` one included (`templates.%s.steps[%d].%s
    %s`, `templates.%s.tasks.%s %s` in workflow/validate/validate.go). A field the
    reference rejects as unsupported has no upstream wording; it keeps the field's own
    path alone, the one place that names it.
    """
    if coverage.UNSUPPORTED in str(err):
        return err
    return errors.ValidationError(f"{path} {err}")


def dependencies_of(task: Json) -> list[str]:
    """Return the task names a DAG task depends on (`dependencies` or a simple `depends`)."""
    if task.get("dependencies"):
        return list(task["dependencies"])
    depends = str(task.get("depends") or "")
    names = re.findall(r"[A-Za-z0-9_][-A-Za-z0-9_]*(?:\.[A-Za-z]+)?", depends)
    return sorted({n.split(".")[0] for n in names})


def _sorting_problem(tasks: list[Json]) -> str | None:
    """Return why the tasks cannot be sorted topologically, as upstream words it, or None.

    Upstream's `validateDAG` sorts the tasks (`sortDAGTasks`, util/sorting/
    topological_sorting.go) before any other check of the DAG, so a duplicated task
    name, a dependency on no task and a cycle are all reported by the sort, as
    `sorting failed: duplicated nodeName <n>`, `... invalid dependency <n>` and
    `... graph with cycle` (the sort does not say where the cycle is).
    """
    seen: set[str] = set()
    for task in tasks:
        task_name = str(task.get("name", ""))
        if task_name in seen:
            return f"duplicated nodeName {task_name}"
        seen.add(task_name)
    # Upstream collects each task's dependencies in a map, so a repeated one counts once
    # (and which of several unknown ones it names first is a map's order: any).
    graph = {str(t.get("name", "")): dict.fromkeys(dependencies_of(t)) for t in tasks}
    for dependencies in graph.values():
        for dependency in dependencies:
            if dependency not in graph:
                return f"invalid dependency {dependency}"
    waiting = {node: len(dependencies) for node, dependencies in graph.items()}
    ready = [node for node, count in waiting.items() if count == 0]
    done = 0
    while ready:
        current = ready.pop()
        done += 1
        for node, dependencies in graph.items():
            if current in dependencies:
                waiting[node] -= 1
                if waiting[node] == 0:
                    ready.append(node)
    return None if done == len(graph) else "graph with cycle"


def _check_loop(prefix: str, item: Json) -> None:
    """Reject what upstream's `addItemsToScope` rejects (validate.go)."""
    defined = [
        f
        for f in ("withItems", "withParam", "withSequence")
        if (item.get(f) if f != "withSequence" else item.get(f) is not None)
    ]
    if len(defined) > 1:
        raise errors.ValidationError(
            f"{prefix} only one of withItems, withParam, withSequence can be specified"
        )
    sequence = item.get("withSequence")
    if sequence is not None and (
        sequence.get("count") is not None and sequence.get("end") is not None
    ):
        raise errors.ValidationError(
            f"{prefix} only one of count or end can be defined in withSequence"
        )
