"""We test these aspects of Go-compatible JSON and `%v` text: float spellings (JSON and `%v`),
HTML escaping and its undoing, top-level versus full key sorting, raw numbers kept as
written, and Go's `json.Unmarshal` syntax messages.
"""

from __future__ import annotations

import pytest

from reference_impl.controller.formats import gojson


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (1.5, "1.5"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (-0.0, "-0"),
    ],
)
def test_floats_are_spelled_like_gos_json_encoder(value, text):
    assert gojson.format_float_json(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (5.0, "5"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (float("inf"), "+Inf"),
        (float("nan"), "NaN"),
    ],
)
def test_floats_are_spelled_like_gos_percent_v(value, text):
    assert gojson.format_float_v(value) == text


def test_values_are_spelled_like_gos_percent_v():
    assert gojson.format_v(None) == "<nil>"
    assert gojson.format_v(True) == "true"
    assert gojson.format_v(["a", 1.0]) == "[a 1]"


def test_dumps_escapes_html_and_sorts_as_asked():
    value = {"b": {"z": 1, "a": "<&>"}, "a": [True, None]}
    assert (
        gojson.dumps(value)
        == '{"b":{"z":1,"a":"\\u003c\\u0026\\u003e"},"a":[true,null]}'
    )
    assert gojson.dumps(value, sort_keys=True).startswith('{"a":[true,null],"b":{"z"')
    assert gojson.dumps(value, sort_all=True) == (
        '{"a":[true,null],"b":{"a":"\\u003c\\u0026\\u003e","z":1}}'
    )
    assert gojson.fix(gojson.dumps("<a&b>")) == '"<a&b>"'


def test_loads_keeps_numbers_as_written():
    value = gojson.loads('[1.50, {"n": 2e3}]')
    assert gojson.dumps(value) == '[1.50,{"n":2e3}]'
    assert isinstance(value[0], gojson.RawNumber)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello", "invalid character 'h' looking for beginning of value"),
        ("[1] x", "invalid character 'x' after top-level value"),
        ("[1, 2", "unexpected end of JSON input"),
        ("", "unexpected end of JSON input"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ("[1 2]", "invalid character '2' after array element"),
        ('{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"),
    ],
)
def test_loads_raises_gos_syntax_messages(text, message):
    with pytest.raises(ValueError, match="^" + message.replace("[", r"\[") + "$"):
        gojson.loads(text)
