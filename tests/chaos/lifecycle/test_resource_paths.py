"""The lifecycle room finds its files from where it lives.

Moving `chaos/actions.py` and `chaos/finishing.py` one folder down left both
looking one level too shallow (every experiment of a `make chaos` failed with
"cannot read manifest .../chaos/lifecycle/experiments/workflows/held-output.yaml");
no unit test read either path.
"""

from __future__ import annotations

import re

from chaos.lifecycle import actions
from chaos.lifecycle import judging
from chaos.suite import experimenting


def test_every_manifest_an_experiment_names_is_in_the_workflows_dir():
    named = set()
    for path in experimenting.EXPERIMENTS_DIR.glob("*.yaml"):
        named |= set(re.findall(r"manifest: (\S+\.yaml)", path.read_text()))
    assert named, "no experiment names a manifest"
    missing = [m for m in sorted(named) if not (actions.WORKFLOWS_DIR / m).is_file()]
    assert missing == [], f"not in {actions.WORKFLOWS_DIR}: {missing}"


def test_the_repository_root_is_the_checkout():
    assert (judging.REPO / "pyproject.toml").is_file()
    assert (judging.REPO / "chaos" / "lifecycle" / "judging.py").is_file()
