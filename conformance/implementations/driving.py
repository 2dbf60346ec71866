"""Run an implementation profile's commands: prepare, install, restart, ...

Every command's output goes to a log file under the reports directory, and a
failure raises `CommandError` with the pasteable command line, its exit code,
the output tail and the log path, so an install problem is never a mystery.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import contract
from conformance.errors import CommandError
from conformance.errors import HarnessError
from conformance.harness.cluster import timing
from conformance.harness.instances import layouts
from conformance.implementations import profiles
from plumbing import commands

logger = logging.getLogger(__name__)

CONTROL_PHASES = {
    "install": timing.INSTALL,
    "restart": timing.RESTART,
    "stop": timing.RESTART,
    "start": timing.RESTART,
    "setLayout": timing.CONFIG_CHANGE,
    "setStatusFinalizer": timing.CONFIG_CHANGE,
    "setConfig": timing.CONFIG_CHANGE,
}
"""The item phase (`conformance.harness.cluster.timing`) each per-instance command counts as;
uninstalling is part of the item's cleanup (pytest's teardown)."""


def run_command(argv: list[str], *, log_path: Path, timeout: float) -> None:
    """Run one command, appending its output to `log_path`; CommandError on failure.

    A command still running after `timeout` is killed and reported as a
    CommandError with exit code -1, like any other failed command.
    """
    commands.run(argv, log_path=log_path, timeout=timeout, error=CommandError)


@dataclass(frozen=True)
class Driver:
    """Runs one profile's commands with the run's placeholder values."""

    profile: profiles.Profile
    values: Mapping[str, str]
    """Common placeholder values (repo, kubeconfig, kubectl, ...)."""
    log_dir: Path
    timeout: float

    def _run(self, kind: str, extra: Mapping[str, str], *, label: str) -> None:
        commands = self.profile.commands.get(kind, ())
        if not commands and kind != "prepare":
            raise HarnessError(f"profile {self.profile.name} has no {kind!r} commands")
        values = profiles.placeholder_values(self.profile, {**self.values, **extra})
        log_path = self.log_dir / f"{self.profile.name}-{label}.log"
        for command in commands:
            run_command(
                profiles.render(command, values),
                log_path=log_path,
                timeout=self.timeout,
            )

    def _instance_values(self, instance: layouts.Instance) -> dict[str, str]:
        return {
            "instance_id": instance.instance_id,
            "layout": instance.layout,
            "namespace": instance.namespace,
            "initless": "true" if instance.layout == contract.INITLESS else "false",
        }

    def describe(self) -> str:
        """What the profile's `describe` commands print last: exactly what is installed.

        Optional: a profile without them is described by its `version` alone.
        """
        values = profiles.placeholder_values(self.profile, dict(self.values))
        said = ""
        for command in self.profile.commands.get("describe", ()):
            out = commands.capture(
                profiles.render(command, values),
                timeout=self.timeout,
                error=CommandError,
            )
            said = next(
                (line for line in reversed(out.splitlines()) if line.strip()), said
            )
        return said.strip()

    def unsupported_layouts(self) -> dict[str, str]:
        """The layouts the build cannot run, with the reasons its `layouts` command gives.

        Optional: a profile without the command runs every layout it claims.
        """
        steps = self.profile.commands.get("layouts", ())
        if not steps:
            return {}
        values = profiles.placeholder_values(self.profile, dict(self.values))
        out = ""
        for command in steps:
            out = commands.capture(
                profiles.render(command, values),
                timeout=self.timeout,
                error=CommandError,
            )
        return profiles.layout_support(
            out, f"profile {self.profile.name}: the layouts command"
        )

    def prepare(self, selected: tuple[str, ...]) -> None:
        """Build and load images, apply shared objects: once per run."""
        self._run("prepare", {"layouts": ",".join(selected)}, label="prepare")

    def control(self, kind: str, instance: layouts.Instance, **extra: str) -> None:
        """Run a per-instance command: install, uninstall, stop, start, restart, ..."""
        values = {**self._instance_values(instance), **extra}
        if "layout" in extra:
            values["initless"] = (
                "true" if extra["layout"] == contract.INITLESS else "false"
            )
        phase = CONTROL_PHASES.get(kind)
        with timing.timed(phase) if phase else contextlib.nullcontext():
            self._run(kind, values, label=f"{kind}-{instance.instance_id}")

    def install(self, instances: list[layouts.Instance]) -> None:
        """Install every instance the run needs."""
        for instance in instances:
            self.control("install", instance)


@dataclass(frozen=True)
class InstanceController:
    """The profile's controller commands, bound to one instance (`harness.Controller`)."""

    driver: Driver
    instance: layouts.Instance

    def restart(self) -> None:
        """Restart the instance's controller (the profile decides how)."""
        self.driver.control("restart", self.instance)

    def stop(self) -> None:
        """Stop the instance's controller."""
        self.driver.control("stop", self.instance)

    def start(self) -> None:
        """Start the instance's controller again."""
        self.driver.control("start", self.instance)

    def set_layout(self, layout: str) -> None:
        """Switch the instance to another layout (controller-wide in Argo)."""
        self.driver.control("setLayout", self.instance, layout=layout)

    def set_status_finalizer(self, *, enabled: bool) -> None:
        """Switch the pod status-capture finalizer of the instance."""
        self.driver.control(
            "setStatusFinalizer", self.instance, enabled="true" if enabled else "false"
        )

    def set_config(self, key: str, value: Any) -> None:
        """Set top-level configuration field `key` to `value` (None removes it).

        The profile's `setConfig` returns once the controller acts on the change
        (the reference restarts its controller); a profile without it is an error.
        """
        self.driver.control(
            "setConfig", self.instance, **profiles.config_values(key, value)
        )
