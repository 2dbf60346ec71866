"""`python -m reference_impl.deploy VERB ...`: parse arguments, then call one function.

Verbs: shared, install, uninstall, stop, start, restart, set-layout, set-finalizer,
set-config. The work is in `installing`, `scaling` and `configuring`; each runs
kubectl with the given kubeconfig and fails with the command line, exit code and
output when kubectl does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from reference_impl.deploy import configuring
from reference_impl.deploy import installing
from reference_impl.deploy import rendering
from reference_impl.deploy import scaling
from reference_impl.deploy.errors import DeployError
from reference_impl.deploy.kubectl import Kubectl

Verb = Callable[[Kubectl, rendering.Instance, argparse.Namespace], None]

VERBS: dict[str, Verb] = {
    "shared": lambda k, inst, args: installing.install_shared(k),
    "install": lambda k, inst, args: installing.install(k, inst),
    "uninstall": lambda k, inst, args: installing.uninstall(k, inst.namespace),
    "stop": lambda k, inst, args: scaling.stop(k.in_namespace(inst.namespace)),
    "start": lambda k, inst, args: scaling.start(k.in_namespace(inst.namespace)),
    "restart": lambda k, inst, args: scaling.restart(k.in_namespace(inst.namespace)),
    "set-layout": lambda k, inst, args: configuring.set_layout(
        k.in_namespace(inst.namespace), inst
    ),
    "set-finalizer": lambda k, inst, args: configuring.set_status_finalizer(
        k.in_namespace(inst.namespace), enabled=inst.status_finalizer
    ),
    "set-config": lambda k, inst, args: configuring.set_config(
        k.in_namespace(inst.namespace), key=args.key, value=json.loads(args.value)
    ),
}
"""Verb -> the function it calls, with the parsed arguments it needs."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reference_impl.deploy")
    p.add_argument("verb", choices=list(VERBS))
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
    kubectl = Kubectl(args.kubectl, args.kubeconfig)
    instance = rendering.Instance(
        namespace=args.namespace,
        instance_id=args.instance_id,
        layout=args.layout,
        status_finalizer=args.status_finalizer == "true",
        fault=args.fault,
    )
    try:
        VERBS[args.verb](kubectl, instance, args)
    except (DeployError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
