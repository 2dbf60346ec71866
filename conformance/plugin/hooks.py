"""The WPC conformance pytest plugin (entry point `wpc`).

Inert unless the suite runs: active with `--wpc-implementation` (or the ini key
`wpc_implementation`), or when the
command line names a path inside `conformance/tests` (then the implementation
defaults to `reference`). While inactive it only registers the marker and
keeps `pytest .` from wandering into the suite.

Where things happen (the "reporting process" is the pytest-xdist controller,
or the only process without xdist):

    pytest_configure        every process: options -> RunSettings, spec, profile,
                            claimed features, timeouts; workers read the
                            RunContext from workerinput
    collection              every collecting process: markers validated, items
                            fanned out per layout, deselected (layouts,
                            --wpc-select), skipped
    pytest_sessionstart     reporting process, once: pytest_wpc_prepare_run
                            (cluster marker, install, environment fingerprint)
    a signal                every process (`conformance.plugin.reporting.interrupting`):
                            SIGINT, SIGTERM, SIGHUP stop the run as Ctrl-C does
    makereport              the process running the test: outcome mapping,
                            observations, failure evidence
    after the test loop     reporting process (`conformance.plugin.reporting.finishing`): layout
                            divergence checks, leak sweep, ConformanceReport,
                            JUnit XML (after the last teardown, also when
                            interrupted)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from conformance import contract
from conformance.errors import ClusterRefused
from conformance.errors import ConformanceError
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.harness.cluster import timing
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import profiles
from conformance.implementations.contexts import RunContext
from conformance.plugin import hookspecs
from conformance.plugin.items import attaching
from conformance.plugin.items import failures
from conformance.plugin.reporting import finishing
from conformance.plugin.reporting import interrupting
from conformance.plugin.reporting import progress
from conformance.plugin.selection import arranging
from conformance.plugin.selection import collection
from conformance.plugin.selection import options
from conformance.plugin.selection import selecting
from conformance.plugin.state import keys
from conformance.plugin.state import markers
from conformance.plugin.state import preloaded
from conformance.plugin.state import runs
from conformance.plugin.state.keys import WORKERINPUT_KEY
from conformance.plugin.state.settings import RunSettings
from conformance.report.items.outcomes import Outcome
from conformance.report.items.outcomes import classify
from conformance.report.items.outcomes import failed_clauses
from conformance.report.items.outcomes import failure_kind
from conformance.report.items.records import DECLARATION_ATTR
from conformance.report.items.records import EVIDENCE_ATTR
from conformance.report.items.records import FAILURE_ATTR
from conformance.report.items.records import OBSERVATIONS_ATTR
from conformance.report.items.records import OUTCOME_ATTR
from conformance.report.items.records import PHASES_ATTR
from conformance.report.items.records import scenario_of
from conformance.report.scores import historical
from conformance.report.scores import mutation
from conformance.report.scores import provenance

logger = logging.getLogger(__name__)

DECLARATIONS_OUTPUT = "wpc_declarations"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register `pytest_wpc_prepare_run`."""
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the suite's options (see `conformance.plugin.selection.options`)."""
    options.add(parser)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _load_spec(path: Path | None) -> Any:
    from conformance import spec

    try:
        return spec.load(path)
    except spec.SpecError as exc:
        raise pytest.UsageError(f"cannot load the WPC spec: {exc}") from exc


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; when active, load everything the run needs."""
    config.addinivalue_line("markers", markers.MARKER_HELP)
    if not options.is_active(config):
        return
    settings = options.settings(config)
    spec = _load_spec(settings.spec_path)
    known = frozenset(f.name for f in spec.features)
    # Loaded once per process: a launcher that checked it already hands it over.
    profile = preloaded.of(
        config,
        implementation=settings.implementation,
        variables=settings.profile_vars,
    )
    try:
        profile = profile or profiles.load(
            settings.implementation,
            known_features=known,
            variables=settings.profile_vars,
        )
    except DataError as exc:
        raise pytest.UsageError(str(exc)) from exc
    if settings.features is not None:
        unknown = sorted(settings.features - known)
        if unknown:
            raise pytest.UsageError(
                f"--wpc-features: unknown feature(s) {', '.join(unknown)} "
                f"(the spec defines: {', '.join(sorted(known))})"
            )
    score = None
    if settings.negative_controls is not None and not _is_worker(config):
        # Read now, not after the run: a bad file should stop the run before the
        # install and the tests, not lose the report at the end.
        try:
            score = mutation.read(
                settings.negative_controls,
                implementation=profile.name,
                current=provenance.current(str(spec.version)),
            )
        except DataError as exc:
            raise pytest.UsageError(f"--wpc-negative-controls: {exc}") from exc
    # Core features are not a choice: every implementation is judged on them, as
    # Gateway API conformance always runs its core tests. Only Extended features
    # (and the layouts) are claimed.
    core = frozenset(f.name for f in spec.features if f.support == "Core") - frozenset(
        contract.LAYOUT_FEATURES.values()
    )
    run = runs.Run(
        settings=settings,
        spec=spec,
        profile=profile,
        claimed=core
        | (settings.features if settings.features is not None else profile.features),
        timeouts=Timeouts().scaled(settings.timeout_scale),
        mutation_score=score,
    )
    if settings.history_result is not None and not _is_worker(config):
        # Read now, like the negative controls: a bad file stops the run before it starts.
        try:
            run.historical_score = historical.read(
                settings.history_result,
                current=provenance.current(str(spec.version)),
            )
        except DataError as exc:
            raise pytest.UsageError(f"--wpc-history-result: {exc}") from exc
    if _is_worker(config):
        data = config.workerinput.get(WORKERINPUT_KEY)  # type: ignore[attr-defined]
        if data is not None:
            run.adopt(RunContext.from_json(data))
    try:
        run.durations = arranging.load_durations(settings.durations_path)
    except DataError as exc:
        raise pytest.UsageError(f"--wpc-durations-file: {exc}") from exc
    runs.register(config, run)
    # Every process: SIGTERM and SIGHUP stop a worker's tests as Ctrl-C does.
    interrupting.register(config, run)
    config.pluginmanager.register(arranging.Arranger(), "wpc-arranger")
    from conformance.plugin.items import fixtures

    config.pluginmanager.register(fixtures, "wpc-fixtures")
    if not _is_worker(config):
        config.pluginmanager.register(finishing.Finisher(config), "wpc-finisher")
        if not config.option.collectonly:
            config.pluginmanager.register(
                progress.Heartbeat(progress.writer(config)), "wpc-heartbeat"
            )


def _active(config: pytest.Config) -> bool:
    return runs.get(config) is not None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Keep an inactive plugin's `pytest .` out of the suite (it needs a cluster)."""
    if not _active(config) and collection.in_suite(collection_path):
        return True
    return None


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Say what is being judged, against which claims."""
    if not _active(config):
        return None
    profile = runs.of(config).profile
    settings = runs.of(config).settings
    claimed: frozenset[str] = runs.of(config).claimed
    return [
        f"wpc: implementation {profile.name} {profile.version} ({profile.path})",
        f"wpc: layouts selected {', '.join(settings.layouts)}; claimed {', '.join(profile.layouts)}",
        *(
            f"wpc: layout {layout} not claimed: {why}"
            for layout, why in profile.unsupported_layouts.items()
        ),
        f"wpc: claimed features {', '.join(sorted(claimed))}",
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Fan suite tests out over their layouts (and validate their markers)."""
    if _active(metafunc.config):
        collection.generate(metafunc)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Deselect unselected layouts, skip unclaimed features, remember declarations.

    The order and the shard come last (`conformance.plugin.selection.arranging.Arranger`).
    """
    if not _active(config):
        return
    collection.modify_items(config, items)
    selecting.select(config, items)
    if _is_worker(config):
        config.workeroutput[DECLARATIONS_OUTPUT] = {  # type: ignore[attr-defined]
            scenario: _declaration_json(decl)
            for scenario, decl in runs.of(config).declarations.items()
        }


def _declaration_json(decl: markers.Declaration) -> dict[str, Any]:
    return {
        "short_name": decl.short_name,
        "clauses": list(decl.clauses),
        "features": sorted(decl.features),
        "layouts": list(decl.layouts),
        "levels": list(decl.levels),
        "profiles": list(decl.profiles),
    }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """Merge the declarations a worker collected (for the coverage ledger)."""
    config = node.config
    if not _active(config):
        return
    selection = (node.workeroutput or {}).get(arranging.SELECTION_OUTPUT)
    if selection is not None:
        runs.of(config).selection = selection
    for scenario, data in (
        (node.workeroutput or {}).get(DECLARATIONS_OUTPUT, {}).items()
    ):
        runs.of(config).declarations[scenario] = markers.Declaration(
            short_name=data["short_name"],
            clauses=tuple(data["clauses"]),
            features=frozenset(data["features"]),
            layouts=tuple(data["layouts"]),
            levels=tuple(data["levels"]),
            profiles=tuple(data["profiles"]),
        )


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Prepare the run once (cluster check, install) before any worker starts."""
    config = session.config
    if not _active(config) or _is_worker(config) or config.option.collectonly:
        return
    try:
        with progress.echo(progress.writer(config)):
            context = config.hook.pytest_wpc_prepare_run(
                config=config,
                settings=runs.of(config).settings,
                profile=runs.of(config).profile,
                timeouts=runs.of(config).timeouts,
            )
    except ClusterRefused as exc:
        pytest.exit(
            f"WPC refuses this cluster: {exc}", returncode=ExitCode.CLUSTER_REFUSED
        )
    except ConformanceError as exc:
        pytest.exit(
            f"WPC could not prepare the run: {exc}", returncode=ExitCode.PREPARE_FAILED
        )
    if context is not None:
        runs.of(config).adopt(context)


@pytest.hookimpl(trylast=True)
def pytest_wpc_prepare_run(
    config: pytest.Config,
    settings: RunSettings,
    profile: profiles.Profile,
    timeouts: Timeouts,
) -> RunContext:
    """Default: the real cluster (see conformance.implementations.preparing)."""
    from conformance.implementations import preparing

    try:
        return preparing.prepare_run(
            cluster=settings.cluster_choice(),
            profile=profile,
            layouts=settings.layouts,
            skip_install=settings.skip_install,
            log_dir=settings.reports_dir / "logs",
            timeouts=timeouts,
        )
    except ConformanceError:
        raise
    except (
        Exception
    ) as exc:  # broad on purpose: one place wraps cluster and client failures
        raise ConformanceError(f"{type(exc).__name__}: {exc}") from exc


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Hand the prepared RunContext to a pytest-xdist worker."""
    run = runs.get(node.config)
    if run is not None and run.context is not None:
        node.workerinput[WORKERINPUT_KEY] = run.context.to_json()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    """Time what the harness does while a suite item runs, into its stash."""
    if keys.DECLARATION not in item.stash:
        return (yield)
    phases = item.stash[keys.PHASES] = timing.Phases(step=attaching.phase_step)
    with timing.recording(phases):
        return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    """Note the start time and label the test for allure; title it once set up.

    Outermost, so the title comes after allure-pytest names the test at the end
    of its own setup wrapper, also when the setup fails.
    """
    decl = item.stash.get(keys.DECLARATION, None)
    if decl is None:
        return (yield)
    item.stash[keys.STARTED] = time.time()
    # Every cited clause is the spec's: `markers.declare` refused any other.
    requirements = runs.of(item.config).spec.by_id()
    attaching.label_test(
        short_name=decl.short_name,
        layout=item.stash[keys.LAYOUT],
        layout_param=collection.LAYOUT_PARAM,
        support=item.stash[keys.SUPPORT],
        clauses={c: requirements[c] for c in decl.clauses if c in requirements},
        features=sorted(decl.features),
        patterns=dict(getattr(item.config.option, "allure_link_pattern", None) or []),
    )
    try:
        return (yield)
    finally:
        attaching.title_test(decl.short_name, decl.clauses)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Map the outcome, attach the declaration, observations and evidence."""
    report = yield
    decl = item.stash.get(keys.DECLARATION, None)
    if decl is None:
        return report
    layout = item.stash[keys.LAYOUT]
    exc = call.excinfo.value if call.excinfo is not None else None
    outcome = classify(when=report.when, outcome=report.outcome, exc=exc)
    setattr(report, OUTCOME_ATTR, outcome.value)
    setattr(
        report,
        DECLARATION_ATTR,
        {
            "short_name": decl.short_name,
            "test_id": item.stash[keys.TEST_ID],
            "layout": layout,
            "clauses": list(decl.clauses),
            "features": sorted(decl.features),
            "support": item.stash[keys.SUPPORT],
            "claimed": not collection.missing_features(
                decl, layout, runs.of(item.config).claimed
            ),
            "profiles": list(decl.profiles),
            "scenario": scenario_of(item.stash[keys.TEST_ID], layout),
        },
    )
    timed = item.stash.get(keys.PHASES, None)
    if timed is not None:
        setattr(report, PHASES_ATTR, timed.take())
    recorder = item.stash.get(keys.OBSERVATIONS, None)
    if report.when == "call" and recorder is not None:
        setattr(report, OBSERVATIONS_ATTR, recorder.to_json())
    if outcome in (Outcome.FAILED, Outcome.ERROR):
        kind = failure_kind(when=report.when, exc=exc)
        setattr(
            report,
            FAILURE_ATTR,
            {"kind": kind.value, "clauses": failed_clauses(kind, exc)},
        )
    if outcome in (Outcome.FAILED, Outcome.ERROR) and report.when in ("setup", "call"):
        setattr(report, EVIDENCE_ATTR, failures.collect(item))
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """Show a harness error in a test body as ERROR, not FAILED."""
    if (
        report.when == "call"
        and getattr(report, OUTCOME_ATTR, None) == Outcome.ERROR.value
    ):
        return "error", "E", ("ERROR", {"red": True})
    return None
