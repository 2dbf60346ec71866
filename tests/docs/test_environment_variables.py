"""Every environment variable the code reads is documented in docs/environment-variables.md.

We test this aspect: the names read through `environ`/`env` lookups with a
literal, in the packages and in the tests' own machinery (conftests, plugins,
helpers: every module under tests/ but the test modules, whose variables are fakes),
and every `ENV_*` name in reference_impl/common.py, all appear in the doc; and the
check itself fails for an undocumented name.
"""

from __future__ import annotations

import re
from pathlib import Path

from reference_impl import common

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "environment-variables.md"
PACKAGES = ("clusters", "conformance", "reference_impl", "chaos")
LOOKUP = re.compile(r"""(?:environ|env)(?:\.get\(|\[)\s*["']([A-Z][A-Z0-9_]+)["']""")


def read_names(sources: list[Path]) -> set[str]:
    names: set[str] = set()
    for path in sources:
        names.update(LOOKUP.findall(path.read_text()))
    return names


def undocumented(names: set[str], doc: str) -> list[str]:
    return sorted(n for n in names if f"`{n}`" not in doc)


def test_every_variable_read_is_documented():
    sources = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    sources += [
        p for p in (ROOT / "tests").rglob("*.py") if not p.name.startswith("test_")
    ]
    names = read_names(sources)
    assert "WPC_STRICT_SKIPS" in names  # the tests' machinery is read
    names |= {
        v
        for k, v in vars(common).items()
        if k.startswith("ENV_") and isinstance(v, str)
    }
    assert len(names) > 20
    assert undocumented(names, DOC.read_text()) == []


def test_the_check_catches_an_undocumented_name(tmp_path):
    source = tmp_path / "x.py"
    source.write_text('import os\nos.environ.get("WPC_NOT_DOCUMENTED_ANYWHERE")\n')
    assert undocumented(read_names([source]), DOC.read_text()) == [
        "WPC_NOT_DOCUMENTED_ANYWHERE"
    ]
