"""We test these aspects of `wpc.diff.reading`:

- a valid report comes back as the mapping it holds;
- a missing file, invalid YAML, a document that is not a mapping, the wrong
  kind or apiVersion, and a schema violation each raise DataError naming the
  file and the key at fault;
- a `timeoutScale` of NaN, infinity or below 1 is a schema violation, read or written
  (YAML has `.nan`, and NaN passes every bound a schema can state).
"""

from __future__ import annotations

import math

import jsonschema
import pytest
import yaml

from conformance.errors import DataError
from conformance.report.runs import documents
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc.diff import reading


def write(tmp_path, document, name="r.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document))
    return path


def test_a_valid_report_is_read(tmp_path):
    document = report([entry("A", "legacy")])
    found = reading.read(write(tmp_path, document))
    # Read with the stable identity added (the builders write node IDs only).
    assert found["tests"][0].pop("id") == "A::test_a[legacy]"
    assert found == document


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(DataError, match=r"absent\.yaml: cannot read the report"):
        reading.read(tmp_path / "absent.yaml")


def test_invalid_yaml_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("tests: [unclosed\n")
    with pytest.raises(DataError, match=r"bad\.yaml: not valid YAML"):
        reading.read(path)


def test_a_list_is_not_a_report(tmp_path):
    with pytest.raises(DataError, match=r"r\.yaml: not a ConformanceReport.*got list"):
        reading.read(write(tmp_path, [1, 2]))


@pytest.mark.parametrize(
    ("key", "value"),
    [("kind", "BenchResult"), ("apiVersion", "wpc.dev/v2"), ("kind", None)],
)
def test_the_wrong_kind_or_api_version_is_named(tmp_path, key, value):
    document = report([])
    if value is None:
        del document[key]
    else:
        document[key] = value
    with pytest.raises(
        DataError, match=rf"r\.yaml: key {key}: expected .*got {value!r}"
    ):
        reading.read(write(tmp_path, document))


def test_a_schema_violation_names_its_key(tmp_path):
    document = report([entry("A", "legacy")])
    document["tests"][0]["outcome"] = "maybe"
    with pytest.raises(DataError, match=r"r\.yaml: key tests\.0\.outcome: 'maybe'"):
        reading.read(write(tmp_path, document))


@pytest.mark.parametrize(
    ("scale", "why"),
    [
        (math.nan, "nan is not of type 'number'"),
        (math.inf, "inf is not of type 'number'"),
        (0.5, "0.5 is less than the minimum of 1"),
    ],
)
def test_a_timeout_scale_below_1_or_not_finite_is_no_report(tmp_path, scale, why):
    document = report([entry("A", "legacy")])
    document["run"]["timeoutScale"] = scale
    with pytest.raises(jsonschema.ValidationError, match=why):
        documents.validate(document)  # what documents.write checks first
    with pytest.raises(DataError, match=rf"r\.yaml: key run\.timeoutScale: {why}"):
        reading.read(write(tmp_path, document))
