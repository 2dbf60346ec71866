"""How pytest-xdist hands the ordered items to its workers: one at a time.

`arranging` puts the items longest first, but xdist's `--dist load` sends the
first items in chunks of at least two to each worker in turn, so the two
longest items (e.g. both layouts of RecoveryWithStatusFinalizer, 150 s each)
went to one worker and ran one after the other while the others ran short
items. A worker always holds two items (it runs one once it knows the next), so
`Dealer` deals the first round one item per worker, longest first, and queues
the shortest items behind them; from then on each worker that finishes an item
gets the next longest (`--maxschedchunk 1`, unless the command line says
otherwise). Only the dealing changes: which items run, and their order in each
worker's collection, stay `arranging`'s.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadScheduling
from xdist.workermanage import WorkerController

LOAD = "load"
"""The `--dist` mode `Dealer` replaces (what `-n` alone means)."""


class Dealer(LoadScheduling):  # type: ignore[misc]
    """`--dist load`, dealt one item per worker in turn, longest first."""

    collection: list[str] | None
    """The workers' one collection (xdist's), None until the first round."""

    def __init__(self, config: pytest.Config, log: object | None = None) -> None:
        super().__init__(config, log)
        if config.getoption("maxschedchunk") is None:
            # After the first round, one item per finished one: the next longest.
            self.maxschedchunk = 1

    def schedule(self) -> None:
        """The first round, or xdist's own rescheduling on a later call."""
        if self.collection is not None:
            super().schedule()
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        collection = next(iter(self.node2collection.values()))
        self.collection = collection
        self.pending[:] = range(len(collection))
        if not collection:
            return
        for node in self.nodes:
            self._send_tests(node, 1)  # the longest pending item
        for node in self.nodes:
            self._send_shortest(node)
        if not self.pending:
            for node in self.nodes:
                node.shutdown()

    def _send_shortest(self, node: WorkerController) -> None:
        """Queue the last pending item (the shortest) behind the node's first one."""
        if self.pending:
            index = self.pending.pop()
            self.node2pending[node].append(index)
            node.send_runtest_some([index])


def scheduler(config: pytest.Config, log: object) -> Dealer | None:
    """The run's xdist scheduler: `Dealer` for `--dist load`, else xdist's own."""
    if config.getvalue("dist") != LOAD:
        return None
    return Dealer(config, log)
