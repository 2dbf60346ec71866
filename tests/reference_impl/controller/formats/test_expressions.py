"""We test these aspects of the expression-tag evaluator (`{{=...}}`, #16): literals and
tokens, expr-lang's operator precedences and associativity, its runtime type rules (int
versus float, Go's `%`, always-float `/`, string `+`, `==` across types, short-circuits),
member access into nested variables, the functions (expr-lang built-ins, Argo's `asInt`,
`asFloat`, `toJson`, `jsonpath`, the sprig subset), how a value is written back, which
variables count as read (and so leave a tag for later), and that anything outside the
subset fails with a message naming it rather than giving a value.
"""

from __future__ import annotations

import pytest

from reference_impl.controller.formats import expr_functions
from reference_impl.controller.formats import expr_syntax
from reference_impl.controller.formats import expressions
from reference_impl.controller.formats.expr_syntax import ExpressionError

PARAMS = {
    "inputs.parameters.n": "3",
    "inputs.parameters.name": "bob",
    "inputs.parameters.my-p": "dash",
    "inputs.parameters.f": "2.5",
    "steps.gen.outputs.result": '{"a": {"b": [10, 20]}, "s": "x"}',
    "workflow.name": "wf-1",
    "item": "7",
}


def ev(text: str, params: dict[str, str] | None = None):
    return expressions.evaluate_text(text, PARAMS if params is None else params)


def tag(text: str, params: dict[str, str] | None = None, strict=()):
    return expressions.evaluate_tag(text, PARAMS if params is None else params, strict)


# ------------------------------------------------------------------ literals and tokens


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        ("1_000", 1000),
        ("0x1F", 31),
        ("0o17", 15),
        ("0b101", 5),
        ("2.5", 2.5),
        (".5", 0.5),
        ("1e3", 1000.0),
        ('"a\\tb"', "a\tb"),
        ("'it\\'s'", "it's"),
        ('"\\u00e9"', "é"),
        ("`raw\\n`", "raw\\n"),
        ("true", True),
        ("false", False),
        ("[1, 'a', [true]]", [1, "a", [True]]),
        ('{a: 1, \'b c\': 2, ("d" + "e"): 3}', {"a": 1, "b c": 2, "de": 3}),
    ],
)
def test_literals_have_expr_langs_values(text, value):
    result = ev(text)
    assert result == value
    assert type(result) is type(value)


def test_nil_alone_is_a_nil_result_which_fails():
    with pytest.raises(ExpressionError, match="nil result"):
        ev("nil")


@pytest.mark.parametrize("text", ['"open', "1 @ 2", '"bad \\q"', "(1 + 2", "1 +"])
def test_malformed_text_fails_naming_the_expression(text):
    with pytest.raises(ExpressionError, match="failed to evaluate expression"):
        ev(text)


# ------------------------------------------------------------------ precedence


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("2 ** 3 ** 2", 512.0),
        ("-2 ** 2", -4.0),
        ("!true == false", True),  # `!` binds tighter than `==`
        ("true || false && false", True),
        ("false && true || true", True),
        ("1 < 2 == true", True),  # one level, left to right: (1 < 2) == true
        ("2 == 2 == true", True),
        ("not false and true", True),
        ("1 + 1 == 2 ? 'y' : 'n'", "y"),
        ("false ? 1 : true ? 2 : 3", 2),
        ("nil ?? 1 + 1", 2),
        ("7 % 3 * 2", 2),
    ],
)
def test_operators_bind_with_expr_langs_precedences(text, value):
    result = ev(text)
    assert result == value
    assert type(result) is type(value)


def test_operators_of_one_level_group_to_the_left_and_power_to_the_right():
    tree = expr_syntax.parse("1 < 2 == true")
    assert isinstance(tree, expr_syntax.Binary)
    assert tree.op == "=="
    assert isinstance(tree.left, expr_syntax.Binary)
    assert tree.left.op == "<"
    power = expr_syntax.parse("2 ** 3 ** 2")
    assert isinstance(power, expr_syntax.Binary)
    assert isinstance(power.right, expr_syntax.Binary)


# ------------------------------------------------------------------ runtime rules


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("7 / 2", 3.5),
        ("6 / 3", 2.0),
        ("7 % 3", 1),
        ("-7 % 3", -1),
        ("7 % -3", 1),
        ("1 + 2.5", 3.5),
        ("2 * 3", 6),
        ("2 ^ 2", 4.0),
        ('"a" + "b"', "ab"),
        ("1 == 1.0", True),
        ('1 == "1"', False),
        ('"1" != 1', True),
        ("[1, 2] == [1, 2]", True),
        ("nil == nil", True),
        ('"abc" < "abd"', True),
        ("2 >= 2.0", True),
        ("2 in [1, 2]", True),
        ('"a" in {a: 1}', True),
        ("3 not in [1, 2]", True),
        ('"hello" contains "ell"', True),
        ('"hello" startsWith "he"', True),
        ('"hello" endsWith "lo"', True),
        ("false && (1 / 0 > 1)", False),  # short-circuit: the division never runs
        ("true || (1 / 0 > 1)", True),
    ],
)
def test_runtime_rules_follow_expr_lang(text, value):
    result = ev(text)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"a" + 1', r"invalid operation: \+ \(mismatched types string and int\)"),
        ("inputs.parameters.n * 2", "mismatched types string and int"),
        ("2.5 % 2", r"invalid operation: % \(mismatched types float64 and int\)"),
        ("1 % 0", "integer divide by zero"),
        ("1 / 0", "division by zero"),
        ('1 < "2"', "mismatched types int and string"),
        ("1 && true", "mismatched types int"),
        ("!1", r"invalid operation: ! \(int\)"),
        ("-'a'", r"invalid operation: - \(string\)"),
        ("1 ? 2 : 3", "used as condition"),
        ("9223372036854775807 + 1", "integer overflow"),
        ("[1][5]", "index out of range"),
        ("nil.x", "cannot fetch"),
        ("'s'.x", "has no field"),
    ],
)
def test_type_errors_fail_with_expr_langs_wording(text, message):
    with pytest.raises(ExpressionError, match=message):
        ev(text)


# ------------------------------------------------------------------ variables


def test_variables_are_nested_maps_reached_by_dots_or_brackets():
    assert ev("inputs.parameters.name") == "bob"
    assert ev("inputs.parameters['my-p']") == "dash"
    assert ev('inputs["parameters"].n') == "3"
    assert ev("item") == "7"
    assert ev("workflow.name") == "wf-1"


def test_a_missing_key_of_a_map_is_nil_and_optional_chaining_stops_at_nil():
    assert ev("inputs.parameters.nope ?? 'dflt'") == "dflt"
    assert ev("inputs.nope?.deeper ?? 'd'") == "d"


def test_the_environment_drops_the_less_specific_key_of_a_conflict():
    env = expressions.environment({"a": "1", "a.b": "2", "c.d.e": "3"})
    assert env == {"a": {"b": "2"}, "c": {"d": {"e": "3"}}}


def test_read_variables_are_names_and_constant_member_chains_not_functions():
    tree = expr_syntax.parse(
        "asInt(inputs.parameters.n) + sprig.add(item, 1) + len(x[y])"
    )
    assert expressions.identifiers(tree) == [
        "inputs",
        "inputs.parameters",
        "inputs.parameters.n",
        "item",
        "x",
        "y",
    ]


def test_members_guarded_by_nil_coalescing_or_optional_chaining_are_not_required():
    tree = expr_syntax.parse("steps.a.outputs.result ?? b?.c.d")
    assert expressions.identifiers(tree) == ["steps", "b"]


# ------------------------------------------------------------------ tags


def test_a_tag_is_replaced_by_a_string_as_is_and_other_values_as_go_json():
    assert tag("inputs.parameters.name + '!'") == "bob!"
    assert tag("asInt(inputs.parameters.n) * 2") == "6"
    assert tag("asFloat(inputs.parameters.f) * 2") == "5"
    assert tag("asFloat(inputs.parameters.f) / 2") == "1.25"
    assert tag("1e21 + 0.0") == "1e+21"
    assert tag("asInt(item) > 5") == "true"
    assert tag("{z: 1, a: 'x<y'}") == '{"a":"x\\u003cy","z":1}'
    assert tag("[1, 2.5]") == "[1,2.5]"


def test_a_tag_reading_a_variable_not_in_scope_is_left_for_a_later_pass():
    assert tag("asInt(inputs.parameters.later) + 1") is None
    assert tag("retries + 1", {"inputs.parameters.n": "1"}) is None


def test_a_strict_pass_fails_on_a_missing_steps_or_tasks_variable():
    with pytest.raises(ExpressionError, match=r"steps\.other is missing"):
        tag("steps.other.outputs.result", strict=("steps", "tasks"))
    assert tag("inputs.parameters.later", strict=("steps", "tasks")) is None


def test_a_tag_that_fails_to_evaluate_raises_even_when_all_variables_are_there():
    with pytest.raises(ExpressionError, match=r"'asInt\(inputs\.parameters\.name\)'"):
        tag("asInt(inputs.parameters.name)")


def test_infinite_results_cannot_be_marshalled():
    with pytest.raises(ExpressionError, match="unsupported value: \\+Inf"):
        tag("asFloat('inf')")


# ------------------------------------------------------------------ functions


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("asInt('42')", 42),
        ("asInt('-3')", -3),
        ("asInt(3.9)", 3),
        ("int(-3.9)", -3),
        ("asFloat('1.5e1')", 15.0),
        ("float(2)", 2.0),
        ("string(1.5)", "1.5"),
        ("string(1e6 + 0.0)", "1e+06"),
        ("string(true)", "true"),
        ("len([1, 2, 3])", 3),
        ("len('abc')", 3),
        ("upper('abc')", "ABC"),
        ("lower('ABC')", "abc"),
        ("trim('  a b \\n')", "a b"),
        ("toJson({b: [1], a: 'x'})", '{"a":"x","b":[1]}'),
        ("fromJSON('{\"a\": 1}').a", 1.0),
        ("jsonpath(steps.gen.outputs.result, '$.a.b[1]')", 20.0),
        ("jsonpath(steps.gen.outputs.result, \"$['s']\")", "x"),
        ("sprig.upper(inputs.parameters.name)", "BOB"),
        ("sprig.lower('ÀB')", "àb"),
        ("sprig.trim('\\t x ')", "x"),
        ("sprig.trimAll('-', '--x--')", "x"),
        ("sprig.trimPrefix('a-', 'a-b')", "b"),
        ("sprig.trimSuffix('-b', 'a-b')", "a"),
        ("sprig.replace('o', '0', 'foo')", "f00"),
        ("sprig.contains('ob', 'bob')", True),
        ("sprig.hasPrefix('bo', 'bob')", True),
        ("sprig.hasSuffix('ob', 'bob')", True),
        ("sprig.repeat(3, 'ab')", "ababab"),
        ("sprig.trunc(2, 'abc')", "ab"),
        ("sprig.trunc(-2, 'abc')", "bc"),
        ("sprig.substr(1, 3, 'abcd')", "bc"),
        ("sprig.substr(1, 9, 'abcd')", "bcd"),
        ("sprig.quote('a\"b')", '"a\\"b"'),
        ("sprig.squote('a')", "'a'"),
        ("sprig.toString(12)", "12"),
        ("sprig.default('d', '')", "d"),
        ("sprig.default('d', 'x')", "x"),
        ("sprig.empty(0)", True),
        ("sprig.join('-', ['a', 1])", "a-1"),
        ("sprig.splitList(',', 'a,b')", ["a", "b"]),
        ("sprig.atoi('12')", 12),
        ("sprig.int('12')", 12),
        ("sprig.int64(2.9)", 2),
        ("sprig.float64('1.5')", 1.5),
        ("sprig.add(1, '2', 3)", 6),
        ("sprig.add1(inputs.parameters.n)", 4),
        ("sprig.sub(1, 3)", -2),
        ("sprig.mul(2, 3, 4)", 24),
        ("sprig.div(-7, 2)", -3),
        ("sprig.mod(-7, 2)", -1),
        ("sprig.max(1, 5, 3)", 5),
        ("sprig.min(4, 2)", 2),
    ],
)
def test_functions_give_go_results(text, value):
    result = ev(text)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("asInt('1.5')", 'parsing "1.5": invalid syntax'),
        ("asInt(' 1')", "invalid syntax"),
        ("asFloat('x')", "invalid syntax"),
        ("asInt(true)", r"invalid operation: int\(bool\)"),
        ("sprig.add('x', 1)", "sprig would silently use 0"),
        ("sprig.add('010', 1)", "sprig would silently use 0"),
        ("sprig.upper(1)", "expected a string, got int"),
        ("sprig.repeat('3', 'a')", "expected an int, got string"),
        ("sprig.div(1, 0)", "integer divide by zero"),
        ("sprig.upper('a', 'b')", "wrong number or kind of arguments"),
        ("sprig.upper('ß')", "is not supported by the reference controller"),
        ("sprig.trunc(1, 'é')", "non-ASCII string is not supported"),
        ("jsonpath('{}', '$..a')", "only '\\$', '.key'"),
        ("jsonpath('{}', '$.a')", "key 'a' not found"),
    ],
)
def test_functions_refuse_inputs_where_go_and_python_would_differ(text, message):
    with pytest.raises(ExpressionError, match=message):
        ev(text)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("filter([1], # > 0)", "predicates"),
        ("map([1], {# * 2})", "predicates"),
        ("map([1], 1)", "the function map"),
        ("now()", "the function now"),
        ("sprig.nospace('a b')", "the function sprig.nospace"),
        ("[1, 2] | len()", "the pipe operator"),
        ("1..3", "the range operator"),
        ("'a' matches 'a'", "the `matches` operator"),
        ("let x = 1; x", "`let` bindings"),
        ("[1, 2][0:1]", "slices"),
        ("nil ?: 1", "the `\\?:` operator"),
        ("'a' not contains 'b'", "`not contains`"),
        ("inputs.parameters.n()", "calling this kind of value"),
    ],
)
def test_syntax_and_functions_outside_the_subset_are_refused_by_name(text, what):
    with pytest.raises(
        ExpressionError, match=f"{what}.*not supported by the reference controller"
    ):
        ev(text)
    with pytest.raises(ExpressionError, match="failed to evaluate expression"):
        ev(text)


def test_every_supported_sprig_function_is_listed_in_the_docs_table():
    # The coverage doc lists exactly this set; a new entry must be documented.
    assert sorted(expr_functions.SPRIG) == sorted(
        [
            "add",
            "add1",
            "atoi",
            "contains",
            "default",
            "div",
            "empty",
            "float64",
            "hasPrefix",
            "hasSuffix",
            "int",
            "int64",
            "join",
            "lower",
            "max",
            "min",
            "mod",
            "mul",
            "quote",
            "repeat",
            "replace",
            "splitList",
            "squote",
            "sub",
            "substr",
            "toJson",
            "toString",
            "trim",
            "trimAll",
            "trimPrefix",
            "trimSuffix",
            "trunc",
            "upper",
        ]
    )
