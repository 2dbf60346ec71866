"""Deliberate faults, so the conformance suite can prove it is able to fail.

A negative control runs the suite against a reference executor that breaks one
rule on purpose and expects the matching test to fail. One fault at a time is
chosen with the environment variable `WPC_REFERENCE_FAULT` (the controller
passes it through to every container it runs argoexec in); an empty or absent
value means "behave". An unknown name is a `ConfigError` naming the value.

| name                 | who        | the broken rule (contract section)                        |
|----------------------|------------|-----------------------------------------------------------|
| `never-ready`        | supervisor | never writes READY; keeps heartbeating RUNNING (2.3)      |
| `exit-1-not-65`      | emissary   | exits 1 (exitcode file 1) on pre-main failure, not 65 (2.3)|
| `slow-heartbeat`     | supervisor | heartbeats every 40 s instead of 5 s, so main sees it stale (2.3) |
| `no-atomic-write`    | supervisor | rewrites `status` in place (truncate + two writes), no rename (2.3) |
| `no-exitcode-file`   | emissary   | never writes `ctr/<name>/exitcode` (1.5 step 10)           |
| `ignore-signal-file` | emissary   | does not watch `ctr/<name>/signal` (1.5 step 6, 5.1)       |
| `ignore-stale-heartbeat` | emissary | never gives up on a stale RUNNING marker (2.3); chaos only |
| `sidecar-sigkill-early` | emissary | a sidecar stopping itself SIGKILLs at half the grace period (5.1) |
| `result-reopened` | aux | main failed: task result marked incomplete again, exit 64 (6) |
| `result-read-back` | aux | no result captured: GETs its task result (RBAC denies), exit 64 (6) |
| `late-give-up`       | emissary   | main that waited over 30 s for READY runs, then exits 65 (2.3) |

Faults of commission on this side are rows of `reference_impl/commission_table.py` with
executor hooks (`taskResult`, `exit`, `signals`, `messages`, `files`); `commission`
returns the row, which `ExecutorSettings.commission` carries to the places that apply
them (`files`: `files.commissioned`, called where each file is written). Each row
there carries its name, the one clause it breaks and a summary; the table is the only
list of them, so none can drift.
"""

from __future__ import annotations

import enum

from reference_impl import commission
from reference_impl import common
from reference_impl.executor.errors import ConfigError

ENV_FAULT = common.ENV_REFERENCE_FAULT

SLOW_HEARTBEAT_INTERVAL = 40.0
"""Heartbeat period under `slow-heartbeat`: beyond the 30 s staleness limit."""

EXIT_CODE_INSTEAD_OF_65 = 1
"""What `exit-1-not-65` exits with (and writes to the exitcode file)."""

EARLY_SIGKILL_FRACTION = 0.5
"""Under `sidecar-sigkill-early`, the part of the grace period a sidecar stopping itself
waits between SIGTERM and SIGKILL (WPC-KILL-003 asks for the whole of it)."""


class Fault(enum.Enum):
    """One deliberate deviation from the contract; see the module table."""

    NEVER_READY = "never-ready"
    EXIT_1_NOT_65 = "exit-1-not-65"
    SLOW_HEARTBEAT = "slow-heartbeat"
    NO_ATOMIC_WRITE = "no-atomic-write"
    NO_EXITCODE_FILE = "no-exitcode-file"
    IGNORE_SIGNAL_FILE = "ignore-signal-file"
    IGNORE_STALE_HEARTBEAT = "ignore-stale-heartbeat"
    SIDECAR_SIGKILL_EARLY = "sidecar-sigkill-early"
    RESULT_REOPENED = "result-reopened"
    RESULT_READ_BACK = "result-read-back"
    LATE_GIVE_UP = "late-give-up"


def parse(value: str | None) -> Fault | None:
    """Return the fault named by `value`, None for empty, ConfigError for unknown names."""
    if value is None or not value.strip() or commission_fault(value) is not None:
        return None
    try:
        return Fault(value.strip())
    except ValueError:
        known = ", ".join(f.value for f in Fault)
        raise ConfigError(
            f"unknown {ENV_FAULT} value {value!r}; known faults: {known}"
        ) from None


def commission_fault(value: str | None) -> commission.Fault | None:
    """The executor-side fault of commission `value` names, else None."""
    return commission.lookup(value or "", side=commission.EXECUTOR)
