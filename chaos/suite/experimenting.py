"""Run experiment documents the way a user does (`chaos run`), and read their verdict.

The pytest entries (`chaos.suite.experiments`, tests/chaos/test_negative_controls.py) run each
experiment in a subprocess through chaostoolkit's own CLI, with the WPC
configuration in environment variables, then read the experiment's entry from
the ChaosReport the run wrote. The report is the verdict; the subprocess's
exit status only says whether chaostoolkit itself worked.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from chaos import declarations
from chaos import requirements
from chaos.lifecycle import judging
from conformance.implementations import profiles
from conformance.implementations import variables

EXPERIMENTS_DIR = Path(__file__).resolve().parents[1] / "experiments"
"""The shipped experiment documents (a checkout's or an installed wheel's)."""
REPORTS_DIR = Path("reports")
"""Reports go below the directory the suite is run from, as `wpc run`'s do."""
RUN_TIMEOUT = 600.0
"""One experiment's budget; the slowest (a crash loop) takes about two minutes."""
ROLLBACK_TIMEOUT = 180.0
"""Seconds an interrupted `chaos run` gets to roll back and remove what it made."""


@dataclass(frozen=True)
class Target:
    """Where experiments run and what they drive."""

    implementation: str = "reference"
    profile_vars: str = ""
    provider: str = "local"
    cluster: str = "wpc"
    reports_dir: Path = REPORTS_DIR
    instance: str = "external"
    timeout_scale: float = 1.0
    profile: profiles.Profile | None = dataclasses.field(
        default=None, compare=False, repr=False
    )
    """The profile, once `loaded`: every case of the process reads this one."""

    def loaded(self) -> Target:
        """This target with its profile parsed and validated, once for the process."""
        return dataclasses.replace(self, profile=profile_of(self))

    def env(self, layout: str) -> dict[str, str]:
        """The process environment of `chaos run` for `layout`."""
        return {
            **os.environ,
            "WPC_CHAOS_PROVIDER": self.provider,
            "WPC_CHAOS_CLUSTER": self.cluster,
            "WPC_CHAOS_IMPLEMENTATION": self.implementation,
            "WPC_CHAOS_PROFILE_VARS": self.profile_vars,
            "WPC_CHAOS_LAYOUT": layout,
            "WPC_CHAOS_REPORTS_DIR": str(self.reports_dir),
            "WPC_CHAOS_INSTANCE": self.instance,
            "WPC_CHAOS_TIMEOUT_SCALE": str(self.timeout_scale),
        }


def cases(
    layouts: tuple[str, ...], directory: Path = EXPERIMENTS_DIR
) -> list[tuple[Path, str]]:
    """(experiment file, layout) for every experiment and each layout it applies to.

    By name, except that an experiment tagged `irreversible` comes after all the
    others: it leaves the cluster changed (a worker deleted for good), and an
    experiment after it in the same run would find a second worker missing.
    """
    documents = {p: yaml.safe_load(p.read_text()) for p in directory.glob("*.yaml")}
    found = []
    for path in sorted(
        documents, key=lambda p: (IRREVERSIBLE_TAG in _tags(documents[p]), p)
    ):
        declared = declarations.of(documents[path])
        found += [(path, layout) for layout in declared.layouts if layout in layouts]
    return found


def _tags(document: dict[str, Any]) -> list[str]:
    """An experiment document's `tags` (none: empty)."""
    return list(document.get("tags") or [])


NODE_TAG = "node"
"""An experiment tagged so faults the whole node (kubelet, containerd, the API
server): every other experiment would feel it, so it never runs beside one."""


def hits_the_node(path: Path) -> bool:
    """Whether the experiment at `path` faults the whole node."""
    return NODE_TAG in _tags(yaml.safe_load(path.read_text()))


IRREVERSIBLE_TAG = "irreversible"
"""An experiment tagged so leaves the cluster changed for good; it runs last."""


def name_of(path: Path) -> str:
    """The experiment's report name."""
    return declarations.of(yaml.safe_load(path.read_text())).name


def unmet(path: Path, target: Target) -> list[str]:
    """Why the experiment at `path` does not apply to `target` (empty: it does).

    From the declarations alone, so a runner knows it before installing anything.
    """
    declared = declarations.of(yaml.safe_load(path.read_text()))
    return requirements.unmet(
        declared.requires, provider=target.provider, profile=profile_of(target)
    )


def run(path: Path, *, layout: str, target: Target) -> dict[str, Any]:
    """Run one experiment with `chaos run`; return its ChaosReport entry."""
    run_dir = target.reports_dir / "chaos" / "runs" / f"{path.stem}-{layout}"
    run_dir.mkdir(parents=True, exist_ok=True)
    chaos = Path(sys.executable).with_name("chaos")
    command = [
        str(chaos),
        "--log-file",
        str(run_dir / "chaostoolkit.log"),
        "run",
        "--rollback-strategy",
        "always",
        "--journal-path",
        str(run_dir / "journal.json"),
        str(path),
    ]
    output = run_dir / "chaos-run.out"
    returncode = run_letting_it_roll_back(
        command, env=target.env(layout), output=output
    )
    said = output.read_text(errors="replace")
    report = judging.report_path(target.reports_dir, profile_name(target))
    name = name_of(path)
    entries = []
    if report.exists():
        loaded = yaml.safe_load(report.read_text()) or {}
        entries = [
            e
            for e in loaded.get("experiments") or []
            if (e["name"], e["layout"]) == (name, layout)
        ]
    assert entries, (
        f"`chaos run` left no report entry for {name} ({layout}); exit code "
        f"{returncode}; output tail:\n{said[-3000:]}"
    )
    found = dict(entries[0])
    found["leaks"] = leaks(name, target, layout=layout)
    return found


def run_letting_it_roll_back(
    command: list[str], *, env: dict[str, str], output: Path
) -> int:
    """Run `chaos run` to its end, output into `output`; on Ctrl-C let it roll back first.

    chaostoolkit answers SIGINT by running the experiment's rollbacks (and ours
    then removes its namespaces and controller instance). `subprocess.run` would
    kill it 0.25 s after a KeyboardInterrupt, leaving all of that on the cluster.
    So `chaos run` gets a process group of its own, and on KeyboardInterrupt
    exactly one SIGINT from here, ROLLBACK_TIMEOUT to finish, and only then
    SIGKILL; the KeyboardInterrupt then goes on to pytest.
    """
    with output.open("w") as sink:
        proc = subprocess.Popen(
            command,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            process_group=0,
        )
        try:
            return proc.wait(timeout=RUN_TIMEOUT)
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=ROLLBACK_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise


def leaks(name: str, target: Target, *, layout: str) -> list[str]:
    """Namespaces the experiment's runs left behind (the suite's leak check, by label).

    By layout too: `make chaos` runs the other layout's run of the same
    experiment at the same time, and its namespace is not a leak of this one.
    """
    from chaos.lifecycle import instances
    from chaos.settings import ChaosSettings
    from conformance.harness.cluster import kube

    settings = ChaosSettings(provider=target.provider, cluster=target.cluster)
    clients = kube.connect(instances.locate(settings)[0])
    selector = (
        f"{kube.MANAGED_BY}={kube.MANAGED_BY_VALUE},{kube.TEST}=chaos-{name},"
        f"{kube.LAYOUT}={layout}"
    )
    return [
        ns.metadata.name
        for ns in clients.core.list_namespace(label_selector=selector).items
    ]


def profile_of(target: Target) -> profiles.Profile:
    """The target's implementation profile: the one it carries, else loaded now."""
    if target.profile is not None:
        return target.profile
    return profiles.load(
        target.implementation,
        variables=variables.parse_joined(
            target.profile_vars, source="WPC_CHAOS_PROFILE_VARS"
        ),
    )


def profile_name(target: Target) -> str:
    """The profile's `name`: what the ChaosReport is named after (not its path)."""
    return profile_of(target).name


def explain(entry: dict[str, Any]) -> str:
    """The entry's verdict and evidence, for an assertion message."""
    lines = [
        f"{entry['name']} ({entry['layout']}): {entry['outcome']}",
        *([f"not applicable: {entry['reason']}"] if entry.get("reason") else []),
        entry["injectionVerified"]["evidence"],
        f"steady state before: {entry['steadyStateBefore']}",
        f"steady state after: {entry['steadyStateAfter']}",
    ]
    lines += [
        f"{c['activity']} ({c['kind']}): {c['message']}"
        for c in entry.get("failedChecks") or []
    ]
    lines += [f"{v['invariant']}: {v['message']}" for v in entry["violations"]]
    lines.append(f"timeline: {entry['timelinePath']}")
    if entry.get("leaks"):
        lines.append(f"namespaces left behind: {entry['leaks']}")
    return "\n".join(lines)
