"""`python -m clusters`: argument parsing only; the work happens in the providers."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from clusters import existing
from clusters import operating
from clusters import pins
from clusters import providers
from clusters.errors import ClusterError
from clusters.errors import Interrupted
from clusters.images import archives
from clusters.images import registry
from clusters.machine import hostdeps
from plumbing.gobuilding import BuildSettings


def _parser(prog: str = "python -m clusters") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="verb", required=True)

    def verb(name: str, help_text: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_text)
        sp.add_argument("--provider", default="local", choices=providers.NAMES)
        sp.add_argument(
            "--name", default="wpc", help="cluster name (existing: kubeconfig path)"
        )
        return sp

    up = verb("up", "create the cluster and wait until it is usable")
    up.add_argument(
        "--retain", action="store_true", help="keep a failed cluster for debugging"
    )
    up.add_argument(
        "--workers", type=int, default=0, help="kind only: worker nodes (default 0)"
    )
    up.add_argument(
        "--kind-docker",
        choices=("own", "host"),
        help="kind only: own = start WPC's dockerd (default); host = use the running "
        "Docker at DOCKER_HOST or the default socket (env WPC_KIND_DOCKER)",
    )
    up.add_argument(
        "--kind-node-image",
        help="kind only: node image to use as given, e.g. a digest-pinned "
        "kindest/node (env WPC_KIND_NODE_IMAGE); default: build ours offline",
    )
    pinned = sub.add_parser(
        "node-image",
        help="print the upstream kindest/node image pinned (by digest) for a "
        "Kubernetes minor, for --kind-node-image or WPC_KIND_NODE_IMAGE",
    )
    pinned.add_argument(
        "kubernetes", choices=sorted(pins.KINDEST_NODE), help="Kubernetes minor"
    )
    verb("down", "delete the cluster; idempotent")
    verb(
        "status",
        "say whether the cluster runs: exit 0 running, 3 stopped, 1 running with "
        "problems (a network guard displaced or missing)",
    )
    verb("kubeconfig", "print the admin kubeconfig path")
    verb("kubectl-path", "print the path of a kubectl matching the cluster")
    load = verb("load-image", "import an OCI or docker-save archive into the node")
    load.add_argument("archive", type=Path)
    load.add_argument(
        "--registry",
        help="existing only: push to this registry, [http://]host[:port][/prefix], "
        "which the nodes use as a mirror of the image's registry host "
        f"(env {registry.VARIABLE})",
    )
    logs = verb("logs", "copy the component logs to a directory")
    logs.add_argument("--dest", type=Path, default=Path("reports/cluster-logs"))
    build = sub.add_parser(
        "build-image", help="write an OCI archive from a FROM-scratch Dockerfile"
    )
    build.add_argument("--context", type=Path, required=True)
    build.add_argument("--tag", required=True)
    build.add_argument("--output", type=Path, required=True)
    sub.add_parser(
        "host-deps", help="install the Debian packages the local provider needs"
    )
    sub.add_parser(
        "docker-setup", help="install and start the kind provider's own Docker engine"
    )
    sub.add_parser(
        "docker-down",
        help="stop the kind provider's Docker engine (no kind cluster left)",
    )
    comps = sub.add_parser(
        "build-components",
        help="build (or reuse) the local cluster's Go components; starts nothing",
    )
    comps.add_argument(
        "components", nargs="*", help="e.g. kubernetes (its kubectl); none: all"
    )
    node = sub.add_parser(
        "build-node-image",
        help="build the offline kind node image (cached per version)",
    )
    node.add_argument(
        "--output", type=Path, help="also write it as a `docker load`-able tar"
    )
    return p


LONG_VERBS = frozenset(
    {"up", "build-components", "build-node-image", "host-deps", "docker-setup"}
)
"""Verbs that can run for minutes (a cold Kubernetes build takes about ten): their
progress (each step, and a build's "Still running ... after" heartbeat) is logged at
INFO, so a CI log without a terminal never goes silent for long."""


def log_level(verb: str, *, verbose: bool) -> int:
    """INFO for `--verbose` and the long verbs; the quick ones print only warnings."""
    return logging.INFO if verbose or verb in LONG_VERBS else logging.WARNING


def main(argv: list[str] | None = None, *, prog: str = "python -m clusters") -> int:
    """Run one verb; errors print their evidence and exit 1."""
    args = _parser(prog).parse_args(argv)
    logging.basicConfig(
        level=log_level(args.verb, verbose=args.verbose),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    out = sys.stdout
    try:
        if args.verb == "build-image":
            digest = archives.build_image(
                context=args.context, tag=args.tag, output=args.output
            )
            out.write(f"{args.tag} {digest} {args.output}\n")
            return 0
        if args.verb == "host-deps":
            log = BuildSettings.from_env().cache_dir / "logs" / "host-deps.log"
            installed = hostdeps.ensure(log)
            out.write(f"installed: {' '.join(installed) or 'nothing (all present)'}\n")
            return 0
        if args.verb == "docker-setup":
            engine = operating.docker_setup()
            out.write(
                f"DOCKER_HOST={engine.host} (started: {engine.started}; runtime removes: "
                f"{', '.join(engine.withheld) or 'nothing (plain runc)'}; FORWARD policy "
                f"restored: {engine.forward_restored}; local pods: "
                f"{engine.pod_traffic or 'not checked'})\n"
            )
            return 0
        if args.verb == "docker-down":
            left = operating.docker_down()
            out.write(
                "docker engine stopped; " + ("; ".join(left) or "nothing left") + "\n"
            )
            return 1 if left else 0
        if args.verb == "build-components":
            built = operating.build_components(args.components)
            out.writelines(f"{name} {path}\n" for name, path in built.items())
            return 0
        if args.verb == "build-node-image":
            tag, seconds = operating.build_node_image(args.output)
            out.write(
                f"{tag} in {seconds:.1f}s{f' -> {args.output}' if args.output else ''}\n"
            )
            return 0
        if args.verb == "node-image":
            out.write(f"{pins.KINDEST_NODE[args.kubernetes]}\n")
            return 0
        provider = providers.get(args.provider)
        if args.verb == "up":
            seconds = operating.up(
                provider=args.provider,
                name=args.name,
                workers=args.workers,
                retain=args.retain,
                kind_docker=args.kind_docker,
                kind_node_image=args.kind_node_image,
            )
            out.write(
                f"cluster {args.name} ({args.provider}) is up in {seconds:.1f}s; "
                f"kubeconfig: {provider.kubeconfig(args.name)}\n"
            )
        elif args.verb == "down":
            operating.down(provider=args.provider, name=args.name)
            out.write(
                f"cluster {args.name} ({args.provider}) is down; nothing left behind\n"
            )
        elif args.verb == "status":
            st = provider.status(args.name)
            out.write(
                f"{st.name} {st.provider} {'running' if st.running else 'stopped'} "
                f"{st.kubeconfig or '-'} {st.detail}\n"
            )
            for problem in st.problems:
                sys.stderr.write(f"error: cluster {st.name}: {problem}\n")
            if st.problems:
                return 1
            return 0 if st.running else 3
        elif args.verb == "kubeconfig":
            out.write(f"{provider.kubeconfig(args.name)}\n")
        elif args.verb == "kubectl-path":
            out.write(f"{provider.kubectl(args.name)}\n")
        elif args.verb == "load-image" and args.registry:
            if args.provider != "existing":
                raise ClusterError(
                    f"--registry is for --provider existing; the {args.provider} "
                    "provider imports into its nodes itself"
                )
            target = registry.Registry.parse(args.registry)
            out.write(f"{existing.push_image(args.archive, target)}\n")
        elif args.verb == "load-image":
            out.write(f"{provider.load_image(args.name, args.archive)}\n")
        elif args.verb == "logs":
            out.write(f"{provider.collect_logs(args.name, args.dest)}\n")
    except Interrupted as exc:
        sys.stderr.write(f"error: {args.verb} {exc}\n")
        return exc.exit_code
    except ClusterError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0
