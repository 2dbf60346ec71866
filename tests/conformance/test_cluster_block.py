"""We test these aspects of the report's `cluster` block (no cluster):

- it says which cluster the run used: the provider (`existing` for a kubeconfig
  given as it is), the current context of the kubeconfig the run's clients read,
  the API server and the Kubernetes version;
- it travels from the run's preparation to the workers (`RunContext` JSON);
- the report carries it and the schema checks it (no other keys); a report
  without it (older ones) or with null still validates.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from conformance import spec as specs
from conformance.implementations import preparing
from conformance.implementations.contexts import ClusterChoice
from conformance.implementations.contexts import RunContext
from conformance.report.rendering import html
from conformance.report.runs import documents
from conformance.report.runs import ledger
from tests.clusters.access.test_kubeconfigs import kubeconfig
from tests.conformance.report.test_merging import committed_run

BLOCK = {
    "provider": "existing",
    "context": "second",
    "server": "https://127.0.0.1:6443",
    "kubernetesVersion": "v1.36.4",
}


def choice(given: Path | None, provider: str = "local") -> ClusterChoice:
    return ClusterChoice(
        kubeconfig=given, provider=provider, cluster="wpc", allow_foreign=False
    )


def test_the_block_names_provider_current_context_server_and_version(tmp_path):
    path = kubeconfig(
        tmp_path / "config",
        current="second",
        clusters={"c": {"server": "https://127.0.0.1:6443"}},
        users={"u": {"token": "t"}},
        contexts={"second": ("c", "u")},
    )

    def block(cluster: ClusterChoice) -> dict[str, str]:
        return preparing.cluster_block(
            cluster,
            str(path),
            server="https://127.0.0.1:6443",
            kubernetes_version="v1.36.4",
        )

    assert block(choice(None, "existing")) == BLOCK
    assert block(choice(path)) == BLOCK
    assert block(choice(None, "local"))["provider"] == "local"
    unknown = preparing.cluster_block(
        choice(None), str(path), server="https://s", kubernetes_version=""
    )
    assert "kubernetesVersion" not in unknown


def test_the_block_travels_to_the_workers():
    context = RunContext(
        session_id="s",
        started_at="t",
        kubeconfig="/k",
        kubectl="kubectl",
        instances=(),
        cluster=dict(BLOCK),
    )
    assert RunContext.from_json(context.to_json()).cluster == BLOCK
    old = {k: v for k, v in context.to_json().items() if k != "cluster"}
    assert RunContext.from_json(old).cluster == {}


def test_the_report_carries_the_block_and_the_schema_checks_it():
    committed = committed_run()
    built = documents.build(
        implementation=committed["implementation"],
        environment=committed["environment"],
        run=committed["run"],
        spec_version=str(specs.load().version),
        records=[],
        diffs=[],
        ledger=ledger.build(specs.load(), []),
        leaks=[],
        cluster=dict(BLOCK),
    )
    assert built["cluster"] == BLOCK
    documents.validate(built)
    documents.validate({**built, "cluster": None})
    documents.validate({k: v for k, v in built.items() if k != "cluster"})
    with pytest.raises(jsonschema.ValidationError, match="kubeconfig"):
        documents.validate({**built, "cluster": {**BLOCK, "kubeconfig": "/secret"}})
    with pytest.raises(jsonschema.ValidationError, match="'context' is a required"):
        documents.validate(
            {**built, "cluster": {k: v for k, v in BLOCK.items() if k != "context"}}
        )


def test_the_page_names_the_context_and_server_the_run_used():
    committed = html.read(
        Path("docs/results/conformance-2026-11-28/conformance-reference.yaml")
    )
    page = html.render({**committed, "cluster": dict(BLOCK)})
    facts = page.split("<dt>cluster</dt>", 1)[1].split("</dd>", 1)[0]
    assert f"context {BLOCK['context']} at {BLOCK['server']}" in facts
    assert "; context" not in html.render({**committed, "cluster": None})
