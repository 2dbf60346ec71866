"""The `follow-main-by-exec` fault: main is followed through an exec session.

A chaos negative control (issue 28) for the node experiments. A controller built
this way opens one long exec session into each running `main` (as CI runners
that drive their steps through exec do) and takes a session that breaks without
an exit status for a lost container: the node's pod is dropped from its view,
so the node errors as `pod deleted`. An exec session runs through the API
server, the kubelet and the container runtime's streaming server, so restarting
the kubelet or containerd cuts it while main, and its pod, are fine: the step
fails although nothing happened to it. A session that ends with a status (main
finished, or the command does not exist in main's image) changes nothing.

Off unless the fault is selected: a correct controller never builds a follower.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from reference_impl import common
from reference_impl.controller import errors

Json = dict[str, Any]
logger = logging.getLogger(__name__)

COMMAND = ["sleep", "86400"]
"""What the session runs in main: anything that lasts as long as main does."""

Hold = Callable[[str, str, str, list[str]], bool]
"""`KubeApi.hold_exec`: True when the session ended with an exit status."""


def _main_runs(pod: Json) -> bool:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return any(
        s.get("name") == common.MAIN and (s.get("state") or {}).get("running")
        for s in statuses
    )


def _key(pod: Json) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"


def _spawn(name: str, target: Callable[[], None]) -> None:
    threading.Thread(target=target, name=name, daemon=True).start()


class MainFollower:
    """One exec session per running main; remembers the pods whose session broke."""

    def __init__(
        self,
        *,
        hold: Hold,
        on_lost: Callable[[Json], None],
        spawn: Callable[[str, Callable[[], None]], None] = _spawn,
    ) -> None:
        self._hold = hold
        self._on_lost = on_lost
        """Called with the pod whose session broke (the controller queues its workflow)."""
        self._spawn = spawn
        self._lock = threading.Lock()
        self._followed: set[str] = set()
        self._lost: set[str] = set()

    def follow(self, pod: Json) -> None:
        """Open a session into the pod's main once, when main runs (in a thread of its own)."""
        key = _key(pod)
        if not _main_runs(pod) or (pod.get("metadata") or {}).get("deletionTimestamp"):
            return
        with self._lock:
            if key in self._followed:
                return
            self._followed.add(key)
        self._spawn(f"follow-{key}", lambda: self._session(pod))

    def lost(self, pod: Json) -> bool:
        """Whether this pod's session broke (its node is then taken for lost)."""
        with self._lock:
            return _key(pod) in self._lost

    def _session(self, pod: Json) -> None:
        meta = pod["metadata"]
        try:
            ended = self._hold(meta["namespace"], meta["name"], common.MAIN, COMMAND)
        except errors.ApiError as err:
            logger.info("[%s] Cannot follow main: %s", _key(pod), err)
            return
        if ended:
            return
        logger.error(
            "[%s] The exec session into main broke: main is taken for lost "
            "(fault follow-main-by-exec).",
            _key(pod),
        )
        with self._lock:
            self._lost.add(_key(pod))
        self._on_lost(pod)
