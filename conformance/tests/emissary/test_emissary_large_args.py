"""EmissaryLargeArgs: a command whose argument exceeds exec's per-argument limit still runs.

We test these aspects (WPC-EMISSARY-011), with a container template running
`sh -c <script> sh <long> short-arg`, where `<long>` is 140000 bytes of `x`,
more than Linux's 128 KiB (131072 bytes) per-argument limit of `execve`, so
neither the pod's command line nor the user command can carry it inline:

- the node ends `Succeeded`: the user command started;
- it received `<long>` as `@<path>` of a file holding exactly those 140000
  bytes (an argument that long cannot reach it unchanged), and `short-arg`
  unchanged; the script reports how the argument arrived, its length, the
  number of its bytes that are not `x`, and the short argument, as the output
  parameter `report`, expected to be `file 140000 0 short-arg`.

Upstream bug this catches (conformance/spec/history.yaml,
large-container-args): before v4.1.0 and v4.0.1 the controller put the
arguments in the pod spec, so the container could not start (`execve`:
argument list too long); fix a739d3c6 moves arguments whose JSON exceeds
128 KiB to a ConfigMap (`ARGO_CONTAINER_ARGS_FILE`) and has the emissary
replace each argument over 128 KiB by `@/tmp/argo_arg_<i>.txt`. The reference
controller does not claim LARGE_ARGUMENTS (it fails such a pod at build time
with "not supported by the reference controller"). Matrix: legacy and
initless.
"""

from __future__ import annotations

import pytest

LONG = 140_000
"""Bytes of the long argument: more than the 131072-byte limit of one exec argument."""


@pytest.mark.conformance(short_name="EmissaryLargeArgs", clauses=["WPC-EMISSARY-011"])
def test_an_argument_over_the_exec_limit_reaches_the_command_as_a_file(
    workflows, manifest, observations
):
    name, workflow = workflows.completed(
        manifest(long_arg="x" * LONG), observations=observations
    )
    node = workflow["status"]["nodes"][name]
    assert (node["phase"], workflow["status"]["phase"]) == (
        "Succeeded",
        "Succeeded",
    ), f"{node['phase']}: {node.get('message', '')!r}"
    report = {
        p["name"]: p.get("value")
        for p in (node.get("outputs") or {}).get("parameters") or []
    }.get("report")
    assert report == f"file {LONG} 0 short-arg", (
        f"the command saw (form, length, non-x bytes, short argument): {report!r}"
    )
