"""We test how an argument artifact's `from` is resolved, for steps/tasks and hooks:

the named artifact is copied under the argument's name; an unknown name is an error with
Argo's text (`Unable to resolve: <from>`, hooks prefixed `unable to resolve references: `);
hooks (and only they) leave an optional argument they cannot resolve as it is.
"""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.inputs import arguments
from reference_impl.controller.templates.inputs import scopes

OUTPUT = {"name": "out", "s3": {"key": "k"}}
KNOWN = {"steps.a.outputs.artifacts.out": OUTPUT}


def test_a_from_is_replaced_by_a_copy_under_the_arguments_name():
    args = {
        "artifacts": [
            {"name": "in", "from": "{{ steps.a.outputs.artifacts.out }}"},
            {"name": "plain", "raw": {"data": "x"}},
        ]
    }
    resolved = arguments.resolve_arguments(args, {}, KNOWN)
    assert resolved["artifacts"] == [
        {"name": "in", "s3": {"key": "k"}},
        {"name": "plain", "raw": {"data": "x"}},
    ]
    assert OUTPUT["name"] == "out"  # a copy: the output itself keeps its name


def test_an_unknown_from_is_an_error_even_when_optional_for_steps():
    args = {"artifacts": [{"name": "in", "from": "{{x}}", "optional": True}]}
    with pytest.raises(errors.WorkflowError, match=r"^Unable to resolve: \{\{x\}\}$"):
        arguments.resolve_arguments(args, {}, KNOWN)


def test_hooks_skip_an_optional_unknown_from_and_prefix_their_error():
    optional = {"artifacts": [{"name": "in", "from": "{{x}}", "optional": True}]}
    scopes.resolve_artifact_froms(
        optional, KNOWN, context="unable to resolve references: ", skip_optional=True
    )
    assert optional == {
        "artifacts": [{"name": "in", "from": "{{x}}", "optional": True}]
    }
    required = {"artifacts": [{"name": "in", "from": "{{x}}"}]}
    with pytest.raises(
        errors.WorkflowError,
        match=r"^unable to resolve references: Unable to resolve: \{\{x\}\}$",
    ):
        scopes.resolve_artifact_froms(
            required,
            KNOWN,
            context="unable to resolve references: ",
            skip_optional=True,
        )
