"""We test these aspects of validation: Argo's message for each kind of bad input
(reserved sidecar names, unknown templates, missing entrypoint, bad parameters,
malformed fields, DAG dependencies), and that unsupported features are named."""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.checks import validation
from tests.reference_impl.controller.conftest import workflow

OK_LEAF = "{name: leaf, container: {image: busybox, command: [true]}}"


def check(text: str) -> str:
    with pytest.raises(errors.ValidationError) as caught:
        validation.validate(workflow(text))
    return str(caught.value)


@pytest.mark.parametrize(
    "name", ["main", "init", "wait", "supervisor", "artifact-plugin-s3"]
)
def test_reserved_sidecar_names_are_rejected(name):
    text = f"""
spec:
  entrypoint: t
  templates:
  - name: t
    container: {{image: busybox, command: [ls]}}
    sidecars: [{{name: {name}, image: busybox}}]
"""
    assert (
        check(text)
        == f'templates.t.sidecars: "{name}" is a reserved Argo container name'
    )


def test_plugin_artifacts_are_named_as_unsupported():
    text = """
spec:
  entrypoint: t
  templates:
  - name: t
    container: {image: busybox, command: [ls]}
    outputs:
      artifacts: [{name: out, path: /tmp/o, plugin: {name: p, key: k}}]
"""
    assert check(text) == (
        "templates.t.outputs.artifacts.out.plugin "
        "is not supported by the reference controller"
    )


def test_a_template_init_container_named_init_is_rejected():
    text = """
spec:
  entrypoint: t
  templates:
  - name: t
    container: {image: busybox, command: [ls]}
    initContainers: [{name: init, image: busybox}]
"""
    assert (
        check(text)
        == 'templates.t.initContainers: "init" is a reserved Argo container name'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("spec: {templates: [" + OK_LEAF + "]}", "spec.entrypoint is required"),
        (
            "spec: {entrypoint: nope, templates: [" + OK_LEAF + "]}",
            "template name 'nope' undefined",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t}]}",
            "templates.t template type unspecified. choose one of: container, containerSet, steps, script, resource, "
            "dag, suspend, template, template ref",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t, container: {image: a}, script: {image: a, source: x}}]}",
            "templates.t multiple template types specified. choose one of: container, containerSet, steps, script, "
            "resource, dag, suspend, template, template ref",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t, container: {command: [ls]}}]}",
            "templates.t.container.image may not be empty",
        ),
        (
            "spec: {entrypoint: leaf, templates: [" + OK_LEAF + ", " + OK_LEAF + "]}",
            "spec.templates[1].name 'leaf' is not unique",
        ),
        (
            "spec: {entrypoint: leaf, templates: [{container: {image: a}}]}",
            "spec.templates[0].name is required",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t, inputs: {parameters: [{name: p}]}, container: {image: a}}]}",
            "templates.t inputs.parameters.p was not supplied",
        ),
        (
            "spec: {entrypoint: leaf, arguments: {parameters: [{name: p}]}, templates: ["
            + OK_LEAF
            + "]}",
            "spec.arguments.p.value or spec.arguments.p.valueFrom is required",
        ),
        (
            "spec: {entrypoint: leaf, podGC: {strategy: Sometimes}, templates: ["
            + OK_LEAF
            + "]}",
            "podGC.strategy unknown strategy 'Sometimes'",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t, container: {image: a, args: ['{{inputs.parameters.x}}']}}]}",
            "templates.t: failed to resolve {{inputs.parameters.x}}",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t, activeDeadlineSeconds: 5, "
            "steps: [[{name: a, template: leaf}]]}, " + OK_LEAF + "]}",
            "templates.t.activeDeadlineSeconds is only valid for leaf templates",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t, retryStrategy: {retryPolicy: Never}, container: {image: a}}]}",
            "Never is not a valid RetryPolicy",
        ),
        (
            "spec: {entrypoint: t, templates: [{name: t, resource: {action: get}}]}",
            "templates.t.resource is not supported by the reference controller",
        ),
    ],
)
def test_invalid_specs_get_argos_messages(text, message):
    assert check(text) == message


def test_steps_name_a_missing_template_with_their_position() -> None:
    text = "spec: {entrypoint: t, templates: [{name: t, steps: [[{name: a, template: nope}]]}]}"
    assert check(text) == "templates.t.steps[0].a template name 'nope' undefined"


def test_steps_need_unique_names() -> None:
    text = (
        "spec: {entrypoint: t, templates: [{name: t, steps: [[{name: a, template: leaf}, {name: a, template: leaf}]]}, "
        + OK_LEAF
        + "]}"
    )
    assert check(text) == "templates.t.steps[0].name 'a' is not unique"


def _dag(tasks: str) -> str:
    return (
        "spec: {entrypoint: d, templates: [{name: d, dag: {tasks: ["
        + tasks
        + "]}}, "
        + OK_LEAF
        + "]}"
    )


@pytest.mark.parametrize(
    ("tasks", "problem"),
    [
        ("{name: A, template: leaf, dependencies: [B]}", "invalid dependency B"),
        ("{name: A, template: leaf, depends: B.Succeeded}", "invalid dependency B"),
        (
            "{name: A, template: leaf, dependencies: [B]}, "
            "{name: B, template: leaf, dependencies: [A]}",
            "graph with cycle",
        ),
        ("{name: A, template: leaf, dependencies: [A]}", "graph with cycle"),
        (
            "{name: A, template: leaf}, {name: A, template: leaf}",
            "duplicated nodeName A",
        ),
    ],
)
def test_dag_tasks_that_cannot_be_sorted_fail_as_upstreams_sort_says(
    tasks: str, problem: str
) -> None:
    """Upstream's validateDAG sorts the tasks first (workflow/validate/validate.go
    sortDAGTasks, util/sorting/topological_sorting.go) and reports its error."""
    assert check(_dag(tasks)) == f"templates.d sorting failed: {problem}"


def test_the_sort_comes_before_the_tasks_templates_are_checked() -> None:
    tasks = (
        "{name: A, template: nope, dependencies: [B]}, "
        "{name: B, template: leaf, dependencies: [A]}"
    )
    assert check(_dag(tasks)) == "templates.d sorting failed: graph with cycle"


def test_a_repeated_dependency_counts_once_in_the_sort() -> None:
    tasks = "{name: A, template: leaf}, {name: B, template: leaf, dependencies: [A, A]}"
    validation.validate(workflow(_dag(tasks)))


def test_a_called_templates_error_gets_the_steps_path() -> None:
    """validateSteps prefixes every error of a step's template, a `templates.<t>` one
    included (upstream validate.go: `templates.%s.steps[%d].%s %s`)."""
    text = (
        "spec: {entrypoint: main, templates: [{name: main, steps: [[{name: call, template: needs}]]}, "
        "{name: needs, inputs: {parameters: [{name: required}]}, container: {image: a}}]}"
    )
    assert check(text) == (
        "templates.main.steps[0].call templates.needs "
        "inputs.parameters.required was not supplied"
    )


def test_a_called_templates_unsupported_field_keeps_its_own_path() -> None:
    """The reference's own rejection has no upstream wording to follow: it names the
    field where it is, without the calling step's path."""
    text = (
        "spec: {entrypoint: main, templates: [{name: main, steps: [[{name: call, template: r}]]}, "
        "{name: r, resource: {action: get}}]}"
    )
    assert check(text) == (
        "templates.r.resource is not supported by the reference controller"
    )


def test_a_called_templates_error_gets_the_tasks_path() -> None:
    text = (
        "spec: {entrypoint: d, templates: [{name: d, dag: {tasks: [{name: A, template: t}]}}, "
        "{name: t, container: {command: [ls]}}]}"
    )
    assert (
        check(text)
        == "templates.d.tasks.A templates.t.container.image may not be empty"
    )


def test_unsupported_step_fields_are_named() -> None:
    text = (
        "spec: {entrypoint: t, templates: [{name: t, steps: [[{name: a, template: leaf, "
        "templateRef: {name: x, template: y}}]]}, " + OK_LEAF + "]}"
    )
    assert (
        check(text)
        == "templates.t.steps[0].a.templateRef is not supported by the reference controller"
    )


def test_a_valid_workflow_passes() -> None:
    validation.validate(
        workflow(
            """
spec:
  entrypoint: t
  arguments: {parameters: [{name: msg, value: hi}]}
  onExit: leaf
  templates:
  - name: t
    inputs: {parameters: [{name: msg}]}
    steps: [[{name: a, template: echo, arguments: {parameters: [{name: m, value: "{{inputs.parameters.msg}}"}]}}]]
  - name: echo
    inputs: {parameters: [{name: m}]}
    container: {image: busybox, command: [echo, "{{inputs.parameters.m}}"]}
  - {name: leaf, container: {image: busybox, command: ["true"]}}
"""
        )
    )


@pytest.mark.parametrize(
    "location", ["s3: {key: k}", "http: {url: u}", "raw: {data: d}"]
)
def test_a_workflow_artifact_argument_with_a_location_is_accepted(location):
    validation.validate(
        workflow(f"""
spec:
  entrypoint: leaf
  arguments: {{artifacts: [{{name: a, {location}}}]}}
  templates: [{OK_LEAF}]
""")
    )


def test_a_workflow_artifact_argument_without_from_or_location_is_rejected():
    text = f"""
spec:
  entrypoint: leaf
  arguments: {{artifacts: [{{name: a}}]}}
  templates: [{OK_LEAF}]
"""
    assert check(text) == (
        "spec.arguments.a.from, artifact location, or key is required"
    )


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ("steps: [[{name: s, template: leaf, arguments: ARGS}]]", "steps[0].s"),
        ("dag: {tasks: [{name: A, template: leaf, arguments: ARGS}]}", "tasks.A"),
    ],
)
def test_a_steps_or_tasks_argument_without_a_value_names_its_path(body, path):
    args = "{parameters: [{name: p}]}"
    text = f"""
spec:
  entrypoint: t
  templates:
  - {{name: t, {body.replace("ARGS", args)}}}
  - {OK_LEAF}
"""
    prefix = f"templates.t.{path}.arguments.p"
    assert check(text) == f"{prefix}.value or {prefix}.valueFrom is required"
