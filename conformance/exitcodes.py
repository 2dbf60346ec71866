"""WPC's own exit codes, distinct from pytest's 0-5 (`pytest.ExitCode`).

`wpc run` / `python -m conformance run` exits with pytest's code once the suite
ran (0 all passed, 1 some failed, 2 interrupted, 3 internal error, 4 usage
error, 5 no tests collected), and with one of these when it stopped first.
`diff` exits 0, REGRESSION, or INVALID_INPUT for a file that is not a report;
`qualify` exits 0, REGRESSION (one that did not flip on rerun), INVALID_INPUT,
or PREPARE_FAILED when a run left no report;
`layout-diff`, `merge` (shards of different runs, a shard twice or missing)
and `bench-suite` exit 0 or INVALID_INPUT;
`history` (the listing) exits 0 or INVALID_INPUT; `history run` exits 0 (every
fix run was caught), NOT_CAUGHT, PREPARE_FAILED (a fix could not be judged: a
run left no report, its scenario errored or ran in no layout) or INVALID_INPUT;
`differential` exits 0, DIFFERENT, or one of the codes above for a run that
could not start (CLUSTER_REFUSED also when another controller serves one of
its instance IDs).
`stability` exits 0, UNSTABLE, pytest's 1 when an item failed in every run, or
INVALID_INPUT (reports of different runs); `run --repeat N` and `chaos run
--repeat N` exit with the status of the run they stopped at (interrupted: 2),
else UNSTABLE, else the first non-zero status of a run, else 0.
The README's "Exit codes" table mirrors this module.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """Why a WPC command stopped before (or instead of) running the suite."""

    INVALID_INPUT = 10
    """An option, the implementation, its profile, the provider, layout or
    features are invalid; found before any host change or cluster build."""
    CLUSTER_FAILED = 11
    """`clusters up` could not bring the cluster up."""
    PREPARE_FAILED = 12
    """The run could not be prepared: images, the profile's prepare or install
    commands, or the cluster's fingerprint failed."""
    CLUSTER_REFUSED = 13
    """The cluster lacks WPC's marker (see --allow-foreign-cluster), a controller
    the run did not install serves one of its instance IDs, or another run holds
    one (the message names the owner and the command that removes it)."""
    REGRESSION = 14
    """`diff`, `qualify`: something that passed in the old report fails (or errors) in the new."""
    DIFFERENT = 15
    """`differential`: a corpus workflow differs between the two implementations (or
    did not complete on either), and the known-differences file does not list it."""
    NOT_CAUGHT = 16
    """`history run`: an upstream fix's scenario passed on the tag with the bug
    (missed) or failed on the tag with the fix (broken-after)."""
    UNSTABLE = 17
    """`stability`, `run --repeat`, `chaos run --repeat`: an item's outcome differs
    between runs of the same code and selection (it flipped)."""
