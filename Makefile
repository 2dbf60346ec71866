# WPC: the two commands for a fresh machine are `make conformance` and `make test`.
# Every target that needs Python runs `setup` first; setup is idempotent.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
IMPLEMENTATION ?= reference
LAYOUT ?= both
# What LAYOUT may be: conformance/harness/instances/layouts.SELECTIONS (a test keeps the two
# equal). Refused here, with the words every command uses, before any target has
# brought a cluster up for a typo.
LAYOUTS := legacy initless both
ifneq ($(words $(LAYOUT)) $(filter $(LAYOUTS),$(LAYOUT)),1 $(LAYOUT))
$(error LAYOUT must be legacy, initless or both, not '$(LAYOUT)')
endif
PROVIDER ?= local
CLUSTER ?= wpc
PYTEST_ARGS ?=
WORKERS ?= 4
# One shard of the conformance run, I/N (e.g. SHARD=2/4), reported under
# reports/shard-2-of-4/; join the shards' reports with `$(PY) -m conformance merge
# reports/shard-*-of-4/conformance-<implementation>.yaml -o reports/conformance-<implementation>.yaml`.
SHARD ?=
# Run `make conformance` or `make chaos` REPEAT times back to back (each run reported
# under reports/run-K-of-REPEAT/) and compare the runs item by item: the items whose
# outcome flipped go to reports/stability-conformance-<impl>.yaml or
# reports/stability-chaos-<impl>.yaml (exit 17 when one flipped; `wpc stability` compares
# reports already written).
REPEAT ?= 1
# Extra profile variables, NAME=VALUE separated by spaces: for upstream Argo built
# from a source tree, PROFILE_VARS="source=/path/to/argo-workflows ref=v4.1.2"
# (or set WPC_ARGO_SOURCE and leave source out).
PROFILE_VARS ?=
# The same, comma-separated, for the chaos experiments (WPC_CHAOS_PROFILE_VARS).
comma := ,
empty :=
space := $(empty) $(empty)
CHAOS_PROFILE_VARS = $(subst $(space),$(comma),$(strip $(PROFILE_VARS)))
# The chaos experiments `make test` runs (the rest are `make chaos`): one controller
# fault and one container fault, each about half a minute.
CHAOS_SLICE ?= main-oom-killed-legacy or controller-down-while-main-runs-legacy
# The chaos negative controls `make test` runs (all twenty-three: `make chaos-negative-controls`,
# about 12 min for the six of issue 9; the exit-hook one of issue 16 alone waits out a
# 180 s completion timeout): one caught by an invariant, two by probes. Whole row ids: a
# fault's name alone now matches its rows for other experiments too (the API server's).
CHAOS_NEGATIVE_SLICE ?= double-pod-on-restart-controller-killed-during-fan-out-legacy or forget-in-flight-pods-controller-down-while-main-runs-legacy or oom-reported-as-error-main-oom-killed-legacy

.PHONY: fresh-debian kind-test chaos chaos-kind chaos-negative-controls negative-controls history history-list setup lint test unit-test cluster-test conformance cluster-up cluster-down host-deps bench images stress interrupt-test differential qualify

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# actionlint checks the CI workflows: the matrix users copy (ci/github-actions.yaml) and
# the reusable workflow vendors call (.github/workflows/wpc-conformance.yaml). It is built
# once with Go into a cache outside the repository, keyed by its version, and reused;
# it runs shellcheck on the `run:` scripts when shellcheck is on PATH. zizmor (pinned in
# pyproject.toml's dev extra) audits them and the composite action (ci/action) for
# security problems, offline (no GitHub API); an ignore carries its reason beside it.
CI_WORKFLOWS := ci/github-actions.yaml .github/workflows/wpc-conformance.yaml
CI_ACTIONS := ci/action/action.yml
ACTIONLINT_VERSION := v1.7.12
ACTIONLINT := $(or $(WPC_CACHE_DIR),$(HOME)/.cache/wpc)/tools/actionlint-$(ACTIONLINT_VERSION)/actionlint

$(ACTIONLINT):
	GOBIN=$(dir $@) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# import-linter keeps the contracts; ci/import_cycles.py fails on any import cycle
# between the project's modules, also one closed inside a function or type-only.
lint: setup $(ACTIONLINT)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy ci/import_cycles.py
	$(VENV)/bin/lint-imports
	$(PY) ci/import_cycles.py
	$(ACTIONLINT) $(CI_WORKFLOWS)
	$(VENV)/bin/zizmor --offline $(CI_WORKFLOWS) $(CI_ACTIONS)

# Host packages the local provider needs (Debian); idempotent and quick when present.
host-deps: setup
	$(PY) -m clusters host-deps

cluster-up: setup
	$(PY) -m clusters up --provider $(PROVIDER) --name $(CLUSTER)

cluster-down: setup
	$(PY) -m clusters down --provider $(PROVIDER) --name $(CLUSTER)

# The project's own tests without a cluster (step 1 of `make test`); no root needed.
unit-test: setup
	$(PY) -m reference_impl.artifacts build
	$(PY) -m pytest -m "not cluster" -n 2 $(PYTEST_ARGS)

# The project's own tests, in order:
#   1. unit tests (no cluster; the S3 server is built first for its real-server tests),
#   2. the cluster proofs on a real local Kubernetes 1.36 (built from pinned upstream
#      modules on first use, cached under $(WPC_CACHE_DIR) afterwards),
#   3. the negative controls: each broken variant must be caught, by a scenario of the
#      suite or by a chaos experiment's probe or invariant,
#   4. two chaos experiments against the healthy reference (CHAOS_SLICE),
#   5. the reference implementation end to end on that cluster, both layouts, through
#      the conformance plugin (HelloWorld; the full suite is `make conformance`), its
#      report carrying the mutation score step 3 measured, then the ownership proofs,
#   6. the teardown proof: `down` leaves nothing behind,
#   7. kind (`kind-test`): a 1 + 2 node kind cluster made offline, HelloWorld on kind.
# Every stage runs under WPC_STRICT_SKIPS=1: a skip of the project's own tests that
# tests/capabilities.py does not declare fails the stage (tests/skipgate.py). Hence the
# builds first: host-deps installs busybox-static, build-components builds kubectl with
# Kubernetes (the cluster needs it next anyway), for the unit stage's tests of both.
test: export WPC_STRICT_SKIPS = 1
test: setup
	$(PY) -m clusters host-deps
	$(PY) -m clusters build-components kubernetes
	$(PY) -m reference_impl.artifacts build
	$(PY) -m pytest -m "not cluster" -n 2 $(PYTEST_ARGS)
	$(PY) -m clusters up --provider local --name $(CLUSTER)
	$(PY) -m pytest -m "cluster and not teardown and not negative and not ownership and not stress and not chaos and not kind" $(PYTEST_ARGS)
	$(PY) -m pytest -m "negative and not chaos and not negative_extra" $(PYTEST_ARGS)
	$(PY) -m pytest -m "negative and chaos" -k "$(CHAOS_NEGATIVE_SLICE)" $(PYTEST_ARGS)
	WPC_CHAOS_LAYOUT=legacy $(PY) -m pytest -m "chaos and not negative" tests/chaos/test_experiments.py -k "$(CHAOS_SLICE)" $(PYTEST_ARGS)
	$(PY) -m conformance run --implementation reference --layout both --provider local --cluster $(CLUSTER) --reports-dir reports/smoke --negative-controls reports/negative-controls.yaml -- -k test_hello_world
	$(PY) -m pytest -m "ownership" $(PYTEST_ARGS)
	$(PY) -m pytest -m "cluster and teardown" $(PYTEST_ARGS)
	$(MAKE) kind-test

# The README on a fresh Debian 12: its bare-machine bootstrap block, then `make lint
# host-deps unit-test` (FRESH_TARGETS: make test's steps before the cluster), cold, in a bookworm minbase container on the kind provider's
# Docker engine; prints each step's time, pytest's summaries and every skip.
# FRESH_TARGETS=conformance brings up the local cluster in that container (host kernel and
# network, fresh state and cache directories) and brings it down afterwards.
FRESH_TARGETS ?= lint host-deps unit-test
fresh-debian: setup
	$(PY) -m tests.freshmachine $(FRESH_TARGETS)

# kind, offline, once the local cluster is down (one cluster at a time): the 1 + 2 node
# cluster proofs (image volumes, pod network across workers, DNS, a clean down), then on
# a 1 + 2 node cluster HelloWorld in both layouts through the conformance front end and
# one worker-node chaos experiment (KIND_CHAOS_SLICE; all three: `make chaos-kind`); the
# cluster is brought down whatever happened. The node image is built here once and cached
# like the other components.
KIND_CLUSTER ?= wpc-kind
KIND_CHAOS_SLICE ?= worker-drained-while-main-runs
KIND_CHAOS_ENV = WPC_CHAOS_IMPLEMENTATION=$(IMPLEMENTATION) WPC_CHAOS_PROFILE_VARS="$(CHAOS_PROFILE_VARS)" WPC_CHAOS_LAYOUT=legacy WPC_CHAOS_PROVIDER=kind WPC_CHAOS_CLUSTER=$(KIND_CLUSTER)
kind-test: setup
	$(PY) -m pytest -m "kind" $(PYTEST_ARGS)
	$(PY) -m clusters up --provider kind --name $(KIND_CLUSTER) --workers 2 && \
	$(PY) -m conformance run --implementation reference --layout both --provider kind --cluster $(KIND_CLUSTER) --reports-dir reports/kind-smoke -- -k test_hello_world && \
	$(KIND_CHAOS_ENV) $(PY) -m pytest -m chaos tests/chaos/test_experiments.py -k "$(KIND_CHAOS_SLICE)" $(PYTEST_ARGS); \
	rc=$$?; $(PY) -m clusters down --provider kind --name $(KIND_CLUSTER) && exit $$rc

# The negative controls: each broken variant of the reference implementation must be
# caught by its killing scenarios while HelloWorld still passes (26 min on 2 cores for
# 106 faults, four side by side: docs/results/negative-controls-2026-11-28/).
# The faults run longest first (tests/negative/durations.json); SHARD=I/N runs a
# duration-balanced part of them, as for `make conformance`.
negative-controls: setup
	$(PY) -m clusters up --provider local --name $(CLUSTER)
	$(PY) -m pytest -m "negative" $(if $(SHARD),--wpc-shard $(SHARD)) $(PYTEST_ARGS)

# The report shows the suite's two scores side by side (conformance/report/scores/summary.py),
# each from the last run here, else from the committed result (docs/results/), which
# the report marks STALE when it was measured on other code or another spec.
COMMITTED_NEGATIVE_CONTROLS ?= docs/results/negative-controls-2026-11-29/negative-controls.yaml
COMMITTED_HISTORY_RESULT ?= docs/results/history-v3.6.0-v4.1.2-2026-11-29c/history-result.yaml

# The mutation score of `make negative-controls` belongs in the report of the
# implementation whose broken variants it ran (reference).
NEGATIVE_CONTROLS := $(if $(filter reference,$(IMPLEMENTATION)),$(firstword $(wildcard reports/negative-controls.yaml) $(wildcard $(COMMITTED_NEGATIVE_CONTROLS))))

# The historical mutation score of `make history` (upstream's fixed bugs caught / in
# scope) is the suite's, so every implementation's report carries it.
HISTORY_RESULT := $(firstword $(wildcard reports/history/history-result.yaml) $(wildcard $(COMMITTED_HISTORY_RESULT)))

conformance: setup
	$(PY) -m conformance run --implementation $(IMPLEMENTATION) --layout $(LAYOUT) --provider $(PROVIDER) --cluster $(CLUSTER) -n $(WORKERS) $(if $(NEGATIVE_CONTROLS),--negative-controls $(NEGATIVE_CONTROLS)) $(foreach v,$(PROFILE_VARS),--profile-var $(v)) $(if $(HISTORY_RESULT),--history-result $(HISTORY_RESULT)) $(if $(SHARD),--shard $(SHARD) --reports-dir reports/shard-$(subst /,-of-,$(SHARD))) --repeat $(REPEAT)

# Pod startup by phase and workflows per minute of IMPLEMENTATION, per layout, on the
# shared cluster; the result goes to reports/bench-<implementation>.yaml. Two runs side
# by side: `$(PY) -m conformance bench-compare reports/bench-A.yaml reports/bench-B.yaml`.
WORKFLOWS ?= 50
INFLIGHT ?= 5
BENCH_ARGS ?=

# Long load tests on the local cluster: 50 sidecar workflows on a node loaded to 2x its
# cores must never see the executor killed by an early signal (exit code 2).
interrupt-test: setup
	$(PY) -m clusters up --provider local --name $(CLUSTER)
	$(PY) -m pytest tests/clusters/test_local_interrupt.py $(PYTEST_ARGS)

stress: setup
	$(PY) -m clusters up --provider local --name $(CLUSTER)
	$(PY) -m pytest tests/reference_impl/images/test_sidecar_stress.py $(PYTEST_ARGS)

bench: setup
	$(PY) -m conformance bench --implementation $(IMPLEMENTATION) --layout $(LAYOUT) --workflows $(WORKFLOWS) --inflight $(INFLIGHT) --provider $(PROVIDER) --cluster $(CLUSTER) $(foreach v,$(PROFILE_VARS),--profile-var $(v)) $(BENCH_ARGS)

# A corpus of Workflows under two implementations on the local cluster, each side with
# controller instances of its own (wpc-diff-a-<layout>, wpc-diff-b-<layout>); every
# difference in phases, messages, node structure, outputs and exit codes goes to
# reports/differential-<A>-vs-<B>-<layout>.yaml and a table; exit 15 when one is not
# listed in KNOWN. B=argo-workflows is built from ARGO_SOURCE at ARGO_REF. An upstream
# checkout's examples/ as the corpus: CORPUS=/path/to/argo-workflows/examples
# DIFF_ARGS="--image-map busybox=wpc.local/wpc-tools:0.1.0" (docs/differential.md).
A ?= reference
B ?= argo-workflows
CORPUS ?= wpc/differential/corpus
KNOWN ?= wpc/differential/known.yaml
ARGO_SOURCE ?= $(WPC_ARGO_SOURCE)
ARGO_REF ?= v4.1.2
DIFF_ARGS ?=
DIFF_LAYOUT := $(if $(filter both,$(LAYOUT)),legacy,$(LAYOUT))
ARGO_VARS = $(if $(ARGO_SOURCE),--profile-var-$(1) source=$(ARGO_SOURCE) --profile-var-$(1) ref=$(ARGO_REF))

differential: setup
	$(PY) -m clusters up --provider $(PROVIDER) --name $(CLUSTER)
	$(PY) -m conformance differential --a $(A) --b $(B) --corpus $(CORPUS) --layout $(DIFF_LAYOUT) \
	  --known $(KNOWN) --provider $(PROVIDER) --cluster $(CLUSTER) \
	  $(if $(filter argo-workflows,$(A)),$(call ARGO_VARS,a)) $(if $(filter argo-workflows,$(B)),$(call ARGO_VARS,b)) $(DIFF_ARGS)

# Release qualification of upstream Argo: build git refs OLD and NEW of SOURCE (default
# $WPC_ARGO_SOURCE), run the suite on both (LAYOUT), diff the reports, rerun each differing
# item RERUNS times against each version, print the diff (confirmed or flaky); files under
# reports/qualify-OLD-NEW/. With the chaos suite too (CHAOS=no leaves it out): every
# experiment on both versions, each differing chaos case rerun and counted as an item is
# (not-applicable cases listed, not counted). Exit 14 on a regression (item or chaos case)
# that did not flip on rerun and that no entry of EXPLAINED (default
# wpc/qualify/explained.yaml; `none`: no file) explains.
# SHARD=I/N runs that shard of the suite against each version (reports/qualify-OLD-NEW-shard-I-of-N/).
# The suite runs against OLD and NEW side by side (and each round's reruns), each run's
# output in its reports directory's console.log; SIDE_BY_SIDE=no runs OLD, then NEW.
OLD ?=
NEW ?=
SOURCE ?= $(WPC_ARGO_SOURCE)
RERUNS ?= 2
EXPLAINED ?=
CHAOS ?= yes
SIDE_BY_SIDE ?= yes
QUALIFY_CHAOS = $(if $(filter no,$(CHAOS)),--without-chaos,--with-chaos)
QUALIFY_EXPLAINED = $(if $(filter none,$(EXPLAINED)),--no-explained,$(if $(EXPLAINED),--explained $(EXPLAINED)))
qualify: setup
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "make qualify: give OLD=<ref> NEW=<ref>, e.g. OLD=v4.1.0 NEW=v4.1.2" >&2; exit 10; }
	@test -n "$(SOURCE)" || { echo "make qualify: give SOURCE=<argo-workflows git repository> or set WPC_ARGO_SOURCE" >&2; exit 10; }
	$(PY) -m conformance qualify --old $(OLD) --new $(NEW) --source $(SOURCE) --layout $(LAYOUT) --reruns $(RERUNS) --provider $(PROVIDER) --cluster $(CLUSTER) -n $(WORKERS) $(QUALIFY_CHAOS) $(QUALIFY_EXPLAINED) $(if $(SHARD),--shard $(SHARD)) $(if $(filter no,$(SIDE_BY_SIDE)),--one-side-at-a-time)

# Upstream's fixed bugs as mutants (conformance/spec/history.yaml): for every fix in scope,
# observable and named by a scenario, build the last tag with the bug and the first without
# it from SOURCE (each tag once; a built commit is reused), run only those scenarios on each
# in LAYOUT, and judge each fix caught, missed, broken-after or not-run. Writes
# reports/history/history-result.yaml (the historical mutation score: fixed bugs caught / in
# scope, which `make conformance` then copies into its report) and prints the table and the
# wall time. Needs the cluster. HISTORY_ARGS: --substitute-built (use an already built tag
# on the same side of a fix, by git ancestry, instead of building), --plan (print the plan
# only, no cluster), --entry ID (one fix), --keep-reports (read the reports a stopped run
# left instead of running those tags again). Exit 16 when a fix is missed or broken after it.
HISTORY_ARGS ?=
history: setup
	@test -n "$(SOURCE)" || { echo "make history: give SOURCE=<argo-workflows git repository> or set WPC_ARGO_SOURCE (make history-list lists the fixes without either)" >&2; exit 10; }
	$(PY) -m conformance history run --source $(SOURCE) --layout $(LAYOUT) --provider $(PROVIDER) --cluster $(CLUSTER) $(HISTORY_ARGS)

# The fixes of the history, where each is and which scenario should catch it; no cluster.
history-list: setup
	$(PY) -m conformance history

# The chaos experiments (chaos/experiments/*.yaml, each run with `chaos run`) against
# IMPLEMENTATION in LAYOUT (legacy, initless or both): the layouts' experiments side by
# side (one pytest process each), then the node faults alone (`wpc chaos run`, chaos/suite/;
# the checkout's heartbeat plugin keeps the log from going silent while an experiment runs).
# Writes reports/chaos-<the profile's name>.yaml (IMPLEMENTATION may be a profile's path),
# its JUnit twin, its HTML page (linking the timelines), and a history and timeline per
# experiment under reports/chaos/. An experiment that needs what PROVIDER or the profile
# does not offer is reported not-applicable, with the reason, before anything is installed.
# PROVIDER=kind makes the cluster with KIND_WORKERS workers (2), so the worker experiments
# run too (the one that deletes a worker last); a running cluster of that name is used as it is.
KIND_WORKERS ?= 2
chaos: setup
	$(PY) -m clusters up --provider $(PROVIDER) --name $(CLUSTER) $(if $(filter kind,$(PROVIDER)),--workers $(KIND_WORKERS))
	WPC_CHAOS_IMPLEMENTATION=$(IMPLEMENTATION) WPC_CHAOS_PROFILE_VARS="$(CHAOS_PROFILE_VARS)" \
	WPC_CHAOS_PROVIDER=$(PROVIDER) WPC_CHAOS_CLUSTER=$(CLUSTER) \
	$(PY) -m chaos run --layout $(LAYOUT) --repeat $(REPEAT) -- -p tests.heartbeat $(PYTEST_ARGS)

# The multi-node experiments on a kind cluster with two workers (KIND_CLUSTER, made if
# absent): a worker frozen and thawed, drained, then deleted for good, which leaves the
# cluster one worker short, so it runs last, on its own (`python -m clusters down
# --provider kind --name $(KIND_CLUSTER)` and `up` make the cluster whole again).
KIND_CLUSTER ?= wpc-kind
chaos-kind: setup
	$(PY) -m clusters up --provider kind --name $(KIND_CLUSTER) --workers 2 && \
	$(KIND_CHAOS_ENV) $(PY) -m pytest -m chaos tests/chaos/test_experiments.py \
	  -k "worker-frozen-while-main-runs or worker-drained-while-main-runs" $(PYTEST_ARGS) && \
	$(KIND_CHAOS_ENV) $(PY) -m pytest -m chaos tests/chaos/test_experiments.py \
	  -k "worker-deleted-while-main-runs" $(PYTEST_ARGS); \
	rc=$$?; $(PY) -m clusters down --provider kind --name $(KIND_CLUSTER) && exit $$rc

# Each broken reference variant of tests/chaos/test_negative_controls.py must be caught
# by the probe or invariant its row names (these also run in `make negative-controls`).
# Ends with the table of experiments and their controls, those without one last
# (tests/chaos/negative_coverage.py), whatever pytest's verdict; exits with pytest's.
chaos-negative-controls: setup
	$(PY) -m clusters up --provider $(PROVIDER) --name $(CLUSTER) $(if $(filter kind,$(PROVIDER)),--workers $(KIND_WORKERS))
	WPC_CHAOS_PROVIDER=$(PROVIDER) WPC_CHAOS_CLUSTER=$(CLUSTER) \
	$(PY) -m pytest tests/chaos/test_negative_controls.py $(PYTEST_ARGS); \
	rc=$$?; $(PY) -m tests.chaos.negative_coverage && exit $$rc
