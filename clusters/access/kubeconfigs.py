"""Kubeconfig files read as kubectl reads them, and one context written out alone.

Which files, in kubectl's order: the one file given (kubectl's `--kubeconfig`),
else the `KUBECONFIG` list (`os.pathsep`-separated, ':' on Linux), else
`~/.kube/config`. A list is merged name by name: for each cluster, user and
context name the first file that defines it wins, and so does the first
`current-context` that is set. A listed file that does not exist is skipped, as
kubectl skips it; one that exists but cannot be read or is not a kubeconfig is
an error naming it, and so is a list of which no file exists. A path inside an
entry (a CA file, a client certificate, an exec plugin given as a path) is
relative to the file that defines it.

`write` puts the chosen context alone in a file of its own, its paths made
absolute: `wpc run --provider existing` hands that one file to every client of
the run (the suite's Python client, kubectl in the tests and the profile's
commands, image loading), so none of them can reach another context.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from clusters.errors import KubeconfigError
from plumbing import textfiles

VARIABLE = "KUBECONFIG"
DEFAULT = Path(".kube") / "config"
"""kubectl's file when `KUBECONFIG` is unset or empty, below the home directory."""
LIMIT = 4 * textfiles.MIB
"""A kubeconfig is a few KiB; anything far larger is not one."""
SECTIONS = {"clusters": "cluster", "users": "user", "contexts": "context"}
"""The named lists of a kubeconfig, each entry's body under the singular key."""
PATH_KEYS = {
    "clusters": ("certificate-authority",),
    "users": ("client-certificate", "client-key", "tokenFile"),
}
"""The fields that name files, relative to the kubeconfig that holds them."""


@dataclass(frozen=True)
class Merged:
    """What a list of kubeconfig files says, merged as kubectl merges it."""

    files: tuple[Path, ...]
    """The files read, in order."""
    skipped: tuple[Path, ...]
    """Listed files that do not exist."""
    sections: Mapping[str, Mapping[str, dict[str, Any]]]
    """`clusters`, `users`, `contexts`: name -> the entry's body."""
    current: str
    """The first `current-context` set, or ""."""

    def where(self) -> str:
        """The files, for a message."""
        read = ", ".join(map(str, self.files)) or "no file"
        skipped = ", ".join(map(str, self.skipped))
        return read + (f" (absent, skipped: {skipped})" if skipped else "")


@dataclass(frozen=True)
class Chosen:
    """One context with its cluster and user, ready to be written alone."""

    context: str
    body: dict[str, Any]
    """The context's own fields: cluster, user, namespace."""
    cluster: dict[str, Any]
    user: dict[str, Any] | None
    """None when the context names no user (anonymous, as kubectl allows)."""
    origin: str
    """The files it came from, for messages and `--list`."""

    @property
    def server(self) -> str:
        """The API server's URL."""
        return str(self.cluster.get("server") or "")

    def document(self) -> dict[str, Any]:
        """A kubeconfig holding this context alone, as its current context."""
        cluster_name = str(self.body["cluster"])
        document: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": cluster_name, "cluster": self.cluster}],
            "users": [],
            "contexts": [{"name": self.context, "context": self.body}],
            "current-context": self.context,
            "preferences": {},
        }
        if self.user is not None:
            document["users"] = [{"name": str(self.body["user"]), "user": self.user}]
        return document


def sources(
    variable: str, *, home: Path, given: Path | None = None
) -> tuple[Path, ...]:
    """The files kubectl would read: `given`, else `KUBECONFIG`'s, else ~/.kube/config.

    `variable` is `KUBECONFIG`'s value ("" when unset).
    """
    if given is not None:
        return (given.expanduser(),)
    listed = [p for p in variable.split(os.pathsep) if p]
    if listed:
        return tuple(Path(p).expanduser() for p in dict.fromkeys(listed))
    return (home / DEFAULT,)


def read(paths: tuple[Path, ...]) -> Merged:
    """Merge `paths` as kubectl does; KubeconfigError naming a file that is no kubeconfig."""
    present = tuple(p for p in paths if os.path.lexists(p))
    if not present:
        listed = ", ".join(map(str, paths))
        how = f"{VARIABLE} lists" if len(paths) > 1 else "the kubeconfig is"
        raise KubeconfigError(f"{how} {listed}: no such file")
    sections: dict[str, dict[str, dict[str, Any]]] = {key: {} for key in SECTIONS}
    current = ""
    for path in present:
        data = _load(path)
        for section, body_key in SECTIONS.items():
            for name, body in _entries(path, data, section, body_key):
                sections[section].setdefault(name, _absolute(path, section, body))
        current = current or str(data.get("current-context") or "")
    return Merged(
        files=present,
        skipped=tuple(p for p in paths if p not in present),
        sections=sections,
        current=current,
    )


def choose(merged: Merged, context: str | None = None) -> Chosen:
    """The named context, else the current one; KubeconfigError naming what is missing."""
    contexts = merged.sections["contexts"]
    known = ", ".join(sorted(contexts)) or "none"
    name = context or merged.current
    if not name:
        raise KubeconfigError(
            f"{merged.where()}: no current-context is set; name one with --context "
            f"(contexts: {known})"
        )
    if name not in contexts:
        which = "--context" if context else "current-context"
        raise KubeconfigError(
            f"{which} {name!r} is not a context of {merged.where()} (contexts: {known})"
        )
    body = contexts[name]
    cluster_name = str(body.get("cluster") or "")
    cluster = merged.sections["clusters"].get(cluster_name)
    if cluster is None or not cluster.get("server"):
        raise KubeconfigError(
            f"context {name!r} of {merged.where()} names cluster {cluster_name!r}, "
            "which is not defined there with a server"
        )
    user_name = str(body.get("user") or "")
    user = merged.sections["users"].get(user_name) if user_name else None
    if user_name and user is None:
        raise KubeconfigError(
            f"context {name!r} of {merged.where()} names user {user_name!r}, "
            "which is not defined there"
        )
    return Chosen(
        context=name, body=body, cluster=cluster, user=user, origin=merged.where()
    )


def resolve(paths: tuple[Path, ...], context: str | None = None) -> Chosen:
    """`choose(read(paths), context)`."""
    return choose(read(paths), context)


def write(chosen: Chosen, path: Path) -> Path:
    """Write `chosen` alone to `path`, readable by its owner only (it holds credentials)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        yaml.safe_dump(chosen.document(), out, sort_keys=False)
    return path


def current_context(path: Path) -> str:
    """The file's `current-context`, or "" when it has none or is no kubeconfig."""
    try:
        return str(_load(path).get("current-context") or "")
    except KubeconfigError:
        return ""


def _load(path: Path) -> dict[str, Any]:
    try:
        text = textfiles.read(path, limit=LIMIT, what="kubeconfig")
        data = yaml.safe_load(text)
    except textfiles.TextFileError as exc:
        raise KubeconfigError(str(exc)) from exc
    except yaml.YAMLError as exc:
        raise KubeconfigError(f"{path}: not a kubeconfig (not YAML: {exc})") from exc
    if data is None:
        return {}  # an empty file is an empty kubeconfig, to kubectl too
    if not isinstance(data, dict):
        raise KubeconfigError(f"{path}: not a kubeconfig (not a mapping)")
    return data


def _entries(
    path: Path, data: dict[str, Any], section: str, body_key: str
) -> list[tuple[str, dict[str, Any]]]:
    entries = data.get(section) or []
    found = []
    for entry in entries if isinstance(entries, list) else [entries]:
        name = entry.get("name") if isinstance(entry, dict) else None
        body = entry.get(body_key) if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name or not isinstance(body, dict):
            raise KubeconfigError(
                f"{path}: not a kubeconfig ({section}: each entry needs a name and "
                f"a {body_key} mapping, not {entry!r})"
            )
        found.append((name, body))
    return found


def _absolute(path: Path, section: str, body: dict[str, Any]) -> dict[str, Any]:
    """`body` with its file paths made absolute, relative to `path` as kubectl does."""
    base = path.absolute().parent
    fixed = dict(body)
    for key in PATH_KEYS.get(section, ()):
        value = fixed.get(key)
        if isinstance(value, str) and value and not Path(value).is_absolute():
            fixed[key] = str(base / value)
    plugin = fixed.get("exec")
    if section == "users" and isinstance(plugin, dict):
        command = plugin.get("command")
        # A bare name is looked up on PATH; only a relative path is the file's.
        if isinstance(command, str) and "/" in command and not command.startswith("/"):
            fixed["exec"] = {**plugin, "command": str(base / command)}
    return fixed
