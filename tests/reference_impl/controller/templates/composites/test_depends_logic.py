"""We test how a `depends` expression is evaluated against its dependencies' results:

`&&` binds tighter than `||`, both chain left to right, `!` and parentheses nest,
every operand is parsed even when the result is already known, a bare task name
means upstream's expansion (Succeeded, Skipped or Daemoned), and a malformed
expression is `unable to evaluate expression '<logic>'`.
"""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.composites import depends

TASKS = {name: {"name": name} for name in ("a", "b", "c")}
RESULTS = {
    "a": {"Succeeded": True, "Failed": False},
    "b": {"Succeeded": False, "Failed": True},
    "c": {"Succeeded": True, "Failed": False},
}


@pytest.mark.parametrize(
    ("logic", "expected"),
    [
        ("a.Succeeded", True),
        ("b.Succeeded", False),
        ("a.Succeeded && b.Failed && c.Succeeded", True),
        ("a.Succeeded && b.Succeeded && c.Succeeded", False),
        ("b.Succeeded || b.Failed", True),
        ("b.Succeeded || a.Failed || c.Failed", False),
        ("b.Succeeded && a.Failed || c.Succeeded", True),
        ("c.Succeeded || a.Failed && b.Succeeded", True),
        ("(c.Succeeded || a.Failed) && b.Succeeded", False),
        ("!b.Succeeded && !(a.Failed || c.Failed)", True),
        ("a.Succeeded || (b.Succeeded", None),
        ("a.Succeeded && || b.Failed", None),
        ("a.Succeeded b.Failed", None),
        ("a", True),
        ("b", False),
    ],
)
def test_depends_expressions(logic: str, expected: bool | None) -> None:
    if expected is None:
        with pytest.raises(errors.WorkflowError, match="unable to evaluate expression"):
            depends.evaluate_depends(logic, RESULTS, TASKS)
    else:
        assert depends.evaluate_depends(logic, RESULTS, TASKS) is expected
