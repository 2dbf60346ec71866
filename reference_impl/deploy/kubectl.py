"""One kubectl against one cluster: every call of the deploy tool goes through it."""

from __future__ import annotations

from dataclasses import dataclass

from plumbing import commands
from reference_impl.deploy.errors import KubectlError


@dataclass(frozen=True)
class Kubectl:
    """A kubectl binary with its kubeconfig, optionally bound to a namespace."""

    binary: str
    kubeconfig: str
    namespace: str | None = None
    """Added as `-n NAMESPACE` to every call when set."""

    def in_namespace(self, namespace: str) -> Kubectl:
        """The same kubectl, bound to `namespace`."""
        return Kubectl(self.binary, self.kubeconfig, namespace)

    def __call__(self, *args: str, stdin: str | None = None) -> str:
        """Run kubectl with `args`; return its stdout, or raise KubectlError."""
        base = [self.binary, "--kubeconfig", self.kubeconfig]
        if self.namespace is not None:
            base += ["-n", self.namespace]
        return commands.capture([*base, *args], stdin=stdin, error=KubectlError)
