"""We test these aspects of the faults of commission (`reference_impl/commission`):

- the shipped table loads; every row's name is a fault name the controller accepts
  (`WPC_REFERENCE_FAULT`), becomes `ControllerSettings.commission` and is no enum
  fault; an unknown name is still a start-up error;
- malformed rows are errors naming the table's file and the key that is wrong;
- the path operations (`replace`, `add`, `remove`, `copy`, `sub`, `move-last`,
  selectors with `/` in their values) on small documents;
- each `pod` row, applied by `build_pod` to a pod the reference builds (a script
  template with a user init container, a sidecar, podGC and a grace period, in both
  layouts), changes exactly the fields it names and nothing else, in at least one
  layout; with no fault the pod is unchanged;
- each `status` row rewrites exactly the message it names (a sidecar's failure, the
  validation prefix);
- `remove-keys` drops the keys its pattern matches (user annotations) and no others;
- the `cleanup` rows change a copy of the patch: `finalizers-all-dropped` empties the
  finalizer list it sends, `label-adds-finalizer` adds the status finalizer to a
  label-only patch (WPC-FINALIZER-002).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl import commission
from reference_impl import commission_table
from reference_impl.controller import errors
from reference_impl.controller import faults
from reference_impl.controller.config import configuration
from reference_impl.controller.config import settings as settings_module
from reference_impl.controller.pods import podbuilding
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import workflow

Json = dict[str, Any]
TABLE = commission.load()
POD_FAULTS = sorted(n for n, f in TABLE.items() if f.pod)
STATUS_FAULTS = sorted(n for n, f in TABLE.items() if f.status)
RICH = """
metadata: {name: rich}
spec:
  entrypoint: main
  podGC: {strategy: OnPodSuccess, deleteDelayDuration: 90s}
  podSpecPatch: '{"terminationGracePeriodSeconds": 7}'
  podMetadata:
    labels: {wpc.dev/from-workflow: "yes"}
    annotations: {wpc.dev/from-workflow: "yes"}
  templates:
    - name: main
      metadata:
        annotations: {wpc.dev/from-template: "yes"}
      initContainers:
        - {name: first-init, image: busybox, command: [sh, -c, "true"]}
      sidecars:
        - {name: side, image: busybox, command: [sh, -c, "sleep 1"]}
      script:
        image: busybox
        command: [sh]
        source: echo hi
        resources: {requests: {cpu: 11m}}
"""


def build(
    *,
    initless: bool,
    fault: str = "",
    on_exit: bool = False,
    instance_id: str = "",
    status_finalizer: bool = False,
    artifacts: bool = False,
) -> Json:
    wf = workflow(RICH)
    if artifacts:
        wf["spec"]["templates"][0]["inputs"] = {
            "artifacts": [{"name": "art", "path": "/in/art.txt", "raw": {"data": "x"}}]
        }
    request = podbuilding.PodRequest(
        workflow=wf,
        node_name="rich",
        template=wf["spec"]["templates"][0],
        now=NOW,
        on_exit=on_exit,
    )
    pod = podbuilding.build_pod(
        request,
        config=configuration.ControllerConfig(instance_id=instance_id),
        settings=settings(
            status_capture_finalizer=status_finalizer,
            **(
                {"commission": commission.lookup(fault, side="controller")}
                if fault
                else {}
            ),
        ),
        initless=initless,
    )
    assert pod is not None
    return pod


def flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaf path -> value; list items named by `name` (or `mountPath`), else index."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out |= flat(item, f"{prefix}/{key}")
        return out
    if isinstance(value, list) and all(isinstance(i, dict) for i in value) and value:
        out = {}
        for index, item in enumerate(value):
            label = item.get("name") or item.get("mountPath") or index
            out |= flat(item, f"{prefix}[{label}]")
        out[f"{prefix}#order"] = [
            i.get("name") or i.get("mountPath") or n for n, i in enumerate(value)
        ]
        return out
    return {prefix: value}


def changed(before: Json, after: Json) -> set[str]:
    a, b = flat(before), flat(after)
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


VARIANTS: dict[str, dict[str, Any]] = {
    "on-exit-label-capital": {"on_exit": True},
    "init-instance-env-wrong": {"instance_id": "wpc-test"},
    "no-finalizer-at-create": {"status_finalizer": True},
    "init-inputs-path-slash": {"artifacts": True},
    "main-inputs-read-only": {"artifacts": True},
}
"""Rows whose change needs a pod the RICH one is not: an onExit handler's, or one of a
controller with an instance ID or with the status finalizer on (both correct and faulty
pods are built that way)."""
EXPECTED_POD_CHANGES: dict[str, dict[str, set[str]]] = {
    "main-instance-env": {
        layout: {
            "/spec/containers[main]/env#order",
            "/spec/containers[main]/env[ARGO_INSTANCE_ID]/name",
            "/spec/containers[main]/env[ARGO_INSTANCE_ID]/value",
        }
        for layout in ("legacy", "initless")
    },
    "init-inputs-path-slash": {
        "legacy": {
            "/spec/initContainers[init]/volumeMounts[input-artifacts]/mountPath"
        },
        "initless": set(),
    },
    "main-inputs-read-only": {
        "legacy": set(),
        "initless": {"/spec/containers[main]/volumeMounts[input-artifacts]/readOnly"},
    },
    "emissary-path-doubled": {
        "legacy": {"/spec/containers[main]/command", "/spec/containers[side]/command"},
        "initless": set(),
    },
    "user-annotations-lost": {
        "legacy": {
            "/metadata/annotations/wpc.dev/from-workflow",
            "/metadata/annotations/wpc.dev/from-template",
        },
        "initless": {
            "/metadata/annotations/wpc.dev/from-workflow",
            "/metadata/annotations/wpc.dev/from-template",
        },
    },
    "main-resources-dropped": {
        "legacy": {"/spec/containers[main]/resources/requests/cpu"},
        "initless": {"/spec/containers[main]/resources/requests/cpu"},
    },
    "no-finalizer-at-create": {
        "legacy": {"/metadata/finalizers"},
        "initless": {"/metadata/finalizers"},
    },
    "argoexec-bin-writable": {
        "legacy": set(),
        "initless": {
            "/spec/containers[main]/volumeMounts[argoexec-bin]/readOnly",
            "/spec/containers[side]/volumeMounts[argoexec-bin]/readOnly",
        },
    },
    "on-exit-label-capital": {
        "legacy": {"/metadata/labels/workflows.argoproj.io/on-exit"},
        "initless": {"/metadata/labels/workflows.argoproj.io/on-exit"},
    },
    "init-instance-env-wrong": {
        "legacy": {"/spec/initContainers[init]/env[ARGO_INSTANCE_ID]/value"},
        "initless": set(),
    },
    "default-container-aux": {
        "legacy": {"/metadata/annotations/kubectl.kubernetes.io/default-container"},
        "initless": {"/metadata/annotations/kubectl.kubernetes.io/default-container"},
    },
    "hour-long-pod-deadline": {
        "legacy": {"/spec/activeDeadlineSeconds"},
        "initless": {"/spec/activeDeadlineSeconds"},
    },
    "pod-gc-delay-zero": {
        "legacy": {"/metadata/annotations/workflows.argoproj.io/pod-gc-strategy"},
        "initless": {"/metadata/annotations/workflows.argoproj.io/pod-gc-strategy"},
    },
    "script-output-env-caps": {
        "legacy": {
            "/spec/initContainers[first-init]/env[ARGO_INCLUDE_SCRIPT_OUTPUT]/value"
        },
        "initless": {
            "/spec/initContainers[first-init]/env[ARGO_INCLUDE_SCRIPT_OUTPUT]/value"
        },
    },
    "pod-uid-from-name": {
        "legacy": {
            "/spec/containers[wait]/env[ARGO_POD_UID]/valueFrom/fieldRef/fieldPath"
        },
        "initless": {
            "/spec/containers[supervisor]/env[ARGO_POD_UID]/valueFrom/fieldRef/fieldPath"
        },
    },
    "main-grace-env-plus-one": {
        "legacy": {
            "/spec/containers[main]/env[ARGO_TERMINATION_GRACE_PERIOD_SECONDS]/value"
        },
        "initless": {
            "/spec/containers[main]/env[ARGO_TERMINATION_GRACE_PERIOD_SECONDS]/value"
        },
    },
    "argo-init-runs-last": {
        "legacy": {"/spec/initContainers#order"},
        "initless": set(),
    },
    "wait-tmp-subpath-named": {
        "legacy": {"/spec/containers[wait]/volumeMounts[tmp-dir-argo]/subPath"},
        "initless": set(),
    },
    "legacy-ready-env-false": {
        "legacy": {
            "/spec/containers[main]/env#order",
            "/spec/containers[main]/env[ARGO_WAIT_FOR_READY]/name",
            "/spec/containers[main]/env[ARGO_WAIT_FOR_READY]/value",
        },
        "initless": set(),
    },
    "initless-pod-env-one": {
        "legacy": set(),
        "initless": {"/spec/containers[supervisor]/env[ARGO_INITLESS_POD]/value"},
    },
    "argoexec-bin-pull-never": {
        "legacy": set(),
        "initless": {"/spec/volumes[argoexec-bin]/image/pullPolicy"},
    },
}


def test_the_shipped_table_loads_and_each_row_is_a_known_fault():
    assert len(TABLE) == len(commission_table.TABLE) >= 20
    known = faults.known_names()
    for name, fault in TABLE.items():
        assert name in known
        assert fault.clause.startswith("WPC-")
        parsed = settings_module.ControllerSettings.from_env(
            {"WPC_REFERENCE_FAULT": name}
        )
        if fault.side == commission.CONTROLLER:
            assert (parsed.fault, parsed.commission) == (None, fault)
            assert parsed.fault_passthrough == ""  # not passed to pods
        else:  # the executor commits it: passed through, nothing for the controller
            assert (parsed.fault, parsed.commission) == (None, None)
            assert parsed.fault_passthrough == name
        # What the leader publishes on its Lease, for the negative runner's check.
        assert parsed.fault_name == name
    assert not set(TABLE) & {f.value for f in faults.Fault}


def test_an_unknown_fault_name_is_still_a_start_up_error():
    with pytest.raises(errors.SettingsError, match="'nope' is not a known fault"):
        settings_module.ControllerSettings.from_env({"WPC_REFERENCE_FAULT": "nope"})


def test_no_fault_means_no_commission():
    assert settings_module.ControllerSettings.from_env({}).commission is None
    assert commission.lookup("", side="controller") is None
    assert commission.lookup("default-container-aux", side="executor") is None


GOOD: Json = {
    "name": "x-y",
    "clause": "WPC-POD-002",
    "summary": "s",
    "pod": [{"op": "replace", "path": "a/b", "value": 1}],
}


def row(**changes: Any) -> Json:
    return {**copy.deepcopy(GOOD), **changes}


def executor_row(**hooks: Any) -> Json:
    """GOOD with the executor hooks `hooks` instead of its `pod` hook."""
    return {**{k: v for k, v in copy.deepcopy(GOOD).items() if k != "pod"}, **hooks}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ({"not": "a list"}, r"faults: a non-empty list"),
        ([row(name="X_Y")], r"faults\[0\]\.name: 'X_Y' is not a kebab-case name"),
        (
            [row(name="a" * 24)],
            r"faults\[0\]\.name: 'a{24}' is not a kebab-case name of at most 23",
        ),
        ([row(clause="POD-2")], r"faults\[0\]\.clause: 'POD-2' is not a clause ID"),
        ([row(colour="red")], r"faults\[0\]\.colour: unknown key"),
        ([{k: v for k, v in GOOD.items() if k != "pod"}], r"faults\[0\]: one hook"),
        ([row(summary="")], r"faults\[0\]\.summary: a non-empty string"),
        ([row(pod=[])], r"faults\[0\]\.pod: a non-empty list"),
        ([row(pod=[{"op": "zap", "path": "a"}])], r"faults\[0\]\.pod\[0\]\.op: 'zap'"),
        ([row(pod=[{"op": "replace", "path": "a"}])], r"pod\[0\]\.value: required"),
        ([row(pod=[{"op": "copy", "path": "a"}])], r"pod\[0\]\.from: required"),
        (
            [row(pod=[{"op": "remove-keys", "path": "a"}])],
            r"pod\[0\]\.pattern: required",
        ),
        (
            [row(pod=[{"op": "remove-keys", "path": "a", "pattern": "["}])],
            r"pod\[0\]\.pattern: not a regular expression",
        ),
        ([row(pod=[{"op": "remove", "path": "a//b"}])], r"pod\[0\]\.path: empty"),
        ([row(pod=[{"op": "remove", "path": "a/[x]"}])], r"pod\[0\]\.path: malformed"),
        (
            [row(pod=[{"op": "remove", "path": "a", "layouts": ["both"]}])],
            r"pod\[0\]\.layouts: 'both'",
        ),
        (
            [row(pod=[{"op": "sub", "path": "a", "pattern": "(", "replacement": ""}])],
            r"pod\[0\]\.pattern: not a regular expression",
        ),
        (
            [row(pod=None, status=[{"target": "pods", "field": "m", "pattern": "x"}])],
            r"faults\[0\]\.pod: a non-empty list",
        ),
        (
            [
                {
                    **{k: v for k, v in GOOD.items() if k != "pod"},
                    "status": [
                        {
                            "target": "pods",
                            "field": "m",
                            "pattern": "x",
                            "replacement": "",
                        }
                    ],
                }
            ],
            r"faults\[0\]\.status\[0\]\.target: 'pods'",
        ),
        (
            [
                {
                    **{k: v for k, v in GOOD.items() if k != "pod"},
                    "status": [{"target": "nodes", "field": "m", "pattern": "x"}],
                }
            ],
            r"status\[0\]\.replacement: a string is required",
        ),
        ([row(), row()], r"faults\[1\]\.name: 'x-y' appears twice"),
        (
            [executor_row(files=[{"file": "logs", "mode": 0o755}])],
            r"faults\[0\]\.files\[0\]\.file: 'logs' is not one of",
        ),
        (
            [executor_row(files=[{"file": "ctr-dir", "mode": 0o10000}])],
            r"files\[0\]\.mode: a file mode 0\.\.0o7777 is required",
        ),
        (
            [executor_row(files=[{"file": "ctr-dir", "mode": "755"}])],
            r"files\[0\]\.mode: a file mode",
        ),
        (
            [
                executor_row(
                    files=[{"file": "template", "pattern": "x", "replacement": ""}]
                )
            ],
            r"files\[0\]\.pattern: 'template' takes a mode only",
        ),
        (
            [executor_row(files=[{"file": "stdout", "mode": 0o644}])],
            r"files\[0\]\.mode: 'stdout' takes a pattern, not a mode",
        ),
        (
            [
                executor_row(
                    files=[{"file": "stdout", "pattern": "(", "replacement": ""}]
                )
            ],
            r"files\[0\]\.pattern: not a regular expression",
        ),
        (
            [executor_row(files=[{"file": "parameter", "pattern": "x"}])],
            r"files\[0\]\.replacement: a string is required",
        ),
        (
            [
                executor_row(
                    files=[
                        {
                            "file": "stdout",
                            "pattern": "x",
                            "replacement": "",
                            "containers": "main",
                        }
                    ]
                )
            ],
            r"files\[0\]\.containers: a list of container names",
        ),
        (
            [
                executor_row(
                    files=[
                        {"file": "stdout", "pattern": "x", "replacement": "", "size": 1}
                    ]
                )
            ],
            r"files\[0\]\.size: unknown key",
        ),
    ],
)
def test_schema_errors_name_the_file_and_the_key(rows, message):
    with pytest.raises(
        commission.TableError, match=rf"^table\.py: (faults\[\d\]\.)?{message}"
    ):
        commission.parse(rows, source="table.py")


def test_the_shipped_table_errors_name_its_file(monkeypatch):
    monkeypatch.setattr(commission_table, "TABLE", [row(clause="bad")])
    with pytest.raises(
        commission.TableError, match=r"commission_table\.py: faults\[0\]"
    ):
        commission.load()


def ops(*items: Json) -> list[commission.PathOp]:
    fault = commission.parse([row(pod=list(items))], source="t")["x-y"]
    return list(fault.pod)


def test_path_operations():
    doc: Json = {
        "a": {"k/1": "v", "n": 5},
        "items": [
            {"name": "one", "path": "/tmp", "v": "x"},
            {"name": "two", "path": "/var", "v": "y"},
            {"name": "three", "path": "/tmp", "v": "z"},
        ],
    }
    commission.apply_ops(
        doc,
        ops(
            {"op": "replace", "path": "a/k~11", "value": "w"},
            {"op": "replace", "path": "a/missing", "value": "never"},
            {"op": "add", "path": "a/new", "value": [1]},
            {
                "op": "sub",
                "path": "items/[path=/tmp]/v",
                "pattern": "^(.)$",
                "replacement": r"\1\1",
            },
            {"op": "copy", "from": "items/[name=two]/v", "path": "a/copied"},
            {"op": "copy", "from": "items/[name=nine]/v", "path": "a/nothing"},
            {"op": "move-last", "path": "items/[name!=two]"},
            {"op": "remove", "path": "a/n"},
            {"op": "add", "path": "items/-", "value": {"name": "four"}},
        ),
    )
    assert doc == {
        "a": {"k/1": "w", "new": [1], "copied": "y"},
        "items": [
            {"name": "two", "path": "/var", "v": "y"},
            {"name": "one", "path": "/tmp", "v": "xx"},
            {"name": "three", "path": "/tmp", "v": "zz"},
            {"name": "four"},
        ],
    }


def test_remove_keys_drops_only_the_matching_keys_of_a_mapping():
    doc: Json = {"m": {"keep/a": 1, "drop-b": 2, "drop-c": 3}, "s": "drop-d"}
    commission.apply_ops(
        doc,
        ops(
            {"op": "remove-keys", "path": "m", "pattern": "^drop-"},
            {"op": "remove-keys", "path": "s", "pattern": "^drop-"},
            {"op": "remove-keys", "path": "missing", "pattern": "."},
        ),
    )
    assert doc == {"m": {"keep/a": 1}, "s": "drop-d"}


def test_a_path_that_matches_nothing_changes_nothing():
    doc: Json = {"spec": {"containers": [{"name": "main"}]}}
    before = copy.deepcopy(doc)
    commission.apply_ops(
        doc,
        ops(
            {"op": "remove", "path": "spec/containers/[name=wait]"},
            {
                "op": "replace",
                "path": "spec/containers/*/env/[name=X]/value",
                "value": 1,
            },
        ),
    )
    assert doc == before


@pytest.mark.parametrize("initless", [False, True], ids=["legacy", "initless"])
def test_without_a_fault_the_pod_is_what_the_builder_built(initless):
    pod = build(initless=initless)
    assert commission.apply_pod(copy.deepcopy(pod), None, initless=initless) == pod


def test_every_pod_row_has_an_expectation_here():
    assert sorted(EXPECTED_POD_CHANGES) == sorted(
        set(POD_FAULTS) - {"script-volume-renamed", "template-env-on-wait"}
    )


@pytest.mark.parametrize("name", sorted(EXPECTED_POD_CHANGES))
@pytest.mark.parametrize("layout", ["legacy", "initless"])
def test_each_pod_row_changes_exactly_what_it_names(name, layout):
    initless, variant = layout == "initless", VARIANTS.get(name, {})
    correct = build(initless=initless, **variant)
    faulty = build(initless=initless, fault=name, **variant)
    assert changed(correct, faulty) == EXPECTED_POD_CHANGES[name][layout]
    assert any(EXPECTED_POD_CHANGES[name].values()), "changes nothing in any layout"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_variant_row_changes_nothing_on_the_plain_pod(name):
    for initless in (False, True):
        assert build(initless=initless, fault=name) == build(initless=initless)


@pytest.mark.parametrize("initless", [False, True], ids=["legacy", "initless"])
def test_the_script_volume_is_renamed_everywhere_and_only_that(initless):
    correct = build(initless=initless)
    faulty = build(initless=initless, fault="script-volume-renamed")
    renamed = flat(correct)
    assert any("[argo-staging]" in k for k in renamed)
    text = repr(faulty)
    assert "argo-staging" not in text
    assert repr(correct).replace("argo-staging", "argo-script") == text


def test_template_env_is_copied_onto_wait_only_in_legacy():
    correct, faulty = (
        build(initless=False),
        build(initless=False, fault="template-env-on-wait"),
    )
    wait = next(c for c in faulty["spec"]["containers"] if c["name"] == "wait")
    init = next(c for c in faulty["spec"]["initContainers"] if c["name"] == "init")
    template = next(e for e in init["env"] if e["name"] == "ARGO_TEMPLATE")
    assert wait["env"][-1] == template
    wait["env"].pop()
    assert faulty == correct
    assert build(initless=True, fault="template-env-on-wait") == build(initless=True)


STATUS: Json = {
    "phase": "Failed",
    "message": "child 'wf-1' failed",
    "nodes": {
        "wf": {"type": "Steps", "phase": "Failed", "message": "child 'wf-1' failed"},
        "wf-1": {
            "type": "Pod",
            "phase": "Failed",
            "message": "main: Error (exit code 3): custom reason",
            "outputs": {"exitCode": "3"},
        },
        "wf-2": {"type": "Retry", "phase": "Failed", "message": "No more retries left"},
        "wf-3": {"type": "Pod", "phase": "Succeeded"},
        "wf-4": {
            "type": "Pod",
            "phase": "Failed",
            "message": "Pod was active on the node longer than the specified deadline",
        },
        "wf-5": {
            "type": "Pod",
            "phase": "Failed",
            "message": "Step exceeded its deadline",
        },
        "wf-6": {
            "type": "Retry",
            "phase": "Failed",
            "message": "Backoff would exceed max duration limit",
        },
        "wf-7": {
            "type": "Pod",
            "phase": "Error",
            "message": "init: Error (exit code 1)",
        },
        "wf-8": {
            "type": "Pod",
            "phase": "Error",
            "message": "wait: OOMKilled (exit code 137)",
        },
        "wf-9": {
            "type": "Pod",
            "phase": "Error",
            "message": "supervisor: Error (exit code 64): boom",
        },
        "wf-10": {
            "type": "Pod",
            "phase": "Failed",
            "message": "side-car: Error (exit code 1): sidecar said no",
        },
        "wf-11": {"type": "Pod", "phase": "Error", "message": "pod deleted"},
        "wf-12": {
            "type": "Pod",
            "phase": "Pending",
            "message": 'ErrImageNeverPull: Container image "x:1" is not present',
        },
        "wf-13": {
            "type": "Pod",
            "phase": "Pending",
            "message": "Unschedulable: 0/1 nodes are available: 1 node(s) didn't\nmatch",
        },
        "wf-14": {"type": "Pod", "phase": "Pending", "message": "PodInitializing"},
    },
}
EXPECTED_STATUS_CHANGES = {
    "exit-status-wording": {
        "nodes/wf-1/message": "main: Error (exit status 3): custom reason",
        "nodes/wf-7/message": "init: Error (exit status 1)",
        "nodes/wf-8/message": "wait: OOMKilled (exit status 137)",
        "nodes/wf-9/message": "supervisor: Error (exit status 64): boom",
        "nodes/wf-10/message": "side-car: Error (exit status 1): sidecar said no",
    },
    "sidecar-failure-unnamed": {
        "nodes/wf-10/message": "Error (exit code 1): sidecar said no",
    },
    "pod-deadline-wording": {"nodes/wf-4/message": "Pod exceeded its active deadline"},
    "step-deadline-wording": {"nodes/wf-5/message": "Step deadline exceeded"},
    "backoff-limit-wording": {"nodes/wf-6/message": "Backoff exceeds maxDuration"},
    "init-failure-unprefixed": {"nodes/wf-7/message": "Error (exit code 1)"},
    "killed-aux-unnamed": {"nodes/wf-8/message": "OOMKilled (exit code 137)"},
    "exit-code-output-zero": {"nodes/wf-1/outputs/exitCode": "0"},
    "child-failed-unquoted": {
        "message": "child wf-1 failed",
        "nodes/wf/message": "child wf-1 failed",
    },
    "retries-exhausted-msg": {"nodes/wf-2/message": "retries exhausted"},
    "succeeded-node-message": {"nodes/wf-3/message": "Completed"},
    "pod-deleted-reworded": {"nodes/wf-11/message": "pod was deleted"},
    "pending-reason-only": {  # WPC-STATUS-001: `<Reason>: <Message>`, not `<Reason>`
        "nodes/wf-12/message": "ErrImageNeverPull",
        "nodes/wf-13/message": "Unschedulable",
    },
}
VALIDATION_MESSAGES = {
    "stopped-unquoted": (
        "Stopped with strategy 'Stop'",
        "Stopped with strategy Stop",
    ),
    "entrypoint-missing-msg": (
        "invalid spec: spec.entrypoint is required",
        "invalid spec: spec.entrypoint is missing",
    ),
    "reserved-sidecar-msg": (
        'invalid spec: templates.main.sidecars: "wait" is a reserved Argo container name',
        'invalid spec: templates.main.sidecars: "wait" is a name Argo uses',
    ),
    "reserved-member-wording": (
        'invalid spec: templates.main.containerSet.containers: "wait" is a reserved Argo container name',
        'invalid spec: templates.main.containerSet.containers: "wait" is a name Argo uses',
    ),
    "lookup-failure-wording": (
        'failed to look-up entrypoint/cmd for image "x", you must either',
        'cannot find entrypoint/cmd for image "x", you must either',
    ),
    "mount-ancestor-wording": (  # WPC-VALIDATE-008: the message's required ending
        'input artifact "data" path "/data" is an ancestor of volume mount "cache" '
        "(/data/cache); this is not supported in init-less pod mode because staging "
        "the artifact would clear the mounted volume",
        'input artifact "data" path "/data" is an ancestor of volume mount "cache" '
        "(/data/cache); init-less pods cannot stage an artifact over a volume",
    ),
}


def test_every_status_row_has_an_expectation_here():
    assert (
        sorted(
            [*EXPECTED_STATUS_CHANGES, *VALIDATION_MESSAGES, "invalid-spec-unprefixed"]
        )
        == STATUS_FAULTS
    )


def test_invalid_spec_unprefixed_rewrites_only_the_validation_prefix():
    fault = TABLE["invalid-spec-unprefixed"]
    for before, _ in VALIDATION_MESSAGES.values():
        status = {"phase": "Failed", "message": before}
        rewritten = commission.apply_status(copy.deepcopy(status), fault)
        if before.startswith("invalid spec: "):
            want = "invalid workflow: " + before.removeprefix("invalid spec: ")
        else:
            want = before
        assert rewritten == {"phase": "Failed", "message": want}
    assert commission.apply_status(copy.deepcopy(STATUS), fault) == STATUS
    quoted = {"message": "main: Error (exit code 1): invalid spec: x"}
    assert commission.apply_status(copy.deepcopy(quoted), fault) == quoted


@pytest.mark.parametrize("name", sorted(EXPECTED_STATUS_CHANGES))
def test_each_status_row_rewrites_exactly_its_message(name):
    status = commission.apply_status(copy.deepcopy(STATUS), TABLE[name])
    want = flat(STATUS) | {f"/{k}": v for k, v in EXPECTED_STATUS_CHANGES[name].items()}
    assert flat(status) == want
    again = commission.apply_status(copy.deepcopy(status), TABLE[name])
    assert again == status, "a second pass must not change it again"


@pytest.mark.parametrize("name", sorted(VALIDATION_MESSAGES))
def test_each_message_row_rewrites_its_message_and_leaves_the_others(name):
    before, after = VALIDATION_MESSAGES[name]
    status = {"phase": "Failed", "message": before, "nodes": {"n": {"message": before}}}
    rewritten = commission.apply_status(copy.deepcopy(status), TABLE[name])
    assert rewritten["message"] == after
    assert rewritten["nodes"]["n"]["message"] in (before, after)
    for other, (text, _) in VALIDATION_MESSAGES.items():
        if other != name:
            untouched = commission.apply_status({"message": text}, TABLE[name])
            assert untouched == {"message": text}, other
    assert commission.apply_status(copy.deepcopy(STATUS), TABLE[name]) == STATUS


def test_a_status_rewrite_with_a_condition_only_touches_matching_nodes():
    fault = commission.parse(
        [
            {
                **{k: v for k, v in GOOD.items() if k != "pod"},
                "status": [
                    {
                        "target": "nodes",
                        "field": "message",
                        "pattern": "^",
                        "replacement": "!",
                        "when": {"type": "Pod"},
                    }
                ],
            }
        ],
        source="t",
    )["x-y"]
    status = commission.apply_status(copy.deepcopy(STATUS), fault)
    assert status["nodes"]["wf-1"]["message"].startswith("!main")
    assert status["nodes"]["wf"]["message"] == "child 'wf-1' failed"
    assert "message" not in status["nodes"]["wf-3"]


def test_an_absent_rewrite_adds_a_missing_field_only_where_it_matches():
    fault = TABLE["succeeded-node-message"]
    status = commission.apply_status(copy.deepcopy(STATUS), fault)
    assert status["nodes"]["wf-3"]["message"] == "Completed"
    # Without `absent` a missing field stays missing (the previous rows' behaviour).
    plain = commission.parse(
        [
            {
                **{k: v for k, v in GOOD.items() if k != "pod"},
                "status": [
                    {
                        "target": "nodes",
                        "field": "message",
                        "pattern": "^$",
                        "replacement": "Completed",
                    }
                ],
            }
        ],
        source="t",
    )["x-y"]
    assert commission.apply_status(copy.deepcopy(STATUS), plain) == STATUS
    # A non-matching absent rewrite writes nothing, not even an empty field.
    other = commission.apply_status(
        {"nodes": {"n": {"type": "Pod", "phase": "Succeeded"}}},
        commission.parse(
            [
                {
                    **{k: v for k, v in GOOD.items() if k != "pod"},
                    "status": [
                        {
                            "target": "nodes",
                            "field": "outputs.exitCode",
                            "pattern": "^x$",
                            "replacement": "y",
                            "absent": True,
                        }
                    ],
                }
            ],
            source="t",
        )["x-y"],
    )
    assert other == {"nodes": {"n": {"type": "Pod", "phase": "Succeeded"}}}


def controller_row(**hooks: Any) -> Json:
    return {**{k: v for k, v in GOOD.items() if k != "pod"}, **hooks}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [
                controller_row(
                    status=[
                        {
                            "target": "nodes",
                            "field": "m",
                            "pattern": "x",
                            "replacement": "",
                            "absent": "yes",
                        }
                    ]
                )
            ],
            r"status\[0\]\.absent: true or false is required, got 'yes'",
        ),
        ([controller_row(ignoreSignals=[9])], r"ignoreSignals\[0\]: 9 is not a stop"),
        ([controller_row(ignoreSignals=[True])], r"ignoreSignals\[0\]: True is not"),
        ([controller_row(ignoreSignals=[])], r"ignoreSignals: a non-empty list"),
        ([controller_row(cleanup=[{"op": "zap", "path": "a"}])], r"cleanup\[0\]\.op"),
        (
            [controller_row(cleanup=[{"op": "remove", "path": "a"}], exit=[])],
            r"hooks of one side only",
        ),
    ],
)
def test_controller_hook_errors_name_the_key(rows, message):
    with pytest.raises(commission.TableError, match=r"^table\.py: faults\[0\]"):
        commission.parse(rows, source="table.py")
    with pytest.raises(commission.TableError, match=message):
        commission.parse(rows, source="table.py")


def test_the_cleanup_hook_changes_a_copy_of_the_patch():
    patch = {
        "metadata": {
            "labels": {"workflows.argoproj.io/completed": "true"},
            "finalizers": ["wpc.dev/keep"],
            "resourceVersion": "7",
        }
    }
    before = copy.deepcopy(patch)
    fault = TABLE["finalizers-all-dropped"]
    changed_patch = commission.apply_cleanup(patch, fault)
    assert patch == before
    assert changed_patch["metadata"]["finalizers"] == []
    assert {
        k: v for k, v in changed_patch["metadata"].items() if k != "finalizers"
    } == {k: v for k, v in before["metadata"].items() if k != "finalizers"}
    # A label-only patch sends no finalizer list, and the fault adds none.
    label_only = {"metadata": {"labels": {"workflows.argoproj.io/completed": "true"}}}
    assert commission.apply_cleanup(copy.deepcopy(label_only), fault) == label_only
    assert commission.apply_cleanup(patch, None) is patch


def test_label_adds_finalizer_gives_a_label_patch_the_status_finalizer():
    """With the finalizer off a clean-up patch only labels; the fault adds it."""
    label_only = {"metadata": {"labels": {"workflows.argoproj.io/completed": "true"}}}
    changed = commission.apply_cleanup(label_only, TABLE["label-adds-finalizer"])
    assert changed == {
        "metadata": {
            "labels": {"workflows.argoproj.io/completed": "true"},
            "finalizers": ["workflows.argoproj.io/status"],
        }
    }


def test_ignored_signals():
    assert commission.ignored_signals(TABLE["controller-ignores-term"]) == {15}
    assert commission.ignored_signals(None) == frozenset()
    assert commission.ignored_signals(TABLE["default-container-aux"]) == frozenset()
