"""We test these aspects of `conformance.diffing.reading`:

- a valid report comes back as the mapping it holds;
- a missing file, invalid YAML, a document that is not a mapping, the wrong
  kind or apiVersion, and a schema violation each raise DataError naming the
  file and the key at fault.
"""

from __future__ import annotations

import pytest
import yaml

from conformance.diffing import reading
from conformance.errors import DataError
from tests.conformance.diffing.builders import entry
from tests.conformance.diffing.builders import report


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
