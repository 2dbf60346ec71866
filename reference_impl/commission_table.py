"""The faults of commission: one row each, checked and applied by `commission`.

Each row: `name` (the `WPC_REFERENCE_FAULT` value), `clause` (the one clause it breaks),
`summary` (what goes wrong), and exactly one side's hooks (`pod`, `status`, `cleanup`,
`ignoreSignals` on the controller; `taskResult`, `exit`, `signals`, `messages` on the
executor). tests/negative/controls.yaml has a row for each naming the suite tests that
must catch it. Kept apart from `commission` so
that this file is only data.
`summary` (what goes wrong), and exactly one side's hooks (`pod`, `status` on the
controller; `taskResult`, `exit`, `signals`, `messages`, `files` on the executor).
tests/negative/controls.yaml has a row for each naming the suite tests that must catch
it. Kept apart from `commission` so that this file is only data.
"""

from __future__ import annotations

from typing import Any

_CONTAINERS = "spec/containers"
_INITS = "spec/initContainers"
_ANNOTATIONS = "metadata/annotations"
_INPUTS_MOUNT = "[name=input-artifacts,mountPath=/argo/inputs/artifacts]"
"""The whole input-artifacts volume at its init-less path (WPC-INITLESS-008)."""
_SIDECAR_FAILURE = (
    r"^(?!(?:main|init|wait|supervisor): )[a-z0-9][a-z0-9-]*: (\S+ \(exit code \d+\))"
)
"""`<sidecar>: <Reason> (exit code N)`: a container message that is not an Argo
container's or main's (WPC-STATUS-006)."""

TABLE: list[dict[str, Any]] = [
    # -- pod: metadata --------------------------------------------------------------------
    {
        "name": "default-container-aux",
        "clause": "WPC-POD-002",
        "summary": "kubectl's default-container annotation names the aux container, not main",
        "pod": [
            {
                "op": "replace",
                "path": f"{_ANNOTATIONS}/kubectl.kubernetes.io~1default-container",
                "value": "wait",
                "layouts": ["legacy"],
            },
            {
                "op": "replace",
                "path": f"{_ANNOTATIONS}/kubectl.kubernetes.io~1default-container",
                "value": "supervisor",
                "layouts": ["initless"],
            },
        ],
    },
    {
        "name": "hour-long-pod-deadline",
        "clause": "WPC-POD-009",
        "summary": "every pod gets activeDeadlineSeconds 3600, whatever its template and workflow say",
        "pod": [{"op": "add", "path": "spec/activeDeadlineSeconds", "value": 3600}],
    },
    {
        "name": "pod-gc-delay-zero",
        "clause": "WPC-POD-010",
        "summary": "the pod-gc-strategy annotation always gives the delay as 0s",
        "pod": [
            {
                "op": "sub",
                "path": f"{_ANNOTATIONS}/workflows.argoproj.io~1pod-gc-strategy",
                "pattern": "^([^/]*)/.*$",
                "replacement": r"\1/0s",
            }
        ],
    },
    # -- pod: environment -----------------------------------------------------------------
    {
        "name": "script-output-env-caps",
        "clause": "WPC-POD-005",
        "summary": "user init containers get ARGO_INCLUDE_SCRIPT_OUTPUT=False (not a lower-case boolean)",
        "pod": [
            {
                "op": "replace",
                "path": f"{_INITS}/[name!=init]/env/[name=ARGO_INCLUDE_SCRIPT_OUTPUT]/value",
                "value": "False",
            }
        ],
    },
    {
        "name": "pod-uid-from-name",
        "clause": "WPC-POD-006",
        "summary": "the executor containers' ARGO_POD_UID is a field reference to metadata.name",
        "pod": [
            {
                "op": "replace",
                "path": f"{_CONTAINERS}/[name=wait]/env/[name=ARGO_POD_UID]/valueFrom/fieldRef/fieldPath",
                "value": "metadata.name",
            },
            {
                "op": "replace",
                "path": f"{_CONTAINERS}/[name=supervisor]/env/[name=ARGO_POD_UID]/valueFrom/fieldRef/fieldPath",
                "value": "metadata.name",
            },
        ],
    },
    {
        "name": "main-grace-env-plus-one",
        "clause": "WPC-POD-007",
        "summary": "main's ARGO_TERMINATION_GRACE_PERIOD_SECONDS is one more than the pod's grace period",
        "pod": [
            {
                "op": "sub",
                "path": f"{_CONTAINERS}/[name=main]/env/[name=ARGO_TERMINATION_GRACE_PERIOD_SECONDS]/value",
                "pattern": "^7$",
                "replacement": "8",
            }
        ],
    },
    {
        "name": "script-volume-renamed",
        "clause": "WPC-POD-011",
        "summary": "the script staging emptyDir is named argo-script, not argo-staging",
        "pod": [
            {
                "op": "replace",
                "path": "spec/volumes/[name=argo-staging]/name",
                "value": "argo-script",
            },
            {
                "op": "replace",
                "path": f"{_CONTAINERS}/*/volumeMounts/[name=argo-staging]/name",
                "value": "argo-script",
            },
            {
                "op": "replace",
                "path": f"{_INITS}/*/volumeMounts/[name=argo-staging]/name",
                "value": "argo-script",
            },
        ],
    },
    # -- pod: legacy layout ---------------------------------------------------------------
    {
        "name": "argo-init-runs-last",
        "clause": "WPC-LEGACY-001",
        "summary": "legacy: the init container runs after the template's own init containers",
        "pod": [
            {"op": "move-last", "path": f"{_INITS}/[name=init]", "layouts": ["legacy"]}
        ],
    },
    {
        "name": "wait-tmp-subpath-named",
        "clause": "WPC-LEGACY-003",
        "summary": "legacy: wait mounts tmp-dir-argo at /tmp with subPath `wait`, not its index",
        "pod": [
            {
                "op": "replace",
                "path": f"{_CONTAINERS}/[name=wait]/volumeMounts/[mountPath=/tmp]/subPath",
                "value": "wait",
            }
        ],
    },
    {
        "name": "template-env-on-wait",
        "clause": "WPC-LEGACY-005",
        "summary": "legacy: wait carries ARGO_TEMPLATE too (a copy of init's)",
        "pod": [
            {
                "op": "copy",
                "from": f"{_INITS}/[name=init]/env/[name=ARGO_TEMPLATE]",
                "path": f"{_CONTAINERS}/[name=wait]/env/-",
                "layouts": ["legacy"],
            }
        ],
    },
    {
        "name": "legacy-ready-env-false",
        "clause": "WPC-LEGACY-006",
        "summary": "legacy: main carries ARGO_WAIT_FOR_READY=false",
        "pod": [
            {
                "op": "add",
                "path": f"{_CONTAINERS}/[name=main]/env/-",
                "value": {"name": "ARGO_WAIT_FOR_READY", "value": "false"},
                "layouts": ["legacy"],
            }
        ],
    },
    # -- pod: init-less layout ------------------------------------------------------------
    {
        "name": "initless-pod-env-one",
        "clause": "WPC-INITLESS-002",
        "summary": "init-less: the supervisor's ARGO_INITLESS_POD is 1, not true",
        "pod": [
            {
                "op": "replace",
                "path": f"{_CONTAINERS}/[name=supervisor]/env/[name=ARGO_INITLESS_POD]/value",
                "value": "1",
            }
        ],
    },
    {
        "name": "argoexec-bin-pull-never",
        "clause": "WPC-INITLESS-003",
        "summary": "init-less: the argoexec-bin image volume's pull policy is Never, not the executor's",
        "pod": [
            {
                "op": "replace",
                "path": "spec/volumes/[name=argoexec-bin]/image/pullPolicy",
                "value": "Never",
            }
        ],
    },
    # -- status: node and workflow messages -----------------------------------------------
    {
        "name": "exit-status-wording",
        "clause": "WPC-STATUS-003",
        "summary": "failed container messages say `(exit status N)`, not `(exit code N)`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"\(exit code (\d+)\)",
                "replacement": r"(exit status \1)",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"\(exit code (\d+)\)",
                "replacement": r"(exit status \1)",
            },
        ],
    },
    {
        "name": "child-failed-unquoted",
        "clause": "WPC-STATUS-009",
        "summary": "a failed steps or DAG node says `child <id> failed`, without the quotes",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^child '([^']*)' failed$",
                "replacement": r"child \1 failed",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"^child '([^']*)' failed$",
                "replacement": r"child \1 failed",
            },
        ],
    },
    {
        "name": "retries-exhausted-msg",
        "clause": "WPC-STATUS-016",
        "summary": "a retry node whose attempts are used up says `retries exhausted`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^No more retries left$",
                "replacement": "retries exhausted",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"^No more retries left$",
                "replacement": "retries exhausted",
            },
        ],
    },
    {
        "name": "stopped-unquoted",
        "clause": "WPC-STATUS-014",
        "summary": "a shut-down workflow says `Stopped with strategy <S>`, without the quotes",
        "status": [
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"^Stopped with strategy '([^']*)'$",
                "replacement": r"Stopped with strategy \1",
            },
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^Stopped with strategy '([^']*)'$",
                "replacement": r"Stopped with strategy \1",
            },
        ],
    },
    {
        "name": "entrypoint-missing-msg",
        "clause": "WPC-VALIDATE-004",
        "summary": "a workflow without an entrypoint says `spec.entrypoint is missing`",
        "status": [
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"spec\.entrypoint is required$",
                "replacement": "spec.entrypoint is missing",
            }
        ],
    },
    {
        "name": "reserved-sidecar-msg",
        "clause": "WPC-VALIDATE-002",
        "summary": "a sidecar with a reserved name is rejected as `a name Argo uses`",
        "status": [
            {
                "target": "workflow",
                "field": "message",
                "pattern": r'(\.sidecars: "[^"]*") is a reserved Argo container name$',
                "replacement": r"\1 is a name Argo uses",
            }
        ],
    },
    {
        "name": "reserved-member-wording",
        "clause": "WPC-VALIDATE-003",
        "summary": "a containerSet member with a reserved name is rejected as `a name Argo uses`",
        "status": [
            {
                "target": "workflow",
                "field": "message",
                "pattern": r'(\.containerSet\.containers: "[^"]*") is a reserved Argo container name$',
                "replacement": r"\1 is a name Argo uses",
            }
        ],
    },
    {
        "name": "lookup-failure-wording",
        "clause": "WPC-VALIDATE-007",
        "summary": "an image whose entrypoint cannot be looked up fails with `cannot find entrypoint/cmd`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^failed to look-up entrypoint/cmd",
                "replacement": "cannot find entrypoint/cmd",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"^failed to look-up entrypoint/cmd",
                "replacement": "cannot find entrypoint/cmd",
            },
        ],
    },
    # -- pod: instance, labels, mounts (second batch) -------------------------------------
    {
        "name": "init-instance-env-wrong",
        "clause": "WPC-INSTANCE-001",
        "summary": "legacy: init's ARGO_INSTANCE_ID names another instance (init writes no task result)",
        "pod": [
            {
                "op": "replace",
                "path": f"{_INITS}/[name=init]/env/[name=ARGO_INSTANCE_ID]/value",
                "value": "wpc-another-instance",
                "layouts": ["legacy"],
            }
        ],
    },
    {
        "name": "on-exit-label-capital",
        "clause": "WPC-POD-001",
        "summary": "an onExit handler's pod is labelled on-exit: True, not true",
        "pod": [
            {
                "op": "replace",
                "path": "metadata/labels/workflows.argoproj.io~1on-exit",
                "value": "True",
            }
        ],
    },
    {
        "name": "argoexec-bin-writable",
        "clause": "WPC-INITLESS-004",
        "summary": "init-less: wrapped containers mount argoexec-bin read-write at /argo-bin",
        "pod": [
            {
                "op": "replace",
                "path": f"{_CONTAINERS}/*/volumeMounts/[name=argoexec-bin,mountPath=/argo-bin]/readOnly",
                "value": False,
                "layouts": ["initless"],
            }
        ],
    },
    # -- status (second batch) ------------------------------------------------------------
    {
        "name": "pod-deadline-wording",
        "clause": "WPC-STATUS-012",
        "summary": "a pod past its template deadline fails with `Pod exceeded its active deadline`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"Pod was active on the node longer than the specified deadline",
                "replacement": "Pod exceeded its active deadline",
            }
        ],
    },
    {
        "name": "step-deadline-wording",
        "clause": "WPC-STATUS-013",
        "summary": "a node without a pod at the workflow deadline says `Step deadline exceeded`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^Step exceeded its deadline$",
                "replacement": "Step deadline exceeded",
            }
        ],
    },
    {
        "name": "backoff-limit-wording",
        "clause": "WPC-STATUS-021",
        "summary": "retries ended by maxDuration say `Backoff exceeds maxDuration`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^Backoff would exceed max duration limit$",
                "replacement": "Backoff exceeds maxDuration",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"^Backoff would exceed max duration limit$",
                "replacement": "Backoff exceeds maxDuration",
            },
        ],
    },
    {
        "name": "init-failure-unprefixed",
        "clause": "WPC-STATUS-004",
        "summary": "legacy: a failed init container's node message lacks the `init: ` prefix",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^init: ",
                "replacement": "",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"^init: ",
                "replacement": "",
            },
        ],
    },
    {
        "name": "killed-aux-unnamed",
        "clause": "WPC-RECOVERY-007",
        "summary": "a node whose wait/supervisor was killed (137) or could not start (128) omits its name",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^(?:wait|supervisor): (\S+ \(exit code 1(?:37|28)\))",
                "replacement": r"\1",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"^(?:wait|supervisor): (\S+ \(exit code 1(?:37|28)\))",
                "replacement": r"\1",
            },
        ],
    },
    {
        "name": "exit-code-output-zero",
        "clause": "WPC-RESULT-005",
        "summary": "a node's outputs.exitCode is 0 whatever main exited with",
        "status": [
            {
                "target": "nodes",
                "field": "outputs.exitCode",
                "pattern": r"^\d+$",
                "replacement": "0",
            }
        ],
    },
    # -- pod and status (third batch) -----------------------------------------------------
    {
        "name": "emissary-path-doubled",
        "clause": "WPC-LEGACY-004",
        "summary": "legacy: wrapped containers run /var/run/argo//argoexec (a doubled slash)",
        "pod": [
            {
                "op": "sub",
                "path": f"{_CONTAINERS}/*/command/0",
                "pattern": "^/var/run/argo/argoexec$",
                "replacement": "/var/run/argo//argoexec",
                "layouts": ["legacy"],
            }
        ],
    },
    {
        "name": "user-annotations-lost",
        "clause": "WPC-POD-004",
        "summary": "annotations from spec.podMetadata and template.metadata never reach the pod",
        "pod": [
            {
                "op": "remove-keys",
                "path": "metadata/annotations",
                "pattern": r"^(?!workflows\.argoproj\.io/|kubectl\.kubernetes\.io/)",
            }
        ],
    },
    {
        "name": "main-resources-dropped",
        "clause": "WPC-POD-008",
        "summary": "main loses its resources, so a podSpecPatch setting them has no effect",
        "pod": [{"op": "remove", "path": f"{_CONTAINERS}/[name=main]/resources"}],
    },
    {
        "name": "no-finalizer-at-create",
        "clause": "WPC-FINALIZER-001",
        "summary": "pods are created without the status finalizer even when it is enabled",
        "pod": [{"op": "remove", "path": "metadata/finalizers"}],
    },
    {
        "name": "sidecar-failure-unnamed",
        "clause": "WPC-STATUS-006",
        "summary": "a node failed by a sidecar's exit omits the sidecar's name",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": _SIDECAR_FAILURE,
                "replacement": r"\1",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": _SIDECAR_FAILURE,
                "replacement": r"\1",
            },
        ],
    },
    {
        "name": "invalid-spec-unprefixed",
        "clause": "WPC-VALIDATE-001",
        "summary": "a workflow failing validation says `invalid workflow: `, not `invalid spec: `",
        "status": [
            {
                "target": "workflow",
                "field": "message",
                "pattern": "^invalid spec: ",
                "replacement": "invalid workflow: ",
            },
            {
                "target": "nodes",
                "field": "message",
                "pattern": "^invalid spec: ",
                "replacement": "invalid workflow: ",
            },
        ],
    },
    # -- controller, batch 4 (issue 11) ---------------------------------------------------
    {
        "name": "main-instance-env",
        "clause": "WPC-INSTANCE-003",
        "summary": "main gets ARGO_INSTANCE_ID (of no instance), even from a controller without instanceID",
        "pod": [
            {
                "op": "add",
                "path": f"{_CONTAINERS}/[name=main]/env/-",
                "value": {"name": "ARGO_INSTANCE_ID", "value": "wpc-stray-instance"},
            }
        ],
    },
    {
        "name": "succeeded-node-message",
        "clause": "WPC-STATUS-002",
        "summary": "a Succeeded pod node gets the message `Completed`, not an empty one",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": "^$",
                "replacement": "Completed",
                "when": {"type": "Pod", "phase": "Succeeded"},
                "absent": True,
            }
        ],
    },
    {
        "name": "init-inputs-path-slash",
        "clause": "WPC-LEGACY-008",
        "summary": "legacy: init mounts input-artifacts at /argo/inputs/artifacts/ (a trailing slash)",
        "pod": [
            {
                "op": "sub",
                "path": f"{_INITS}/[name=init]/volumeMounts/[name=input-artifacts]/mountPath",
                "pattern": "^/argo/inputs/artifacts$",
                "replacement": "/argo/inputs/artifacts/",
                "layouts": ["legacy"],
            }
        ],
    },
    {
        "name": "main-inputs-read-only",
        "clause": "WPC-INITLESS-008",
        "summary": "init-less: main mounts the input-artifacts volume read-only",
        "pod": [
            {
                "op": "add",
                "path": f"{_CONTAINERS}/[name=main]/volumeMounts/{_INPUTS_MOUNT}/readOnly",
                "value": True,
                "layouts": ["initless"],
            }
        ],
    },
    {
        "name": "finalizers-all-dropped",
        "clause": "WPC-FINALIZER-008",
        "summary": "removing the status finalizer, the controller drops every other finalizer too",
        "cleanup": [{"op": "replace", "path": "metadata/finalizers", "value": []}],
    },
    {
        "name": "status-finalizer-kept",
        "clause": "WPC-FINALIZER-003",
        "summary": "cleaning a completed pod up, the controller labels it but keeps the status finalizer",
        "cleanup": [{"op": "remove", "path": "metadata/finalizers"}],
    },
    {
        "name": "controller-ignores-term",
        "clause": "WPC-RECOVERY-011",
        "summary": "the controller ignores SIGTERM, so a graceful stop ends only in SIGKILL",
        "ignoreSignals": [15],
    },
    {
        "name": "pod-deleted-reworded",
        "clause": "WPC-STATUS-007",
        "summary": "a node whose pod vanished says `pod was deleted`, not `pod deleted`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^pod deleted$",
                "replacement": "pod was deleted",
            }
        ],
    },
    # -- executor: task results -----------------------------------------------------------
    {
        "name": "result-no-owner",
        "clause": "WPC-RESULT-002",
        "summary": "task results are created without their ownerReference to the Workflow",
        "taskResult": [{"op": "remove", "path": "metadata/ownerReferences"}],
    },
    {
        "name": "result-param-altered",
        "clause": "WPC-RESULT-004",
        "summary": "every output parameter value is reported with `-altered` appended",
        "taskResult": [
            {
                "op": "sub",
                "path": "outputs/parameters/*/value",
                "pattern": r"\Z",
                "replacement": "-altered",
            }
        ],
    },
    {
        "name": "result-keeps-newline",
        "clause": "WPC-STATUS-011",
        "summary": "outputs.result keeps the trailing newline of stdout",
        "taskResult": [
            {
                "op": "sub",
                "path": "outputs/result",
                "pattern": r"\Z",
                "replacement": "\n",
            }
        ],
    },
    # -- executor: exit codes -------------------------------------------------------------
    {
        "name": "signal-exit-unshifted",
        "clause": "WPC-EMISSARY-002",
        "summary": "a command killed by SIGTERM or SIGKILL makes its container exit 15 or 9",
        "exit": [{"from": 143, "to": 15}, {"from": 137, "to": 9}],
    },
    {
        "name": "supervisor-exits-one",
        "clause": "WPC-HANDSHAKE-011",
        "summary": "the supervisor exits 1, not 64, after an error (a pre-main failure)",
        "exit": [{"from": 64, "to": 1, "containers": ["supervisor"]}],
    },
    # -- executor: signals ----------------------------------------------------------------
    {
        "name": "forward-term-as-int",
        "clause": "WPC-EMISSARY-004",
        "summary": "the emissary forwards a SIGTERM it catches as SIGINT",
        "signals": [{"at": "forward", "from": 15, "to": 2}],
    },
    {
        "name": "sidecar-stop-sigint",
        "clause": "WPC-KILL-002",
        "summary": "a template sidecar stops itself with SIGINT once main is done",
        "signals": [{"at": "sidecar", "from": 15, "to": 2}],
    },
    {
        "name": "kill-command-sigint",
        "clause": "WPC-KILL-007",
        "summary": "`argoexec kill 15 <pid>` sends SIGINT",
        "signals": [{"at": "kill", "from": 15, "to": 2}],
    },
    # -- executor: marker and termination messages ----------------------------------------
    {
        "name": "ready-marker-spaced",
        "clause": "WPC-HANDSHAKE-001",
        "summary": "the supervisor writes `READY \\n` (a space before the newline)",
        "messages": [
            {"file": "marker", "pattern": r"^READY\n$", "replacement": "READY \n"}
        ],
    },
    {
        "name": "cause-unprefixed",
        "clause": "WPC-HANDSHAKE-005",
        "summary": "a pre-main input-artifact failure's cause lacks its failing step",
        "messages": [
            {
                "file": "marker",
                "pattern": r"^(FAILED\n)failed to load (?:non-plugin |plugin )?input artifacts: ",
                "replacement": r"\1",
            },
            {
                "file": "termination",
                "pattern": r"^failed to load (?:non-plugin |plugin )?input artifacts: ",
                "replacement": "",
            },
        ],
    },
    {
        "name": "path-lookup-wording",
        "clause": "WPC-EMISSARY-003",
        "summary": "a command missing from PATH is reported as `command not found in PATH: ...`",
        "messages": [
            {
                "file": "termination",
                "pattern": r"^failed to find name in PATH: ",
                "replacement": "command not found in PATH: ",
            }
        ],
    },
    {
        "name": "marker-absent-wording",
        "clause": "WPC-HANDSHAKE-007",
        "summary": "main, given no marker, says `no status marker after 30s`",
        "messages": [
            {
                "file": "termination",
                "pattern": r"^supervisor presumed dead: status marker never appeared within (\d+)s$",
                "replacement": r"supervisor presumed dead: no status marker after \1s",
            }
        ],
    },
    {
        "name": "marker-stale-wording",
        "clause": "WPC-HANDSHAKE-008",
        "summary": "main, given a stale marker, says `status marker stale for 30s`",
        "messages": [
            {
                "file": "termination",
                "pattern": r"^supervisor presumed dead: no status update within (\d+)s$",
                "replacement": r"supervisor presumed dead: status marker stale for \1s",
            }
        ],
    },
    # -- executor, batch 4 (issue 11) ----------------------------------------------------
    {
        "name": "ctr-dir-mode-755",
        "clause": "WPC-EMISSARY-001",
        "summary": "the emissary leaves ctr/<c>/ with mode 0755, not writable by every user",
        "files": [{"file": "ctr-dir", "mode": 0o755}],
    },
    {
        "name": "stdout-newline-dropped",
        "clause": "WPC-EMISSARY-006",
        "summary": "ctr/<c>/stdout loses the command's last newline once the command exited",
        "files": [{"file": "stdout", "pattern": r"\n\Z", "replacement": ""}],
    },
    {
        "name": "param-copy-altered",
        "clause": "WPC-EMISSARY-007",
        "summary": "main's copy of each output parameter file gets `-altered` appended",
        "files": [{"file": "parameter", "pattern": r"\Z", "replacement": "-altered"}],
    },
    {
        "name": "termination-overwritten",
        "clause": "WPC-EMISSARY-008",
        "summary": "main's emissary overwrites the termination message its command wrote",
        "files": [
            {
                "file": "termination-log",
                "pattern": r"\A(?s:.+)\Z",
                "replacement": "command exited",
                "containers": ["main"],
            }
        ],
    },
    {
        "name": "template-owner-only",
        "clause": "WPC-LEGACY-007",
        "summary": "/var/run/argo/template is written with mode 0600: only its writer's user reads it",
        "files": [{"file": "template", "mode": 0o600}],
    },
    {
        "name": "artifact-line-appended",
        "clause": "WPC-POD-012",
        "summary": "an input artifact loaded as a file gets one more line than its source",
        "files": [{"file": "artifact", "pattern": r"\Z", "replacement": "altered\n"}],
    },
    {
        "name": "artifact-link-tmp",
        "clause": "WPC-INITLESS-008",
        "summary": "init-less: an input artifact's path links to <name>.tmp, not <name>",
        "messages": [{"file": "link", "pattern": r"\Z", "replacement": ".tmp"}],
    },
    # -- layout and finalizer, batch 5 (issue 28 item 3) ------------------------------
    {
        "name": "label-adds-finalizer",
        "clause": "WPC-FINALIZER-002",
        "summary": (
            "each clean-up patch sets the pod's finalizers to the status finalizer alone:"
            " with the finalizer off, every pod labelled completed gets it"
            " (with it on, no pod loses it)"
        ),
        "cleanup": [
            {
                "op": "add",
                "path": "metadata/finalizers",
                "value": ["workflows.argoproj.io/status"],
            }
        ],
    },
    # -- executor, teeth-misc (issue 28) -------------------------------------------------
    {
        "name": "initless-template-0600",
        "clause": "WPC-INITLESS-007",
        "summary": "init-less: the supervisor writes /var/run/argo/template 0600, unreadable to a non-root main",
        "files": [{"file": "template", "mode": 0o600, "containers": ["supervisor"]}],
    },
    {
        "name": "output-artifact-altered",
        "clause": "WPC-RESULT-008",
        "summary": "an output artifact's file is archived with one more line than main left",
        "files": [
            {"file": "output-artifact", "pattern": r"\Z", "replacement": "\naltered"}
        ],
    },
    # -- controller, teeth-misc (issue 28) -----------------------------------------------
    {
        "name": "mount-ancestor-wording",
        "clause": "WPC-VALIDATE-008",
        "summary": "init-less: an artifact path above a volume mount errors without the clause's ending",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"; this is not supported in init-less pod mode because .*$",
                "replacement": "; init-less pods cannot stage an artifact over a volume",
            },
            {
                "target": "workflow",
                "field": "message",
                "pattern": r"; this is not supported in init-less pod mode because .*$",
                "replacement": "; init-less pods cannot stage an artifact over a volume",
            },
        ],
    },
    {
        "name": "pending-reason-only",
        "clause": "WPC-STATUS-001",
        "summary": "a Pending node's message is the pod's reason alone, without `: <message>`",
        "status": [
            {
                "target": "nodes",
                "field": "message",
                "pattern": r"^(\w+): [\s\S]*",
                "replacement": r"\1",
                "when": {"type": "Pod", "phase": "Pending"},
            }
        ],
    },
]
