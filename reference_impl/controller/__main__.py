"""`python -m reference_impl.controller`: parse flags, read the environment, call `run`."""

from __future__ import annotations

import argparse
import logging
import sys

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.runtime import health
from reference_impl.controller.runtime import running


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the controller; return the process exit code."""
    parser = argparse.ArgumentParser(
        prog="workflow-controller", description="WPC reference workflow controller"
    )
    parser.add_argument(
        "--namespace",
        default=common.CONTROLLER_NAMESPACE,
        help="namespace of ConfigMap and Lease",
    )
    parser.add_argument(
        "--configmap", default=common.CONFIGMAP_NAME, help="controller ConfigMap name"
    )
    parser.add_argument(
        "--executor-image", default=None, help="executor image (beats executor.image)"
    )
    parser.add_argument("--lease-name", default=None, help="leader Lease name")
    parser.add_argument(
        "--kubeconfig", default=None, help="kubeconfig for out-of-cluster runs"
    )
    parser.add_argument(
        "--health-port",
        type=int,
        default=health.DEFAULT_PORT,
        help="port of GET /healthz (default 6060, as upstream); -1 serves nothing",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        settings = ControllerSettings.from_env(
            namespace=args.namespace,
            configmap=args.configmap,
            executor_image=args.executor_image,
            lease_name=args.lease_name,
            kubeconfig=args.kubeconfig,
            health_port=None if args.health_port < 0 else args.health_port,
        )
    except errors.SettingsError as err:
        parser.error(str(err))
    return running.run(settings)


if __name__ == "__main__":
    sys.exit(main())
