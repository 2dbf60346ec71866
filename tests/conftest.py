from __future__ import annotations

# pytester is used by tests/conformance; pytest only accepts pytest_plugins in the
# top-level conftest.
pytest_plugins = ["pytester"]
