from __future__ import annotations

# pytester is used by tests/conformance; pytest only accepts pytest_plugins in the
# top-level conftest. skipgate fails a `make test` session on an undeclared skip;
# heartbeat keeps the cluster stages' CI log from going silent while a long test runs.
pytest_plugins = ["pytester", "tests.skipgate", "tests.heartbeat"]
