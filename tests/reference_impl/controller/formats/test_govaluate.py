"""We test these aspects of the govaluate port used for `when`: tokens (bare words, numbers,
hex, quoted strings, times, accessors, prefix versus minus), syntax checks and their
messages, precedence and left-to-right order, short-circuits, type checks and their
messages, `in`, regular expressions and the ternary operators.
"""

from __future__ import annotations

import pytest

from reference_impl.controller.formats import govaluate_stages as stages
from reference_impl.controller.formats import govaluate_times
from reference_impl.controller.formats import govaluate_tokens as tokens


def run(text: str):
    found = tokens.tokenize(text)
    tokens.check_syntax(found)
    return stages.evaluate(stages.plan(tokens.optimize(found)))


def kinds(text: str) -> list[str]:
    return [t.kind for t in tokens.tokenize(text)]


def test_words_numbers_strings_and_symbols_become_govaluates_tokens():
    assert kinds("a == 'b c' && 1.5 >= -2") == [
        "VARIABLE",
        "COMPARATOR",
        "STRING",
        "LOGICALOP",
        "NUMERIC",
        "COMPARATOR",
        "PREFIX",
        "NUMERIC",
    ]
    assert kinds("a - 1") == ["VARIABLE", "MODIFIER", "NUMERIC"]
    assert kinds("x in (a, b)") == [
        "VARIABLE",
        "COMPARATOR",
        "CLAUSE",
        "VARIABLE",
        "SEPARATOR",
        "VARIABLE",
        "CLAUSE_CLOSE",
    ]
    assert tokens.tokenize("v1.Ok")[0].value == ["v1", "Ok"]
    assert tokens.tokenize("[a b]")[0].value == "a b"
    assert tokens.tokenize("'it\\'s'")[0].value == "it's"
    assert tokens.tokenize("0x1F")[0].value == 31.0


@pytest.mark.parametrize(
    ("text", "unix"),
    [
        ("2024-01-02", 1704153600.0),
        ("2024-01-02 03:04", 1704164640.0),
        ("2024-01-02T03:04:05Z", 1704164645.0),
        ("2024-01-02T03:04:05+01:00", 1704161045.0),
        ("2024-02-30", None),
        ("hello", None),
    ],
)
def test_quoted_times_become_unix_seconds(text, unix):
    assert govaluate_times.parse_time(text) == unix


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a ==", "Unexpected end of expression"),
        ("(a", "Unbalanced parenthesis"),
        ("'a", "Unclosed string literal"),
        ("[a", "Unclosed parameter bracket"),
        ("a b", "Cannot transition token types from VARIABLE [a] to VARIABLE [b]"),
        (
            "== a",
            "Cannot transition token types from UNKNOWN [<nil>] to COMPARATOR [==]",
        ),
        ("f(1)", "Undefined function f"),
        ("a === b", "Invalid token: '==='"),
        ("a.b", "Unable to access unexported field 'b' in token 'a.b'"),
        ("a.", "Hanging accessor on token 'a.'"),
        ("1.2.3", "Unable to parse numeric value '1.2.3' to float64\n"),
    ],
)
def test_malformed_expressions_give_govaluates_messages(text, message):
    def parse() -> None:
        tokens.check_syntax(tokens.tokenize(text))

    with pytest.raises(tokens.ExpressionError) as caught:
        parse()
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1 + 2 * 3", 7.0),
        ("2 * 3 + 1", 7.0),
        ("10 - 4 - 3", 3.0),
        ("100 / 10 / 5", 2.0),
        ("2 ** 3", 8.0),
        ("7 % 4", 3.0),
        ("(1 + 2) * 3", 9.0),
        ("-(1 + 2)", -3.0),
        ("6 & 3 | 8", 10.0),
        ("1 << 4 >> 2", 4.0),
        ("1 / 0", float("inf")),
        ("'a' + 1", "a1"),
        ("true && false || true", True),
        ("!true || true", True),
        ("1 < 2 == true", True),
        ("'b' > 'a'", True),
        ("'2024-01-02' > '2023-12-31'", True),
        ("1 == '1'", False),
        ("true ? 'x' : 'y'", "x"),
        ("false ? 'x' : 'y'", "y"),
        ("'a' ?? 'b'", "a"),
        ("'a' in ('a', 'b')", True),
        ("1 in ('1', 2)", False),
        ("'abc' =~ '^a.c$'", True),
        ("'abc' !~ 'z'", True),
        ("false && 1", False),
        ("true || 1", True),
    ],
)
def test_expressions_evaluate_like_govaluate(text, value):
    assert run(text) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "'a' > 1",
            "Value 'a' cannot be used with the comparator '>', it is not a number",
        ),
        (
            "1 && true",
            "Value '1' cannot be used with the logical operator '&&', it is not a bool",
        ),
        (
            "true && 1",
            "Value '1' cannot be used with the logical operator '&&', it is not a bool",
        ),
        (
            "'a' - 1",
            "Value 'a' cannot be used with the modifier '-', it is not a number",
        ),
        (
            "1 ? 2 : 3",
            "Value '1' cannot be used with the ternary operator '?', it is not a bool",
        ),
        (
            "'a' in ('a')",
            "Value 'a' cannot be used with the comparator 'in', it is not a number",
        ),
        (
            "1 =~ 'a'",
            "Value '1' cannot be used with the comparator '=~', it is not a number",
        ),
        ("a", "No parameter 'a' found."),
        ("v1.Ok == 1", "No parameter 'v1' found."),
    ],
)
def test_type_errors_give_govaluates_messages(text, message):
    with pytest.raises(tokens.ExpressionError) as caught:
        run(text)
    assert str(caught.value) == message
