"""We test these aspects of an informer across a broken watch, without a cluster:

- a correct informer lists again after its watch failed, and watches again
  after one the server cut short;
- under the `no-rewatch-after-outage` fault (`GiveUp`) the same failure or early end
  stops it for good, its cache frozen at what it held; failures before its first
  list still retry, and a watch that lasted its timeout is no failure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import pytest

from reference_impl.controller import errors
from reference_impl.controller.machinery import watching

Json = dict[str, Any]
WATCH_SECONDS = 290.0
CUT = errors.ApiError(verb="GET", target="/pods", status=0, reason="refused")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Script:
    """A source whose lists and watches follow a script, then set `stop`.

    `lists` holds one item list (or an exception) per list call; `watches` one
    behaviour per watch call: an exception to raise, or the seconds the watch
    lasts on `clock` before the server ends it. The call after the last of
    either sets `stop`, so `run` returns.
    """

    def __init__(
        self,
        stop: threading.Event,
        clock: Clock,
        *,
        lists: list[list[Json] | Exception],
        watches: list[float | Exception],
    ) -> None:
        self.stop, self.clock = stop, clock
        self.lists, self.watches = lists, watches
        self.listed = 0
        self.watched = 0

    def list_items(self) -> tuple[list[Json], str]:
        return self._next(self.lists, "listed", lambda v: (v, "1"))

    def watch(self, resource_version: str) -> Iterator[tuple[str, Json]]:
        def lasts(seconds: float) -> Iterator[tuple[str, Json]]:
            self.clock.now += seconds
            return iter(())

        return self._next(self.watches, "watched", lasts)

    def _next(self, script: list[Any], counter: str, done: Callable[[Any], Any]) -> Any:
        index = getattr(self, counter)
        setattr(self, counter, index + 1)
        if index >= len(script):
            self.stop.set()
            return ([], "1") if counter == "listed" else iter(())
        step = script[index]
        if isinstance(step, Exception):
            raise step
        return done(step)


def pod(name: str) -> Json:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": "1"}}


def run(
    *,
    fault: bool,
    lists: list[list[Json] | Exception],
    watches: list[float | Exception],
) -> tuple[watching.Informer, Script]:
    stop, clock = threading.Event(), Clock()
    source = Script(stop, clock, lists=lists, watches=watches)
    informer = watching.Informer(
        name="pods",
        source=source,
        give_up=watching.GiveUp(watch_seconds=WATCH_SECONDS, clock=clock)
        if fault
        else None,
    )
    informer.run(stop)
    return informer, source


@pytest.fixture(autouse=True)
def no_retry_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watching, "RETRY_SECONDS", 0.0)


@pytest.mark.parametrize("outage", [CUT, 3.0], ids=["watch-failed", "watch-cut-short"])
def test_a_correct_informer_carries_on_after_an_outage(outage):
    _, source = run(fault=False, lists=[[pod("a")]], watches=[outage])
    # After the outage: a new list (failed watch) or a new watch (cut short).
    assert source.listed + source.watched > 2


@pytest.mark.parametrize("outage", [CUT, 3.0], ids=["watch-failed", "watch-cut-short"])
def test_no_rewatch_after_outage_freezes_the_cache(outage):
    informer, source = run(
        fault=True, lists=[[pod("a")], [pod("a"), pod("b")]], watches=[outage]
    )
    assert (source.listed, source.watched) == (1, 1)
    assert informer.get("ns/a") is not None
    assert informer.get("ns/b") is None  # never seen: no list after the outage


def test_no_rewatch_after_outage_still_retries_before_the_first_list():
    informer, source = run(fault=True, lists=[CUT, [pod("a")]], watches=[])
    assert source.listed >= 2
    assert informer.get("ns/a") is not None


def test_no_rewatch_after_outage_keeps_watching_after_a_watch_that_timed_out():
    _, source = run(fault=True, lists=[[pod("a")]], watches=[WATCH_SECONDS] * 2)
    assert source.listed == 1
    assert source.watched == 3  # two full watches, then the one that sets stop
