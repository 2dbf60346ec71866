"""`python -m conformance qualify`: two versions built, run, diffed, differences rerun.

The release engineer's question, answered on one cluster: what changed between
OLD and NEW, and is any of it a regression? Each version is a git ref of one
source tree, built by the profile's own prepare commands under its own image
tag, cache directory and instance IDs (`builds`), so both sit side by side.
The whole suite runs once per version, the two reports are diffed
(`wpc.diff`), and every differing item is rerun against both
versions a few times (`qualifying`), so the diff says which differences are
confirmed and which flip from run to run (flaky, with each verdict's report).
Differences recorded as expected in `explained.yaml` (schema beside it) are
marked explained and do not fail the qualification; `rediff` recomputes a
finished qualification's diff without running anything.

Rooms, each with one job: `builds` names the two builds and what to select
(pure), `running` runs the suite as a subprocess (`python -m conformance run`),
`qualifying` orchestrates any runner (tests use a fake one), `cli` parses the
verb's arguments.
"""
