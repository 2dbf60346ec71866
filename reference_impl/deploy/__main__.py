"""`python -m reference_impl.deploy VERB ...`: parse arguments, then drive kubectl.

Verbs: shared, install, uninstall, stop, start, restart, set-layout, set-finalizer,
set-config. Each runs kubectl with the given kubeconfig and fails with the command
line, exit code and output when kubectl does.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence

from reference_impl import common
from reference_impl.deploy import rendering

DEPLOYMENT = "deployment/workflow-controller"
CONTROLLER_PODS = "app.kubernetes.io/name=wpc-controller"
ROLLOUT_TIMEOUT = "--timeout=180s"


class KubectlError(Exception):
    """kubectl exited non-zero."""


def _kubectl(base: Sequence[str], *args: str, stdin: str | None = None) -> str:
    cmd = [*base, *args]
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise KubectlError(
            f"command failed with exit code {proc.returncode}: {' '.join(cmd)}\n"
            f"{proc.stdout}{proc.stderr}"
        )
    return proc.stdout


def _rolled_out(k: Sequence[str], ns: Sequence[str]) -> None:
    """Wait for the rollout, then for the old controller pods to be gone.

    `rollout status` returns once the new pod is available, while the old one
    may still be terminating and still leading: workflows submitted then could
    get pods built with the old settings (a finalizer switched on, seen
    without it). Old pods are the ones with a deletionTimestamp.
    """
    _kubectl(k, *ns, "rollout", "status", DEPLOYMENT, ROLLOUT_TIMEOUT)
    names = _kubectl(
        k,
        *ns,
        "get",
        "pod",
        "-l",
        CONTROLLER_PODS,
        "-o",
        "jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name}{' '}{end}",
    ).split()
    if names:
        _kubectl(
            k,
            *ns,
            "wait",
            "--for=delete",
            *(f"pod/{n}" for n in names),
            "--timeout=120s",
        )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reference_impl.deploy")
    p.add_argument(
        "verb",
        choices=[
            "shared",
            "install",
            "uninstall",
            "stop",
            "start",
            "restart",
            "set-layout",
            "set-finalizer",
            "set-config",
        ],
    )
    p.add_argument("--kubectl", default="kubectl")
    p.add_argument("--kubeconfig", required=True)
    p.add_argument("--namespace", default="argo")
    p.add_argument("--instance-id", default="")
    p.add_argument("--layout", choices=["legacy", "initless"], default="legacy")
    p.add_argument("--status-finalizer", choices=["true", "false"], default="false")
    p.add_argument(
        "--key", default="", help="set-config: a top-level configuration field"
    )
    p.add_argument(
        "--value",
        default="null",
        help="set-config: the field's value as JSON; null removes the field",
    )
    p.add_argument(
        "--fault", default="", help="WPC_REFERENCE_FAULT for negative controls"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one verb against one instance."""
    args = _parser().parse_args(argv)
    k = [args.kubectl, "--kubeconfig", args.kubeconfig]
    ns = ["-n", args.namespace]
    inst = rendering.Instance(
        namespace=args.namespace,
        instance_id=args.instance_id,
        layout=args.layout,
        status_finalizer=args.status_finalizer == "true",
        fault=args.fault,
    )
    try:
        if args.verb == "shared":
            objs = [
                *rendering.shared_objects(),
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "argo"}},
            ]
            _kubectl(k, "apply", "--server-side", "-f", "-", stdin=rendering.dump(objs))
            _kubectl(k, "apply", "--server-side", "-k", str(rendering.ARTIFACTS))
            for dep in ("wpc-s3", "wpc-http-artifacts"):
                _kubectl(
                    k,
                    "-n",
                    "argo",
                    "rollout",
                    "status",
                    f"deployment/{dep}",
                    ROLLOUT_TIMEOUT,
                )
        elif args.verb == "install":
            _kubectl(
                k,
                "apply",
                "--server-side",
                "--force-conflicts",
                "-f",
                "-",
                stdin=rendering.dump(rendering.instance_objects(inst)),
            )
            _rolled_out(k, ns)
        elif args.verb == "uninstall":
            _kubectl(
                k,
                "delete",
                "--ignore-not-found",
                "--wait=true",
                f"clusterrolebinding/wpc-reference-{args.namespace}",
                f"namespace/{args.namespace}",
            )
        elif args.verb == "stop":
            _kubectl(k, *ns, "scale", DEPLOYMENT, "--replicas=0")
            _kubectl(
                k,
                *ns,
                "wait",
                "--for=delete",
                "pod",
                "-l",
                CONTROLLER_PODS,
                "--timeout=120s",
            )
        elif args.verb == "start":
            _kubectl(k, *ns, "scale", DEPLOYMENT, "--replicas=1")
            _rolled_out(k, ns)
        elif args.verb == "restart":
            _kubectl(k, *ns, "rollout", "restart", DEPLOYMENT)
            _rolled_out(k, ns)
        elif args.verb == "set-layout":
            data = rendering.config_data(inst)["initlessPod"]
            # Keep the value a whole YAML document (trailing newline): the controller
            # joins keys into one document, and "initlessPod: enabled: true" is invalid.
            patch = json.dumps({"data": {"initlessPod": data}})
            _kubectl(
                k,
                *ns,
                "patch",
                "configmap",
                "workflow-controller-configmap",
                "--type",
                "merge",
                "-p",
                patch,
            )
        elif args.verb == "set-finalizer":
            _kubectl(
                k,
                *ns,
                "set",
                "env",
                DEPLOYMENT,
                f"ARGO_POD_STATUS_CAPTURE_FINALIZER={args.status_finalizer}",
            )
            _rolled_out(k, ns)
        elif args.verb == "set-config":
            config = rendering.config_patch(args.key, json.loads(args.value))
            _kubectl(
                k,
                *ns,
                "patch",
                "configmap",
                common.CONFIGMAP_NAME,
                "--type",
                "merge",
                "-p",
                json.dumps(config),
            )
            # The controller reads instanceID (its informers' selector and its
            # lease) only at start-up: restart, so every field is in force on return.
            _kubectl(k, *ns, "rollout", "restart", DEPLOYMENT)
            _rolled_out(k, ns)
    except (KubectlError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
