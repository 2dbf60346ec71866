"""We test these aspects of `when` (upstream `shouldExecute`): bare words compared as strings,
numbers, booleans and regular expressions, and each of upstream's messages: invalid
expression (with the quoting hint for an invalid token), failed parse after bare words
became strings, failed evaluation (with upstream's `expresion`), and a non-boolean result.
"""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.inputs import conditions


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        ("", True),
        ("heads == heads", True),
        ("heads == tails", False),
        ("Succeeded != Failed", True),
        ("5 > 3", True),
        ("1.0 == 1", True),
        ("'a b' == 'a b'", True),
        ("true", True),
        ("false || false", False),
        ("foo =~ 'f.o'", True),
        ("foo =~ f", True),
        ("a != b && (c == c || d == e)", True),
    ],
)
def test_conditions_decide_like_argo(when, expected):
    assert conditions.should_execute(when) is expected


@pytest.mark.parametrize(
    ("when", "message"),
    [
        (
            "{{item}} == a",
            "Invalid 'when' expression '{{item}} == a': Invalid token: '{{' "
            '(hint: try wrapping the affected expression in quotes ("))',
        ),
        (
            "hello world == x",
            "Invalid 'when' expression 'hello world == x': Cannot transition token "
            "types from VARIABLE [hello] to VARIABLE [world]",
        ),
        (
            "!ok",
            "Failed to parse 'when' expression '!ok': Cannot transition token types "
            "from PREFIX [!] to STRING [ok]",
        ),
        (
            "my-value == my-value",
            "Failed to evaluate 'when' expresion 'my-value == my-value': Value 'my' "
            "cannot be used with the modifier '-', it is not a number",
        ),
        ("5", "Expected boolean evaluation for '5'. Got 5"),
        ("a, b", "Expected boolean evaluation for 'a, b'. Got [a b]"),
    ],
)
def test_undecidable_conditions_fail_with_argos_messages(when, message):
    with pytest.raises(errors.WorkflowError) as caught:
        conditions.should_execute(when)
    assert str(caught.value) == message


def test_a_skipped_node_says_which_condition_was_false():
    assert conditions.skipped_message("a == b") == "when 'a == b' evaluated false"
