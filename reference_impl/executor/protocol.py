r"""The file and signal protocol between controller, supervisor/wait and emissary.

Written once, here (mirrored in conformance/SPEC.md). All paths live on the
`var-run-argo` emptyDir that every container of a workflow pod mounts at
`/var/run/argo`; Argo v4.1.x semantics (argo-pod-contract.md sections 1.5,
2.3, 5.1, 6).

Files
    /var/run/argo/argoexec          the executor's static launcher, copied by `init` (0555);
                                    legacy layout only (init-less mains run
                                    /argo-bin/bin/argoexec from the image volume)
    /var/run/argo/argoexec.bundle/  the interpreter and modules it runs, copied by `init`
                                    before the launcher (`launching`); not Argo's
    /var/run/argo/template          the template JSON (0444), written by init/supervisor
    /var/run/argo/status            init-less handshake marker, written only by the
                                    supervisor, always atomically: `status.tmp` then rename
    /var/run/argo/ctr/<c>/          made (0777) by the emissary of container <c> when it
                                    starts: "I have started"
    /var/run/argo/ctr/<c>/exitcode  decimal exit code, written by <c>'s emissary on every exit
    /var/run/argo/ctr/<c>/signal    a decimal signal number; anyone may write it (0666), the
                                    emissary of <c> removes it and signals its child
    /var/run/argo/ctr/<c>/stdout    the child's stdout   } only when ARGO_INCLUDE_SCRIPT_OUTPUT
    /var/run/argo/ctr/<c>/combined  stdout + stderr      } is "true"
    /var/run/argo/outputs/parameters/<path>      main's copy of outputs.parameters[].valueFrom.path
    /var/run/argo/outputs/artifacts/<path>.tgz   main's tar.gz of outputs.artifacts[].path
    /argo/inputs/artifacts/<name>   input artifacts, downloaded by init/supervisor
    /argo/staging/script            script source (0755), staged by init/supervisor
    /dev/termination-log            the first error of a failing executor process

Status marker (init-less)
    Body is exactly `RUNNING\n`, `READY\n` or `FAILED\n<message>`. The supervisor
    writes RUNNING at once and every 5 s (heartbeat), then READY or FAILED once.
    An emissary started with ARGO_WAIT_FOR_READY=true polls it (every 2 s, sooner
    on inotify events) and decides:
        READY                                   -> run the command
        FAILED                                  -> `supervisor reported pre-main failure: <msg>`
        absent 30 s after the wait started      -> `supervisor presumed dead: status marker
                                                   never appeared within 30s`
        RUNNING/partial with mtime 30 s old     -> `supervisor presumed dead: no status
                                                   update within 30s`
    Each failure: exitcode file 65, exit 65, termination message = the error.
    After READY only `main` symlinks each input artifact `<path>` ->
    `/argo/inputs/artifacts/<name>` and re-enters its working directory.

Signals
    The emissary forwards every signal it receives to its child. A kill by file
    (wait/supervisor deadline monitor, sidecars killing themselves once every main
    container has an exitcode) writes 15, waits the grace period
    (ARGO_TERMINATION_GRACE_PERIOD_SECONDS, else 30 s) for `exitcode`, then
    writes 9 and waits up to 10 s more.

Exit codes
    child's own code (128 + N if signal N ended it); 64 emissary/executor error;
    65 init-less pre-main failure.

Executor start-up and temp directory (packaging, not Argo)
    argoexec is a static launcher beside an unpacked bundle: nothing is extracted
    at start. The launcher blocks signals from its first instruction; the
    executor unblocks them once its handlers exist, so a signal that arrives
    during start-up is handled then (the emissary forwards it to its child once
    the child exists), never fatal (`launching`). The controller still sets
    TMPDIR=/var/run/argo plus WPC_EXECUTOR_TMPDIR=/var/run/argo (marker: "TMPDIR
    was set for the executor") on containers that run the emissary, and moves a
    TMPDIR the user declared to WPC_USER_TMPDIR; the bundle no longer needs it.
    The emissary gives its child the environment it would have had without any
    of this (`environment.user_environment`, `launching.adopt`).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from reference_impl import common

EXITCODE = "exitcode"
SIGNAL = "signal"
STDOUT = "stdout"
COMBINED = "combined"
TERMINATION_LOG = "/dev/termination-log"
OFFLOADED = "offloaded"
"""The value of ARGO_TEMPLATE when the template lives in a ConfigMap file instead."""
OFFLOADED_TEMPLATE = "/argo/config/ARGO_TEMPLATE"
RESOURCE_MANIFEST = (
    "/tmp/manifest.yaml"  # the contract's path, on the executor's own /tmp
)
SECRETS = "/argo/secret"
TMP_OUTPUT_ARTIFACTS = "/tmp/argo/outputs/artifacts"  # wait's private /tmp


@dataclass(frozen=True)
class Paths:
    """Every path of the protocol, below a filesystem root.

    The root is `/` in a pod; unit tests point it at a temporary directory, so
    the same code runs against a fake pod filesystem.
    """

    root: Path = Path("/")

    def at(self, absolute: str) -> Path:
        """Map an absolute in-container path below the root."""
        return self.root / absolute.lstrip("/")

    @property
    def var_run_argo(self) -> Path:
        """The shared emptyDir."""
        return self.at(common.VAR_RUN_ARGO)

    @property
    def executor_copy(self) -> Path:
        """Where `init` copies the executor binary."""
        return self.at(common.EMISSARY_LEGACY)

    @property
    def template(self) -> Path:
        """The template JSON written by init/supervisor."""
        return self.at(common.TEMPLATE_FILE)

    @property
    def offloaded_template(self) -> Path:
        """The template when ARGO_TEMPLATE says `offloaded`."""
        return self.at(OFFLOADED_TEMPLATE)

    @property
    def status(self) -> Path:
        """The init-less status marker."""
        return self.at(common.STATUS_MARKER)

    @property
    def status_tmp(self) -> Path:
        """The temporary file renamed onto the status marker."""
        return self.at(common.STATUS_MARKER_TMP)

    def ctr(self, container: str) -> Path:
        """The per-container directory."""
        return self.at(common.CTR_DIR) / container

    def exitcode(self, container: str) -> Path:
        """The container's exit-code file."""
        return self.ctr(container) / EXITCODE

    def signal(self, container: str) -> Path:
        """The container's signal file."""
        return self.ctr(container) / SIGNAL

    def stdout(self, container: str) -> Path:
        """The captured stdout of the container's child."""
        return self.ctr(container) / STDOUT

    def combined(self, container: str) -> Path:
        """The captured stdout + stderr of the container's child."""
        return self.ctr(container) / COMBINED

    def output_parameter(self, path: str) -> Path:
        """Where main copies the output parameter found at `path`."""
        return self.at(common.OUTPUTS_DIR) / "parameters" / path.lstrip("/")

    def output_artifact(self, path: str) -> Path:
        """Where main writes the tar.gz of the output artifact at `path`."""
        return self.at(common.OUTPUTS_DIR) / "artifacts" / (path.strip("/") + ".tgz")

    def input_artifact(self, name: str) -> Path:
        """Where init/supervisor downloads the input artifact `name`."""
        return self.at(common.INPUT_ARTIFACTS_PATH) / name

    @property
    def script(self) -> Path:
        """The staged script source."""
        return self.at(common.SCRIPT_PATH)

    @property
    def resource_manifest(self) -> Path:
        """The staged resource manifest."""
        return self.at(RESOURCE_MANIFEST)

    def main_fs(self, path: str) -> Path:
        """Main's volume mounts as mirrored into init/wait at /mainctrfs."""
        return self.at(common.MAIN_FS) / path.lstrip("/")

    def secret(self, name: str, key: str) -> Path:
        """A key of a Secret mounted for artifact credentials."""
        return self.at(SECRETS) / name / key

    @property
    def tmp_output_artifacts(self) -> Path:
        """Wait's private staging directory for uploads."""
        return self.at(TMP_OUTPUT_ARTIFACTS)

    @property
    def termination_log(self) -> Path:
        """The kubelet's termination-message file."""
        return self.at(TERMINATION_LOG)


def make_ctr_dir(paths: Paths, container: str) -> Path:
    """Create `ctr/` and `ctr/<container>/` writable by every user (0777).

    Containers of one pod may run as different users, and any of them may
    write another's signal file. Upstream gets 0777 by setting umask 0 for the
    whole emissary, which its child then inherits; chmod-ing the two
    directories keeps the user's umask untouched.
    """
    ctr = paths.ctr(container)
    ctr.mkdir(parents=True, exist_ok=True)
    for directory in (ctr.parent, ctr):
        with contextlib.suppress(
            PermissionError
        ):  # made by another user: theirs to set
            os.chmod(directory, 0o777)
    return ctr
