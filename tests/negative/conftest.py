"""Session plumbing of the negative controls: the target cluster, the batch, the summary.

See `batching`: the first fault's test runs the session's faults as one batch, longest
first (`sharding`: `--wpc-shard I/N` keeps a balanced part of them); at the
end the reporting process (the only one, or the pytest-xdist controller) writes
`reports/negative-controls.yaml` with the mutation score and prints it.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance import spec as specs
from conformance.report.scores import provenance
from tests.negative import batching
from tests.negative import controls
from tests.negative import runner
from tests.negative import sharding

STARTED = pytest.StashKey[float]()
SUMMARY = pytest.StashKey[dict[str, Any]]()
MEASURED_ON = pytest.StashKey[provenance.Provenance]()
PROVIDER = "local"
CLUSTER = "wpc"


def pytest_configure(config: pytest.Config) -> None:
    """Note when the session started and which code and spec it measures.

    Verdict files older than the start are stale; a report copying the score
    compares the code and spec with its own. Only the reporting process writes
    the summary, so only it asks git.
    """
    config.stash[STARTED] = time.time()
    if not hasattr(config, "workerinput"):
        config.stash[MEASURED_ON] = provenance.current(str(specs.load().version))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """The faults longest first, and only this shard's with `--wpc-shard I/N` (`sharding`).

    Last, after `-m` and `-k`: the shard is a part of what the unsharded session
    would run. The batch runs the faults in this order (`negative_verdicts`).
    """
    kept, dropped = sharding.arrange(
        items, known=sharding.load_known(), shard=sharding.shard_of(config)
    )
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


@pytest.fixture(scope="session")
def negative_target() -> runner.Target:
    """The local cluster, with the images loaded and the shared objects applied."""
    try:
        target = runner.Target.locate(
            provider=PROVIDER, cluster=CLUSTER, out_dir=batching.OUT_DIR
        )
    except runner.RunnerError as exc:
        pytest.fail(str(exc))
    runner.prepare(target)
    return target


@pytest.fixture(scope="session")
def negative_verdicts(
    request: pytest.FixtureRequest, negative_target: runner.Target
) -> batching.Verdicts:
    """The verdicts of this session's faults (run together when first asked for)."""
    selected = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        control = callspec.params.get("control") if callspec else None
        if isinstance(control, controls.Control) and control.status == controls.ACTIVE:
            selected.append(control)
    return batching.Verdicts(
        target=negative_target,
        selected=tuple(dict.fromkeys(selected)),
        batch=not hasattr(request.config, "workerinput"),
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the summary with the mutation score from this session's verdicts."""
    config = session.config
    if hasattr(config, "workerinput") or MEASURED_ON not in config.stash:
        return
    document = batching.write_summary(
        started=config.stash[STARTED], measured_on=config.stash[MEASURED_ON]
    )
    if document is not None:
        config.stash[SUMMARY] = document
        if config.getoption("wpc_update_durations", False):
            sharding.refresh(document)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """One line with the mutation score, and where the summary is."""
    document = config.stash.get(SUMMARY, None)
    if document is None:
        return
    clauses, faults = document["mutationScore"], document["faultScore"]
    terminalreporter.write_sep("=", "negative controls")
    terminalreporter.write_line(
        f"mutation score {clauses['killed']}/{clauses['total']} MUST clauses "
        f"({100 * clauses['score']:.1f}%; clause-specific assertions only: a "
        f"timeout or harness error never counts); {faults['killed']}/{faults['total']} "
        f"faults killed; survivors: {', '.join(faults['survivors']) or 'none'}; "
        f"{batching.SUMMARY}"
    )
    measured = provenance.Provenance.from_json(document["measuredOn"])
    terminalreporter.write_line(f"measured on {measured.label()}")
    for entry in document["notRun"]:
        terminalreporter.write_line(
            f"not run: {entry['fault']} ({entry['reason']}: {entry['detail']})"
        )
