"""`python -m conformance differential`: one corpus of Workflows under two implementations.

Each side gets controller instances of its own (`wpc-diff-a-<layout>`,
`wpc-diff-b-<layout>`), so the two never act on each other's workflows; every
workflow of the corpus is submitted to both, awaited, normalised (generated
names and node IDs replaced by node paths) and compared field by field. What
differs is reported as YAML (`differential.schema.json`) and as a table;
differences a `--known` file lists with a reason do not fail the run.
"""
