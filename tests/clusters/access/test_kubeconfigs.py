"""We test these aspects of reading kubeconfigs as kubectl does (generated files, no cluster):

- which files: one given file, else every file of `KUBECONFIG` (':'-separated,
  empty entries and repeats dropped), else ~/.kube/config;
- a list is merged name by name, the first file that defines a cluster, user or
  context wins, and so does the first `current-context`; a listed file that does
  not exist is skipped, a list of which none exists is an error naming them;
- paths inside an entry are relative to the file that defines it (an exec
  plugin's too, but not a bare command name, which PATH finds);
- the current context is chosen unless one is named; an unknown context, none
  set, a context whose cluster or user is not defined, a file that is not YAML,
  not a mapping, not a regular file, or has malformed entries: each a
  KubeconfigError naming the file and the context;
- the chosen context is written alone (mode 0600) with its cluster and user, as
  the current context, and the Kubernetes client reads it so.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusters.access import kubeconfigs
from clusters.errors import KubeconfigError


def kubeconfig(
    path: Path,
    *,
    current: str | None = None,
    clusters: dict[str, dict[str, Any]] | None = None,
    users: dict[str, dict[str, Any]] | None = None,
    contexts: dict[str, tuple[str, str]] | None = None,
) -> Path:
    """Write a kubeconfig; `contexts` maps a name to (cluster, user)."""
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": n, "cluster": c} for n, c in (clusters or {}).items()],
        "users": [{"name": n, "user": u} for n, u in (users or {}).items()],
        "contexts": [
            {"name": n, "context": {"cluster": c, "user": u}}
            for n, (c, u) in (contexts or {}).items()
        ],
    }
    if current is not None:
        document["current-context"] = current
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document))
    return path


def one_context(path: Path, name: str, server: str, **extra: Any) -> Path:
    return kubeconfig(
        path,
        current=extra.pop("current", name),
        clusters={name: {"server": server, **extra.pop("cluster", {})}},
        users={name: {"token": f"token-{name}", **extra.pop("user", {})}},
        contexts={name: (name, name)},
    )


def test_the_files_are_the_given_one_else_kubeconfigs_list_else_the_home_default(
    tmp_path,
):
    home = tmp_path / "home"
    given = tmp_path / "given"
    assert kubeconfigs.sources("a:b", home=home, given=given) == (given,)
    assert kubeconfigs.sources("/a::/b:/a", home=home) == (Path("/a"), Path("/b"))
    assert kubeconfigs.sources("", home=home) == (home / ".kube" / "config",)


def test_a_list_is_merged_first_file_winning_for_each_name_and_the_current_context(
    tmp_path,
):
    first = kubeconfig(
        tmp_path / "first",
        clusters={"shared": {"server": "https://first:6443"}},
        users={"u": {"token": "first"}},
        contexts={"shared": ("shared", "u")},
    )
    second = kubeconfig(
        tmp_path / "second",
        current="other",
        clusters={
            "shared": {"server": "https://second:6443"},
            "other": {"server": "https://other:6443"},
        },
        users={"u": {"token": "second"}},
        contexts={"shared": ("other", "u"), "other": ("other", "u")},
    )
    third = one_context(tmp_path / "third", "third", "https://third:6443")
    merged = kubeconfigs.read((first, tmp_path / "absent", second, third))
    assert merged.files == (first, second, third)
    assert merged.skipped == (tmp_path / "absent",)
    # The first file sets no current-context: the second's counts, not the third's.
    assert merged.current == "other"
    shared = kubeconfigs.choose(merged, "shared")
    assert (shared.server, shared.user) == ("https://first:6443", {"token": "first"})
    assert kubeconfigs.choose(merged).server == "https://other:6443"
    assert str(tmp_path / "absent") in merged.where()


def test_paths_inside_an_entry_are_relative_to_the_file_that_defines_it(tmp_path):
    path = one_context(
        tmp_path / "dir" / "config",
        "c",
        "https://c:6443",
        cluster={"certificate-authority": "pki/ca.crt"},
        user={
            "client-certificate": "/abs/client.crt",
            "client-key": "pki/client.key",
            "exec": {"command": "bin/plugin", "apiVersion": "x"},
        },
    )
    chosen = kubeconfigs.resolve((path,))
    base = tmp_path / "dir"
    assert chosen.cluster["certificate-authority"] == str(base / "pki" / "ca.crt")
    assert chosen.user is not None
    assert chosen.user["client-certificate"] == "/abs/client.crt"
    assert chosen.user["client-key"] == str(base / "pki" / "client.key")
    assert chosen.user["exec"]["command"] == str(base / "bin" / "plugin")
    bare = one_context(
        tmp_path / "bare", "b", "https://b", user={"exec": {"command": "gke-auth"}}
    )
    chosen_bare = kubeconfigs.resolve((bare,))
    assert chosen_bare.user is not None
    assert chosen_bare.user["exec"]["command"] == "gke-auth"


def test_no_file_of_the_list_exists_is_an_error_naming_them(tmp_path):
    missing = (tmp_path / "a", tmp_path / "b")
    with pytest.raises(KubeconfigError, match=f"KUBECONFIG lists {tmp_path}/a, "):
        kubeconfigs.read(missing)
    with pytest.raises(KubeconfigError, match=f"{tmp_path}/a: no such file"):
        kubeconfigs.read(missing[:1])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("clusters: [\n", "not YAML"),
        ("- a\n- b\n", "not a mapping"),
        ("contexts:\n- name: x\n", "each entry needs a name and a context mapping"),
        (b"\xff\xfe", "UTF-8"),
    ],
)
def test_a_file_that_is_no_kubeconfig_is_an_error_naming_it(tmp_path, text, says):
    path = tmp_path / "config"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(KubeconfigError, match=says) as caught:
        kubeconfigs.read((path,))
    assert str(path) in str(caught.value)


def test_a_directory_in_the_list_is_an_error_naming_it(tmp_path):
    with pytest.raises(KubeconfigError, match="not a regular file") as caught:
        kubeconfigs.read((tmp_path,))
    assert str(tmp_path) in str(caught.value)


def test_an_empty_file_is_an_empty_kubeconfig_with_no_current_context(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("")
    with pytest.raises(KubeconfigError, match="no current-context is set") as caught:
        kubeconfigs.resolve((empty,))
    assert str(empty) in str(caught.value)


def test_an_unknown_context_is_an_error_naming_it_the_files_and_the_contexts(tmp_path):
    path = one_context(tmp_path / "config", "known", "https://k")
    with pytest.raises(KubeconfigError) as caught:
        kubeconfigs.resolve((path,), "typo")
    assert str(caught.value) == (
        f"--context 'typo' is not a context of {path} (contexts: known)"
    )
    stale = one_context(tmp_path / "stale", "known", "https://k", current="gone")
    with pytest.raises(
        KubeconfigError, match="current-context 'gone' is not a context"
    ):
        kubeconfigs.resolve((stale,))


def test_a_context_whose_cluster_or_user_is_not_defined_is_an_error(tmp_path):
    no_cluster = kubeconfig(
        tmp_path / "a", current="c", users={"u": {}}, contexts={"c": ("nowhere", "u")}
    )
    with pytest.raises(KubeconfigError, match="names cluster 'nowhere'"):
        kubeconfigs.resolve((no_cluster,))
    no_user = kubeconfig(
        tmp_path / "b",
        current="c",
        clusters={"k": {"server": "https://k"}},
        contexts={"c": ("k", "nobody")},
    )
    with pytest.raises(KubeconfigError, match="names user 'nobody'"):
        kubeconfigs.resolve((no_user,))


def test_the_chosen_context_is_written_alone_privately_and_the_client_reads_it(
    tmp_path,
):
    from kubernetes import config

    path = kubeconfig(
        tmp_path / "config",
        current="default",
        clusters={
            "unreachable": {"server": "https://127.0.0.1:1"},
            "wanted": {
                "server": "https://127.0.0.1:6443",
                "insecure-skip-tls-verify": True,
            },
        },
        users={"a": {"token": "a"}, "b": {"token": "b"}},
        contexts={"default": ("unreachable", "a"), "other": ("wanted", "b")},
    )
    chosen = kubeconfigs.resolve((path,), "other")
    written = kubeconfigs.write(chosen, tmp_path / "out")
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    document = yaml.safe_load(written.read_text())
    assert document["current-context"] == "other"
    assert [c["name"] for c in document["contexts"]] == ["other"]
    assert [c["name"] for c in document["clusters"]] == ["wanted"]
    assert [u["name"] for u in document["users"]] == ["b"]
    assert kubeconfigs.current_context(written) == "other"
    api = config.new_client_from_config(config_file=str(written))
    assert api.configuration.host == "https://127.0.0.1:6443"
    assert api.configuration.api_key == {"BearerToken": "Bearer b"}


def test_current_context_is_empty_for_a_file_that_is_no_kubeconfig(tmp_path):
    path = tmp_path / "config"
    path.write_text("- not\n- one\n")
    assert kubeconfigs.current_context(path) == ""
    assert kubeconfigs.current_context(tmp_path / "absent") == ""
