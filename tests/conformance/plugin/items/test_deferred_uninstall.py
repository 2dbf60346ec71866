"""A dedicated instance is uninstalled in the background, joined at the process's end.

Uninstalling a private controller instance took about 10 s of each such test's
cleanup (16 items of a reference run, ~170 s of item time). The fixture now
hands it to `conformance.plugin.items.deferring.Background` and the next test starts;
a test holding the unlabelled-workflows lock (its instance may run without
`instanceID`) still waits for it. `Background.join` waits for every step and
returns those that failed, logged, instead of raising into an unrelated test.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from conformance.plugin.items import deferring
from conformance.plugin.items import fixtures


class Driver:
    """Records control calls; an uninstall blocks until `release` is set."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.release = threading.Event()

    def control(self, kind: str, instance: object) -> None:
        if kind == "uninstall":
            assert self.release.wait(timeout=30), "the uninstall was never released"
        self.calls.append(kind)


def _run_fixture(monkeypatch, fixturenames, background):
    driver = Driver()
    monkeypatch.setattr(fixtures, "_driver", lambda run: driver)
    profile = SimpleNamespace(name="reference", controller_namespace="{instance_id}")
    body = fixtures.dedicated_instance._get_wrapped_function()(
        request=SimpleNamespace(fixturenames=fixturenames),
        wpc_run=SimpleNamespace(profile=profile),
        run_context=SimpleNamespace(instances=(), session_id="s-1"),
        wpc_layout="legacy",
        kube_clients=SimpleNamespace(
            core=SimpleNamespace(patch_namespace=lambda name, body: None)
        ),
        background_teardown=background,
    )
    next(body)
    return driver, body


def test_the_uninstall_runs_in_the_background_and_the_end_joins_it(monkeypatch):
    background = deferring.Background()
    driver, body = _run_fixture(monkeypatch, ["dedicated_instance"], background)
    with pytest.raises(StopIteration):
        next(body)  # returns while the uninstall is still blocked
    assert driver.calls == ["install"]
    driver.release.set()
    assert background.join() == []
    assert driver.calls == ["install", "uninstall"]


def test_a_test_holding_the_unlabelled_workflows_lock_waits_for_the_uninstall(
    monkeypatch,
):
    background = deferring.Background()
    driver, body = _run_fixture(
        monkeypatch,
        [fixtures.UNLABELLED_WORKFLOWS_LOCK, "dedicated_instance"],
        background,
    )
    driver.release.set()
    with pytest.raises(StopIteration):
        next(body)
    assert driver.calls == ["install", "uninstall"]
    assert background.join() == []


def test_join_waits_for_all_and_returns_the_failed_ones(caplog):
    background = deferring.Background()
    done: list[str] = []

    def fail() -> None:
        raise RuntimeError("kubectl said no")

    background.submit("uninstall b", fail)
    background.submit("uninstall a", lambda: done.append("a"))
    assert background.join() == ["uninstall b"]
    assert done == ["a"]
    assert "Failed in the background: uninstall b: kubectl said no" in caplog.text
