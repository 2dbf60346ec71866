"""We test these aspects of the image digests the report records (no cluster):

- a registry image's repo digest comes from the nodes' image lists;
- an image imported from an archive (the node lists its tag alone) gets the
  digest of the archive this run loaded, else the image ID a running container
  reports, and "unknown" only when neither exists;
- an archive written before the run, or not an OCI archive, is not believed.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from clusters.images import archives as oci
from conformance.implementations import images
from conformance.implementations import preparing


def clients(*, node_images, pods=()):
    node = SimpleNamespace(
        status=SimpleNamespace(images=[SimpleNamespace(names=n) for n in node_images])
    )
    pod_items = [
        SimpleNamespace(
            status=SimpleNamespace(
                container_statuses=[
                    SimpleNamespace(image=i, image_id=d) for i, d in pod
                ],
                init_container_statuses=None,
            )
        )
        for pod in pods
    ]
    core = SimpleNamespace(
        list_node=lambda: SimpleNamespace(items=[node]),
        list_pod_for_all_namespaces=lambda: SimpleNamespace(items=pod_items),
    )
    return SimpleNamespace(core=core)


def test_the_digests_of_registry_loaded_and_running_images():
    found = preparing.image_digests(
        clients(
            node_images=[
                [
                    "quay.io/argoproj/argoexec@sha256:aaa",
                    "quay.io/argoproj/argoexec:v4.1.2",
                ],
                ["wpc.local/wpc-tools:0.1.0"],
                ["wpc.local/ctl:1"],
            ],
            pods=[[("wpc.local/ctl:1", "sha256:ccc")]],
        ),
        [
            "quay.io/argoproj/argoexec:v4.1.2",
            "wpc.local/wpc-tools:0.1.0",
            "wpc.local/ctl:1",
            "x/none:1",
        ],
        loaded={"wpc.local/wpc-tools:0.1.0": "sha256:bbb"},
    )
    assert found == {
        "quay.io/argoproj/argoexec:v4.1.2": "sha256:aaa",
        "wpc.local/wpc-tools:0.1.0": "sha256:bbb",
        "wpc.local/ctl:1": "sha256:ccc (image ID)",
        "x/none:1": "unknown (not on any node)",
    }


def test_only_archives_written_during_the_run_are_believed(tmp_path):
    context = tmp_path / "ctx"
    context.mkdir()
    (context / "Dockerfile").write_text("FROM scratch\nCOPY f /f\n")
    (context / "f").write_text("x")
    fresh = tmp_path / "images" / "tools" / images.archive_name("wpc.local/t:1")
    digest = oci.build_image(context=context, tag="wpc.local/t:1", output=fresh)
    stale = tmp_path / "images" / "old" / images.archive_name("wpc.local/old:1")
    oci.build_image(context=context, tag="wpc.local/old:1", output=stale)
    os.utime(stale, (1, 1))
    junk = tmp_path / "images" / "x" / images.archive_name("wpc.local/junk:1")
    junk.parent.mkdir(parents=True)
    junk.write_text("not a tar")
    found = images.loaded_digests(
        tmp_path / "images",
        ["wpc.local/t:1", "wpc.local/old:1", "wpc.local/junk:1"],
        since=Path(fresh).stat().st_mtime - 1,
    )
    assert found == {"wpc.local/t:1": digest}
