"""We test these aspects of loop items (upstream `processItem`, `generateNodeName`,
`expandSequence`, `wfv1.Item`): node names and `{{item}}` values for strings, numbers,
booleans, maps and lists; `withSequence` with count, end, start, reversal and format; and
`withParam` parsing with upstream's messages, including the plainly-false `when` exemption;
and the loop and `parallelism` fields validation rejects.
"""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.formats import gojson
from reference_impl.controller.templates.checks import validation
from reference_impl.controller.templates.inputs import loops
from tests.reference_impl.controller.conftest import workflow


@pytest.mark.parametrize(
    ("item", "name", "value"),
    [
        ("hello world", "s(0:hello world)", "hello world"),
        ("a(b)", "s(0:ab)", "a(b)"),
        ('say "hi"', 's(0:say \\"hi\\")', 'say "hi"'),
        ("<b>&", "s(0:<b>&)", "<b>&"),
        (3, "s(0:3)", "3"),
        (1.5, "s(0:1.5)", "1.5"),
        (gojson.RawNumber("1.50"), "s(0:1.50)", "1.50"),
        (True, "s(0:true)", "true"),
        ({"b": "x", "a": 1}, "s(0:a:1,b:x)", '{"a":1,"b":"x"}'),
        ({"k": {"z": 1, "y": [2]}}, 's(0:k:{"z":1,"y":[2]})', '{"k":{"z":1,"y":[2]}}'),
        ([1, "two", {"x": "y"}], 's(0:[1 two {"x":"y"}])', '[1,"two",{"x":"y"}]'),
        (None, "s(0:[])", "[]"),
    ],
)
def test_items_name_nodes_and_fill_item_like_argo(item, name, value):
    assert loops.item_name("s", 0, item) == name
    assert loops.item_params(item)["item"] == value


def test_map_items_define_item_keys():
    params = loops.item_params({"os": "linux", "n": 2, "tags": ["a"]})
    assert params["item.os"] == "linux"
    assert params["item.n"] == "2"
    assert params["item.tags"] == '["a"]'


@pytest.mark.parametrize(
    ("spec", "items"),
    [
        ({"count": "3"}, ["0", "1", "2"]),
        ({"count": 2, "start": "5"}, ["5", "6"]),
        ({"start": "3", "end": "1"}, ["3", "2", "1"]),
        ({"end": "2", "format": "host-%02d"}, ["host-00", "host-01", "host-02"]),
        ({"count": "0"}, []),
    ],
)
def test_sequences_expand_like_argo(spec, items):
    assert loops.sequence(spec) == items


def test_a_sequence_without_end_or_count_and_a_bad_number_fail():
    with pytest.raises(errors.WorkflowError, match="neither end nor count"):
        loops.sequence({"start": "1"})
    with pytest.raises(errors.WorkflowError) as caught:
        loops.sequence({"count": "three"})
    assert str(caught.value) == 'strconv.Atoi: parsing "three": invalid syntax'


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("hello", "invalid character 'h' looking for beginning of value"),
        (
            '{"a": 1}',
            "json: cannot unmarshal object into Go value of type []v1alpha1.Item",
        ),
        (
            '"abc"',
            "json: cannot unmarshal string into Go value of type []v1alpha1.Item",
        ),
    ],
)
def test_a_bad_with_param_fails_with_argos_message(param, message):
    with pytest.raises(errors.WorkflowError) as caught:
        loops.items({"name": "s", "withParam": param})
    assert str(caught.value).startswith(
        f"withParam value could not be parsed as a JSON list: {param}: "
    )
    assert str(caught.value).endswith(message)


def test_a_bad_with_param_is_no_items_when_the_step_is_plainly_skipped():
    assert loops.items({"name": "s", "withParam": "oops", "when": "a == b"}) == []


def test_a_null_with_param_has_no_items():
    assert loops.items({"name": "s", "withParam": "null"}) == []


def test_expand_names_substitutes_and_keeps_the_template():
    step = {
        "name": "s",
        "template": "t",
        "withItems": ["a", "b"],
        "arguments": {"parameters": [{"name": "p", "value": "{{item}}-{{x}}"}]},
    }
    expanded = loops.expand(step, {"x": "1"})
    assert [e["name"] for e in expanded] == ["s(0:a)", "s(1:b)"]
    assert expanded[1]["arguments"]["parameters"][0]["value"] == "b-1"
    assert all("withItems" not in e and e["template"] == "t" for e in expanded)


def test_expand_fails_on_an_unresolved_variable_unless_skipped():
    step = {
        "name": "s",
        "template": "t",
        "withItems": [1],
        "when": "{{item}} == 1",
        "arguments": {"parameters": [{"name": "p", "value": "{{nope}}"}]},
    }
    with pytest.raises(errors.WorkflowError, match=r"failed to resolve \{\{nope\}\}"):
        loops.expand(step, {})
    step["when"] = "a == b"
    assert (
        loops.expand(step, {})[0]["arguments"]["parameters"][0]["value"] == "{{nope}}"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{name: main, steps: [[{name: a, template: c, withItems: [1], withParam: '[]'}]]}",
            "templates.main.steps[0].a only one of withItems, withParam, withSequence "
            "can be specified",
        ),
        (
            "{name: main, dag: {tasks: [{name: a, template: c, "
            "withSequence: {count: '1', end: '2'}}]}}",
            "templates.main.tasks.a only one of count or end can be defined in withSequence",
        ),
        (
            "{name: main, parallelism: 2, container: {image: busybox}}",
            "templates.main.parallelism is only valid for steps and dag templates",
        ),
    ],
)
def test_validation_rejects_loops_and_parallelism_where_argo_does(text, message):
    wf = workflow(
        f"""
spec:
  entrypoint: main
  templates:
  - {text}
  - {{name: c, container: {{image: busybox}}}}
"""
    )
    with pytest.raises(errors.ValidationError) as caught:
        validation.validate(wf)
    assert str(caught.value) == message
