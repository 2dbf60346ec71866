"""The chaos suite (`chaos.suite.experiments`) collected with the project's tests.

`make test` and `make kind-test` run a slice of it by this node id, so the
project's plugins (the skip gate, the heartbeat) apply; `wpc chaos run` runs the
module where it is installed.
"""

from __future__ import annotations

from chaos.suite.experiments import chaos_report  # noqa: F401
from chaos.suite.experiments import chaos_target  # noqa: F401
from chaos.suite.experiments import (  # noqa: F401
    test_the_experiment_passes_with_its_injection_verified,
)
