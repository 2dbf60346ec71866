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

Faults of commission on this side are rows of `reference_impl/commission_table.py` with
executor hooks (`taskResult`, `exit`, `signals`, `messages`, `files`); `commission`
returns the row, which `ExecutorSettings.commission` carries to the places that apply
them (`files`: `files.commissioned`, called where each file is written):

| name                    | clause            | what is wrong                                   |
|-------------------------|-------------------|-------------------------------------------------|
| `result-no-owner`       | WPC-RESULT-002    | task results created without an ownerReference  |
| `result-param-altered`  | WPC-RESULT-004    | output parameter values reported with a suffix  |
| `result-keeps-newline`  | WPC-STATUS-011    | outputs.result keeps stdout's trailing newline  |
| `signal-exit-unshifted` | WPC-EMISSARY-002  | killed by signal N, the emissary exits N        |
| `supervisor-exits-one`  | WPC-HANDSHAKE-011 | after a pre-main failure the supervisor exits 1 |
| `forward-term-as-int`   | WPC-EMISSARY-004  | a caught SIGTERM is forwarded as SIGINT         |
| `sidecar-stop-sigint`   | WPC-KILL-002      | a sidecar is stopped with SIGINT, not SIGTERM   |
| `kill-command-sigint`   | WPC-KILL-007      | `argoexec kill 15 <pid>` sends SIGINT           |
| `ready-marker-spaced`   | WPC-HANDSHAKE-001 | READY written with a space before its newline   |
| `cause-unprefixed`      | WPC-HANDSHAKE-005 | a pre-main cause without its failing step       |
| `path-lookup-wording`   | WPC-EMISSARY-003  | `command not found in PATH: ...`                |
| `marker-absent-wording` | WPC-HANDSHAKE-007 | no marker: `no status marker after 30s`         |
| `marker-stale-wording`  | WPC-HANDSHAKE-008 | stale marker: `status marker stale for 30s`     |
| `ctr-dir-mode-755`      | WPC-EMISSARY-001  | ctr/<c>/ left with mode 0755                    |
| `stdout-newline-dropped`| WPC-EMISSARY-006  | ctr/<c>/stdout loses its last newline           |
| `param-copy-altered`    | WPC-EMISSARY-007  | main's parameter copies get a suffix            |
| `termination-overwritten`| WPC-EMISSARY-008 | main's own termination message overwritten      |
| `template-owner-only`   | WPC-LEGACY-007    | /var/run/argo/template written 0600             |
| `artifact-line-appended`| WPC-POD-012       | a file input artifact gets one more line        |
| `artifact-link-tmp`     | WPC-INITLESS-008  | an artifact's path links to `<name>.tmp`        |
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


class Fault(enum.Enum):
    """One deliberate deviation from the contract; see the module table."""

    NEVER_READY = "never-ready"
    EXIT_1_NOT_65 = "exit-1-not-65"
    SLOW_HEARTBEAT = "slow-heartbeat"
    NO_ATOMIC_WRITE = "no-atomic-write"
    NO_EXITCODE_FILE = "no-exitcode-file"
    IGNORE_SIGNAL_FILE = "ignore-signal-file"
    IGNORE_STALE_HEARTBEAT = "ignore-stale-heartbeat"


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
