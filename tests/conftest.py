from __future__ import annotations

# pytester is used by tests/conformance; pytest only accepts pytest_plugins in the
# top-level conftest. skipgate fails a `make test` session on an undeclared skip.
pytest_plugins = ["pytester", "tests.skipgate"]
