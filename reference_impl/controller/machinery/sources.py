"""Where the controller's caches read from: API collections filtered like Argo's informers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference_impl import common
from reference_impl.controller.machinery import kube

Json = dict[str, Any]


def instance_selector(instance_id: str, *, also: str = "") -> str:
    """Return the label selector for this controller's objects (`InstanceIDRequirement`).

    `also`: another instance ID whose objects are selected too (only the
    `claim-sibling-pods` fault asks for one).
    """
    if instance_id and also:
        return f"{common.LABEL_INSTANCE_ID} in ({instance_id},{also})"
    if instance_id:
        return f"{common.LABEL_INSTANCE_ID}={instance_id}"
    return f"!{common.LABEL_INSTANCE_ID}"


def workflow_index(obj: Json) -> list[str]:
    """Index pods and task results by `<namespace>/<workflow>` from their workflow label."""
    meta = obj.get("metadata") or {}
    name = (meta.get("labels") or {}).get(common.LABEL_WORKFLOW)
    return [f"{meta.get('namespace')}/{name}"] if name else []


class ApiSource:
    """An informer source for one API collection and selector."""

    def __init__(
        self,
        api: kube.KubeApi,
        path: str,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> None:
        self._api, self._path = api, path
        self._labels, self._fields = label_selector, field_selector

    def list_items(self) -> tuple[list[Json], str]:
        """List the collection."""
        return self._api.list_objects(
            self._path, label_selector=self._labels, field_selector=self._fields
        )

    def watch(self, resource_version: str) -> Iterator[tuple[str, Json]]:
        """Watch the collection."""
        return self._api.watch(
            self._path,
            resource_version=resource_version,
            label_selector=self._labels,
            field_selector=self._fields,
        )
