"""Names shared by the reference controller and executor.

These are the contract's vocabulary (container names, paths on the shared
volume, environment variables, labels, annotations, exit codes), kept in one
module so the two halves of the reference implementation cannot drift apart.
Values follow Argo Workflows v4.1.x (workflow/common/common.go); see
conformance/SPEC.md for the clauses that pin each one.
"""

from __future__ import annotations

VERSION = "0.1.0"
"""Version of the reference implementation; also its image tag (never `latest`)."""

GROUP = "argoproj.io"
API_VERSION = "argoproj.io/v1alpha1"

# Images (built locally, loaded into the node; see reference_impl/images).
EXECUTOR_IMAGE = f"wpc.local/reference/argoexec:{VERSION}"
CONTROLLER_IMAGE = f"wpc.local/reference/workflow-controller:{VERSION}"
TEST_IMAGE = f"wpc.local/testimage:{VERSION}"

# Containers.
MAIN = "main"
INIT = "init"
WAIT = "wait"
SUPERVISOR = "supervisor"
ARTIFACT_PLUGIN_PREFIX = "artifact-plugin-"
INIT_ARTIFACT_PREFIX = "init-artifact-"
RESERVED_NAMES = frozenset({MAIN, INIT, WAIT, SUPERVISOR})

# Volumes and paths.
VAR_RUN_ARGO_VOLUME = "var-run-argo"
VAR_RUN_ARGO = "/var/run/argo"
TMP_DIR_VOLUME = "tmp-dir-argo"
INPUT_ARTIFACTS_VOLUME = "input-artifacts"
INPUT_ARTIFACTS_PATH = "/argo/inputs/artifacts"
STAGING_VOLUME = "argo-staging"
STAGING_PATH = "/argo/staging"
SCRIPT_PATH = "/argo/staging/script"
MAIN_FS = "/mainctrfs"
EXECUTOR_BIN_VOLUME = "argoexec-bin"
EXECUTOR_BIN_MOUNT = "/argo-bin"
EMISSARY_LEGACY = "/var/run/argo/argoexec"
EMISSARY_INITLESS = "/argo-bin/bin/argoexec"
TEMPLATE_FILE = "/var/run/argo/template"
STATUS_MARKER = "/var/run/argo/status"
STATUS_MARKER_TMP = "/var/run/argo/status.tmp"
# Per-container files: /var/run/argo/ctr/<name>/{exitcode,signal,stdout,combined}.
CTR_DIR = "/var/run/argo/ctr"
OUTPUTS_DIR = "/var/run/argo/outputs"
PROGRESS_FILE = "/var/run/argo/progress"

# Handshake timings (seconds).
HEARTBEAT_INTERVAL = 5.0
EMISSARY_POLL_INTERVAL = 2.0
MARKER_NEVER_APPEARED = 30.0
MARKER_STALE = 30.0

# Exit codes.
EXIT_EMISSARY_ERROR = 64
EXIT_PRE_MAIN_FAILURE = 65

# Environment variables.
ENV_POD_NAME = "ARGO_POD_NAME"
ENV_POD_UID = "ARGO_POD_UID"
ENV_WORKFLOW_NAME = "ARGO_WORKFLOW_NAME"
ENV_WORKFLOW_UID = "ARGO_WORKFLOW_UID"
ENV_INSTANCE_ID = "ARGO_INSTANCE_ID"
ENV_CONTAINER_NAME = "ARGO_CONTAINER_NAME"
ENV_NODE_ID = "ARGO_NODE_ID"
ENV_INCLUDE_SCRIPT_OUTPUT = "ARGO_INCLUDE_SCRIPT_OUTPUT"
ENV_DEADLINE = "ARGO_DEADLINE"
ENV_TEMPLATE = "ARGO_TEMPLATE"
ENV_PROGRESS_FILE = "ARGO_PROGRESS_FILE"
ENV_PROGRESS_PATCH_TICK = "ARGO_PROGRESS_PATCH_TICK_DURATION"
ENV_PROGRESS_FILE_TICK = "ARGO_PROGRESS_FILE_TICK_DURATION"
ENV_GRACE_SECONDS = "ARGO_TERMINATION_GRACE_PERIOD_SECONDS"
ENV_WAIT_FOR_READY = "ARGO_WAIT_FOR_READY"
ENV_INITLESS_POD = "ARGO_INITLESS_POD"
ENV_ARTIFACT_PLUGIN_NAMES = "ARGO_ARTIFACT_PLUGIN_NAMES"

# Labels, annotations, finalizer.
LABEL_WORKFLOW = "workflows.argoproj.io/workflow"
LABEL_COMPLETED = "workflows.argoproj.io/completed"
LABEL_INSTANCE_ID = "workflows.argoproj.io/controller-instanceid"
LABEL_ON_EXIT = "workflows.argoproj.io/on-exit"
LABEL_PHASE = "workflows.argoproj.io/phase"
LABEL_REPORT_OUTPUTS_COMPLETED = "workflows.argoproj.io/report-outputs-completed"
ANNOTATION_NODE_NAME = "workflows.argoproj.io/node-name"
ANNOTATION_NODE_ID = "workflows.argoproj.io/node-id"
ANNOTATION_DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"
ANNOTATION_POD_GC_STRATEGY = "workflows.argoproj.io/pod-gc-strategy"
ANNOTATION_KILL_CMD_PREFIX = "workflows.argoproj.io/kill-cmd-"
ANNOTATION_REFERENCE_FAULT = "wpc.dev/reference-fault"
"""On the leader Lease, written by the leading controller process each time it takes or
renews the Lease: the deliberate fault it runs with (`WPC_REFERENCE_FAULT`, controller- or
executor-side; empty for none). The negative controls read it to prove the fault they judge
is active in the running process, which the Deployment's env alone does not prove."""


def default_lease_name(instance_id: str) -> str:
    """Argo's leader Lease name: `workflow-controller[-<instanceID>]`."""
    return (
        f"workflow-controller-{instance_id}" if instance_id else "workflow-controller"
    )


FINALIZER_STATUS = "workflows.argoproj.io/status"

# Controller configuration.
CONFIGMAP_NAME = "workflow-controller-configmap"
CONTROLLER_NAMESPACE = "argo"
ENV_STATUS_CAPTURE_FINALIZER = "ARGO_POD_STATUS_CAPTURE_FINALIZER"

# Reference-implementation switches shared by controller and executor (not Argo's).
ENV_REFERENCE_FAULT = "WPC_REFERENCE_FAULT"
"""Selects one deliberate fault (negative control); the controller passes it through to executor containers."""
ENV_EXECUTOR_TMPDIR = "WPC_EXECUTOR_TMPDIR"
"""Where the static executor binary may unpack itself (writable and exec-able in every container)."""
EXECUTOR_TMPDIR = "/var/run/argo"
"""The bootloaders read TMPDIR before any Python runs and mkdtemp() needs an existing parent,
so this is the emptyDir's mount point itself (`.tmp` below it would not exist yet in an
init-less main). Containers that run argoexec from a user image get TMPDIR and
WPC_EXECUTOR_TMPDIR both set to it; see reference_impl/executor/protocol.py."""
ENV_USER_TMPDIR = "WPC_USER_TMPDIR"
"""The container's own TMPDIR, moved aside by the controller; the emissary restores it."""
EXECUTOR_FAULTS = frozenset(
    {
        "never-ready",
        "exit-1-not-65",
        "slow-heartbeat",
        "no-atomic-write",
        "no-exitcode-file",
        "ignore-signal-file",
        "ignore-stale-heartbeat",
        "sidecar-sigkill-early",
        "result-reopened",
        "result-read-back",
        "late-give-up",
    }
)
"""Executor-side fault names (reference_impl/executor/faults.py, pinned by a test there);
the controller accepts them and only passes them through."""
