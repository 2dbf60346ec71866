"""`python -m conformance history run`: upstream's fixed bugs replayed as mutants.

Each entry of `conformance/spec/history.yaml` is a bug upstream Argo Workflows
really shipped and then fixed. A scenario that names it must fail on the last
tag with the bug and pass on the first tag without it; that is a mutant killed
by a real-world mutation, and the share of in-scope fixes caught is the suite's
historical mutation score, beside the synthetic one of the negative controls.

The run reuses the release qualification: each tag is a `qualifying.builds.Build`
(its own image tag, cache directory and controller instances) run by
`qualifying.running.SuiteRunner`, so the argo-workflows profile builds what is
missing. Tags are grouped so each is built and run once, with the union of its
entries' scenarios selected by `-k`; `--substitute-built` may replace a tag by
one already built on the same side of the fix (by git ancestry).

A fix may name a chaos experiment as its killer too (or instead): its tags
also get one chaos run (`qualifying.chaos_running.ChaosSuiteRunner`), and the
experiment is judged as a scenario is.

Rooms, each with one job: `plans` says which entries run and groups them by
tag (pure); `experiments` holds the named experiments to those that exist;
`ancestry` asks git; `caching` asks the build cache; `substituting` picks
built stand-ins; `verdicts` judges an entry from two reports (pure);
`results` is the HistoryResult document; `rendering` prints the plan and the
table; `proving` orders the work for any runner; `cli` parses the verb.
"""
