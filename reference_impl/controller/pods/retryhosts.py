"""`retryStrategy.affinity.nodeAntiAffinity`: keep a retry off the hosts earlier attempts failed on.

Upstream (v4.1.2) does this while building the pod (`podBuilder.scheduleOnDifferentHost`,
`workflow/controller/workflowpod.go`, after the podSpecPatch, before the template
deadline): it finds the Retry node that owns the pod's node (`FindRetryNode`,
`workflow/controller/retry_tweak.go`: the Retry node having the node as a child, else
the one having the node's boundary as a child), takes that node's template's
`retryStrategy`, and when its `affinity.nodeAntiAffinity` is set, collects the
`hostNodeName` of every Failed or Error Pod node below the Retry node
(`GetFailHosts`, `workflow/util/retry/retry.go`: a depth-first walk from the Retry
node, last child first, duplicates dropped, empty names kept). Those hosts become a
required node affinity term `<label> NotIn [hosts]`, merged into the pod's own
affinity (`AddHostnamesToAffinity`). The label is `RETRY_HOST_NAME_LABEL_KEY`
(default `kubernetes.io/hostname`; set empty, nothing is added).

`hostNodeName` is the node's `pod.spec.nodeName` as the controller last saw the pod
(`inference.assess`), so a pod that failed before it was scheduled adds an empty
name, as upstream's does.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

Json = dict[str, Any]

DEFAULT_LABEL = "kubernetes.io/hostname"
"""Upstream's default `RETRY_HOST_NAME_LABEL_KEY`."""
FAILED_OR_ERROR = ("Failed", "Error")


def retry_node_of(nodes: Mapping[str, Json], node_id: str) -> Json | None:
    """The Retry node owning `node_id` directly, else owning its boundary; None if neither."""

    def owner(child: str) -> Json | None:
        for node in nodes.values():
            if node.get("type") == "Retry" and child in (node.get("children") or []):
                return node
        return None

    found = owner(node_id)
    if found is not None:
        return found
    boundary = str((nodes.get(node_id) or {}).get("boundaryID") or "")
    return owner(boundary) if boundary else None


def wants_other_host(strategy: Json | None) -> bool:
    """Whether a retry strategy asks for retries on other hosts."""
    affinity = (strategy or {}).get("affinity")
    return isinstance(affinity, dict) and affinity.get("nodeAntiAffinity") is not None


def failed_hosts(nodes: Mapping[str, Json], retry_id: str) -> list[str]:
    """Hosts of the Failed or Error Pod nodes below `retry_id`, in upstream's order."""
    hosts: list[str] = []
    stack = [retry_id]
    while stack:
        node = nodes.get(stack.pop())
        if node is None:
            continue
        if node.get("type") == "Pod" and node.get("phase") in FAILED_OR_ERROR:
            hosts.append(str(node.get("hostNodeName") or ""))
        stack += [c for c in node.get("children") or [] if c in nodes]
    return list(dict.fromkeys(hosts))


def exclude_hosts(
    affinity: Json | None, label: str, hosts: list[str], operator: str = "NotIn"
) -> Json | None:
    """`affinity` with a required `label NotIn hosts` term merged in (a new object).

    Where the affinity already has required terms: the first term with no
    expressions gets the requirement; else the first `label NotIn` expression
    found gets the hosts (duplicates dropped); else the first term gets the
    requirement appended, as upstream merges. `operator` is `NotIn` but for the
    `retry-on-failed-host` negative control, which pins the retry with `In`.
    """
    if not hosts:
        return affinity
    requirement = {"key": label, "operator": operator, "values": list(hosts)}
    required = {"nodeSelectorTerms": [{"matchExpressions": [requirement]}]}
    merged = copy.deepcopy(affinity) if affinity else {}
    node_affinity = merged.get("nodeAffinity")
    if not node_affinity:
        merged["nodeAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": required
        }
        return merged
    existing = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not existing:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = required
        return merged
    terms = existing.get("nodeSelectorTerms") or []
    if not terms:
        existing["nodeSelectorTerms"] = required["nodeSelectorTerms"]
        return merged
    for term in terms:
        expressions = term.setdefault("matchExpressions", [])
        if not expressions:
            expressions.append(requirement)
            return merged
        for expression in expressions:
            if (
                expression.get("key") == label
                and expression.get("operator") == operator
            ):
                values = [*(expression.get("values") or []), *hosts]
                expression["values"] = list(dict.fromkeys(values))
                return merged
    terms[0]["matchExpressions"].append(requirement)
    return merged


def avoided_hosts(
    nodes: Mapping[str, Json],
    node_id: str,
    templates: Mapping[str, Json],
    fallback: Json,
) -> list[str]:
    """The hosts the pod of `node_id` must avoid (empty: no anti-affinity applies).

    The Retry node's template is looked up by its `templateName`; `fallback` (the
    pod's own template) stands in when the Retry node names none, as upstream's
    `retryNodeTemplate` falls back.
    """
    retry = retry_node_of(nodes, node_id)
    if retry is None:
        return []
    name = retry.get("templateName")
    template = templates.get(str(name)) if name else fallback
    if not wants_other_host((template or {}).get("retryStrategy")):
        return []
    return failed_hosts(nodes, str(retry["id"]))
