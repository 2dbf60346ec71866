"""We test how a corpus directory is read: images, requirements, skips.

An upstream `examples/` checkout mixes Workflows with other kinds and with
workflows that need a registry, a Secret or the network; each must be listed
as skipped with a reason that names what is missing, and only honest images
are mapped onto the tools image.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import contract
from conformance.errors import DataError
from wpc.differential import corpus
from wpc.differential import images
from wpc.differential import requirements
from wpc.differential.images import ImagePolicy

TOOLS = contract.TOOLS_IMAGE


def _workflow(template: dict, **spec) -> dict:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"generateName": "x-"},
        "spec": {
            "entrypoint": "main",
            "templates": [{"name": "main", **template}],
            **spec,
        },
    }


def _container(image: str = TOOLS, **fields) -> dict:
    return {
        "container": {
            "image": image,
            "command": ["sh", "-c"],
            "args": ["true"],
            **fields,
        }
    }


@pytest.mark.parametrize(
    ("ref", "repository"),
    [
        ("busybox", "busybox"),
        ("alpine:3.23", "alpine"),
        ("registry:5000/team/app:1.0", "registry:5000/team/app"),
        ("argoproj/argosay:v2@sha256:abc", "argoproj/argosay"),
    ],
)
def test_the_repository_of_an_image_reference(ref, repository):
    assert images.repository(ref) == repository


def test_an_image_map_entry_maps_any_tag_of_a_repository_or_one_exact_reference():
    policy = ImagePolicy(
        mapping=images.parse_map([f"busybox={TOOLS}", f"alpine:3.23={TOOLS}"])
    )
    assert policy.mapped("busybox") == TOOLS
    assert policy.mapped("busybox:1.36") == TOOLS
    assert policy.mapped("alpine:3.23") == TOOLS
    assert policy.mapped("alpine:3.7") == "alpine:3.7"
    assert policy.missing("alpine:3.7")
    assert not policy.missing("busybox:latest")


@pytest.mark.parametrize("pair", ["busybox", "=x", "busybox="])
def test_a_malformed_image_map_is_refused_by_name(pair):
    with pytest.raises(DataError, match="--image-map"):
        images.parse_map([pair])


def test_rewriting_maps_every_container_but_leaves_the_input_alone():
    workflow = _workflow(
        {**_container("busybox"), "sidecars": [{"name": "s", "image": "busybox"}]}
    )
    policy = ImagePolicy(mapping={"busybox": TOOLS})
    rewritten = images.rewrite(workflow, policy)
    assert images.images_of(rewritten) == [TOOLS]
    assert images.images_of(workflow) == ["busybox"]


@pytest.mark.parametrize(
    ("workflow", "reason"),
    [
        (
            _workflow(_container("python:alpine3.23")),
            "image python:alpine3.23 not available offline",
        ),
        (_workflow(_container("{{inputs.parameters.image}}")), "chosen at run time"),
        (
            _workflow(
                _container(
                    env=[
                        {
                            "name": "T",
                            "valueFrom": {"secretKeyRef": {"name": "tok", "key": "k"}},
                        }
                    ]
                )
            ),
            "needs Secret 'tok'",
        ),
        (
            _workflow(
                _container(
                    env=[
                        {
                            "name": "T",
                            "valueFrom": {
                                "configMapKeyRef": {"name": "cm", "key": "k"}
                            },
                        }
                    ]
                )
            ),
            "needs ConfigMap 'cm'",
        ),
        (
            _workflow(
                {
                    "steps": [
                        [{"name": "s", "templateRef": {"name": "lib", "template": "t"}}]
                    ]
                }
            ),
            "needs WorkflowTemplate 'lib'",
        ),
        (
            _workflow(
                {
                    **_container(),
                    "inputs": {
                        "artifacts": [
                            {"name": "src", "path": "/s", "git": {"repo": "https://x"}}
                        ]
                    },
                }
            ),
            "needs a git artifact repository",
        ),
        (
            _workflow(
                {
                    **_container(),
                    "inputs": {
                        "artifacts": [
                            {
                                "name": "f",
                                "path": "/f",
                                "http": {"url": "https://example.com/f"},
                            }
                        ]
                    },
                }
            ),
            "needs network access (https://example.com/f)",
        ),
        (
            _workflow(
                {
                    **_container(),
                    "outputs": {
                        "artifacts": [
                            {
                                "name": "o",
                                "path": "/o",
                                "s3": {
                                    "bucket": "mine",
                                    "endpoint": "s3.amazonaws.com",
                                    "key": "k",
                                },
                            }
                        ]
                    },
                }
            ),
            "needs S3 bucket mine at s3.amazonaws.com",
        ),
        (
            _workflow({"resource": {"action": "create", "manifest": "{}"}}),
            "resource template needs RBAC",
        ),
        (_workflow({"suspend": {}}), "waits for a manual resume"),
        (
            _workflow(_container(args=["wget -O- https://example.com"])),
            "needs network access (https://example.com in a command)",
        ),
        (
            _workflow(_container(), serviceAccountName="robot"),
            "needs serviceAccount 'robot'",
        ),
        (
            _workflow(_container(), volumeClaimTemplates=[{"metadata": {"name": "w"}}]),
            "needs a PersistentVolume provisioner",
        ),
    ],
)
def test_a_workflow_that_needs_what_the_machine_lacks_gets_a_reason(workflow, reason):
    found = requirements.reasons(workflow, ImagePolicy())
    assert any(reason in r for r in found), found


def test_a_synchronization_database_is_a_reason_and_the_default_account_is_not():
    workflow = _workflow(
        _container(),
        serviceAccountName="default",
        synchronization={"mutexes": [{"name": "m", "database": True}]},
    )
    assert requirements.reasons(workflow, ImagePolicy()) == [
        "spec.synchronization.mutexes[0].database: needs a synchronization database"
    ]


def test_the_suites_own_services_are_not_reasons_to_skip():
    workflow = _workflow(
        {
            **_container(),
            "inputs": {
                "artifacts": [
                    {
                        "name": "h",
                        "path": "/h",
                        "http": {"url": f"{requirements.SUITE_HTTP}hello.txt"},
                    },
                    {"name": "s", "path": "/s", "s3": {"key": "some/key"}},
                ]
            },
        },
    )
    workflow["spec"]["templates"][0]["container"]["env"] = [
        {
            "name": "K",
            "valueFrom": {
                "secretKeyRef": {"name": requirements.SUITE_SECRET, "key": "accessKey"}
            },
        }
    ]
    assert requirements.reasons(workflow, ImagePolicy()) == []


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_corpus_directory_lists_every_file_run_or_skipped_with_its_reason(tmp_path):
    _write(
        tmp_path,
        "hello.yaml",
        "kind: Workflow\nmetadata: {generateName: h-}\nspec:\n  entrypoint: main\n"
        "  templates:\n    - name: main\n      container: {image: busybox, command: [echo]}\n",
    )
    _write(tmp_path, "sub/cron.yml", "kind: CronWorkflow\nmetadata: {name: c}\n")
    _write(tmp_path, "two.yaml", "kind: Workflow\n---\nkind: Workflow\n")
    _write(tmp_path, "broken.yaml", "kind: [\n")
    _write(tmp_path, "notes.txt", "ignored")
    entries = corpus.load(tmp_path, policy=ImagePolicy(mapping={"busybox": TOOLS}))
    by_file = {e.file: e for e in entries}
    assert sorted(by_file) == ["broken.yaml", "hello.yaml", "sub/cron.yml", "two.yaml"]
    assert by_file["hello.yaml"].skipped == ""
    assert images.images_of(by_file["hello.yaml"].manifest) == [TOOLS]
    assert by_file["sub/cron.yml"].skipped == "not a Workflow (kind CronWorkflow)"
    assert by_file["two.yaml"].skipped == "2 YAML documents, expected one Workflow"
    assert by_file["broken.yaml"].skipped.startswith("not readable YAML")
    unmapped = corpus.load(tmp_path, policy=ImagePolicy())
    assert unmapped[1].skipped == "image busybox not available offline"


def test_a_missing_or_empty_corpus_is_invalid_input(tmp_path):
    with pytest.raises(DataError, match="not a directory"):
        corpus.load(tmp_path / "nope", policy=ImagePolicy())
    with pytest.raises(DataError, match=r"no \.yaml or \.yml files"):
        corpus.load(tmp_path, policy=ImagePolicy())
