"""The cluster marker ConfigMap: what every WPC cluster says about itself.

We test these aspects: the marker is labelled as WPC's and names its provider and
cluster; a provider's details (kind: the node image and its ID) are added beside
them, and cannot be confused with the three fields every marker has.
"""

from __future__ import annotations

from clusters.access import marker


def test_the_marker_names_provider_and_cluster_and_is_labelled():
    cm = marker.manifest(provider="local", name="wpc")
    assert (cm["metadata"]["name"], cm["metadata"]["namespace"]) == (
        marker.NAME,
        marker.NAMESPACE,
    )
    assert cm["metadata"]["labels"][marker.LABEL] == "true"
    assert {k: cm["data"][k] for k in ("provider", "name")} == {
        "provider": "local",
        "name": "wpc",
    }
    assert set(cm["data"]) == {"provider", "name", "created"}


def test_a_providers_details_are_recorded_beside_them():
    cm = marker.manifest(
        provider="kind",
        name="wpc-kind",
        details={"nodeImage": "wpc.local/kind-node:v1", "nodeImageId": "sha256:ab"},
    )
    assert cm["data"]["provider"] == "kind"
    assert cm["data"]["nodeImage"] == "wpc.local/kind-node:v1"
    assert cm["data"]["nodeImageId"] == "sha256:ab"
    spoofed = marker.manifest(provider="kind", name="x", details={"provider": "local"})
    assert spoofed["data"]["provider"] == "kind"
