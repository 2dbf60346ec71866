"""`python -m conformance diff OLD NEW`: what changed between two ConformanceReports.

Also `layout-diff A B`: where two implementations' layouts differ, side by side.

Rooms, each with one job (the import contract in pyproject.toml keeps them
layered): `reading` loads and checks a report file, `comparing` turns two
reports into a `ReportDiff` (pure, no I/O), `rendering` writes that diff as a
YAML document and as a table, and `cli` parses the verb's arguments;
`layouts`, `layout_rendering` and `layout_cli` do the same jobs for
`layout-diff`; `reruns` classifies rerun verdicts (pure); `explaining` reads a
file of explained differences and marks the changes it explains (an explained
regression is listed with its reason but does not count).

Only the offline half of the comparison lives here: a differing item would
have to be rerun on a cluster before it can be called a regression or a fix
for sure, so every differing item carries `rerun: not rerun` until a
qualification (`wpc.qualify`) reruns it and `reruns` folds the
verdicts in: confirmed, or flaky with the evidence.
"""
