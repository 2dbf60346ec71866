"""We test these aspects of the one parser of profile variables (`NAME=VALUE`):

- items become a mapping in the order given; the value is everything after the
  first `=` (empty, or holding `=`), the name is stripped of blanks;
- an item without `=`, an empty name or a name given twice is a DataError that
  names where it came from and the bad item;
- the comma-separated form (the chaos experiments' one configuration value)
  ignores blanks and empty items and refuses the same mistakes.
"""

from __future__ import annotations

import pytest

from conformance.errors import DataError
from conformance.implementations import variables


def test_items_become_a_mapping_in_order():
    parsed = variables.parse(["fault=never-ready", "empty=", "eq=a=b", " ref =v1"])
    assert parsed == {"fault": "never-ready", "empty": "", "eq": "a=b", "ref": "v1"}
    assert list(parsed) == ["fault", "empty", "eq", "ref"]
    assert variables.parse([]) == {}


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["novalue"], "--profile-var must look like NAME=VALUE, not 'novalue'"),
        (["=x"], "--profile-var must look like NAME=VALUE, not '=x'"),
        ([" =x"], "--profile-var must look like NAME=VALUE, not ' =x'"),
        (["ref=a", "ref=b"], "--profile-var ref given twice"),
        (["ref=a", " ref=b"], "--profile-var ref given twice"),
    ],
)
def test_a_bad_item_is_refused_by_name(items, message):
    with pytest.raises(DataError) as refused:
        variables.parse(items)
    assert str(refused.value) == message


def test_the_error_names_the_callers_source():
    with pytest.raises(DataError, match=r"^--profile-var-b must look like NAME=VALUE"):
        variables.parse(["x"], source="--profile-var-b")


def test_the_joined_form_ignores_blanks_and_empty_items():
    parsed = variables.parse_joined(" a=1 ,, b=2,", source="WPC_CHAOS_PROFILE_VARS")
    assert parsed == {"a": "1", "b": "2"}
    assert variables.parse_joined("", source="WPC_CHAOS_PROFILE_VARS") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "a=1,novalue",
            "WPC_CHAOS_PROFILE_VARS must look like NAME=VALUE, not 'novalue'",
        ),
        ("a=1,a=2", "WPC_CHAOS_PROFILE_VARS a given twice"),
    ],
)
def test_the_joined_form_refuses_the_same_mistakes(text, message):
    with pytest.raises(DataError) as refused:
        variables.parse_joined(text, source="WPC_CHAOS_PROFILE_VARS")
    assert str(refused.value) == message
