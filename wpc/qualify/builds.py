"""The two builds a qualification compares, and which items a rerun selects: pure.

A build is one git ref of one source tree, passed to the profile as variables:
`source` and `ref` (what to build), `build` (its image tag and cache directory:
the ref itself when that is a valid image tag, else a slug of it) and
`instance_prefix` (`wpc-q-<slug>`, so its controller instances do not clash
with the other build's or with a plain run's `wpc-legacy`). The profile must
declare these variables; the upstream profile does.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass

from conformance.errors import DataError
from conformance.harness.instances import layouts
from conformance.implementations import profiles
from conformance.implementations.upstream import pins
from plumbing import commands

VARIABLES = ("source", "ref", "build", "instance_prefix")
"""The profile variables a build sets; a profile lacking one cannot be qualified."""
SLUG_LENGTH = 20
"""At most this long, so that `wpc-q-<slug>-initless` stays within 40 characters."""


@dataclass(frozen=True)
class Build:
    """One version under qualification."""

    side: str
    """old or new."""
    ref: str
    """The git ref (tag, branch or commit) as given."""
    source: str
    """The source tree or git repository ('' : the profile's own default)."""

    @property
    def slug(self) -> str:
        """The ref as a DNS label fragment: lower case, runs of other characters as '-'."""
        return slug(self.ref)

    @property
    def build(self) -> str:
        """The image tag and cache directory name: the ref if it is a tag, else the slug."""
        return self.ref if profiles.IMAGE_TAG.match(self.ref) else self.slug

    @property
    def instance_prefix(self) -> str:
        """The prefix of this build's controller instance IDs."""
        return f"wpc-q-{self.slug}"

    def variables(self) -> dict[str, str]:
        """The `--profile-var` values of this build."""
        found = {
            "ref": self.ref,
            "build": self.build,
            "instance_prefix": self.instance_prefix,
        }
        if self.source:
            found["source"] = self.source
        return found


def slug(ref: str) -> str:
    """`v4.1.0` -> `v4-1-0`; DataError for a ref with nothing usable in it."""
    text = re.sub(r"[^a-z0-9]+", "-", ref.lower()).strip("-")[:SLUG_LENGTH].strip("-")
    if not text:
        raise DataError(f"ref {ref!r}: no letters or digits to name its build by")
    return text


def plan(old_ref: str, new_ref: str, source: str) -> tuple[Build, Build]:
    """The two builds; DataError when they would share a name or a ref is empty."""
    for side, ref in (("OLD", old_ref), ("NEW", new_ref)):
        if not ref.strip():
            raise DataError(
                f"{side}: give a git ref (a tag such as v4.1.0, or a commit)"
            )
    old, new = Build("old", old_ref, source), Build("new", new_ref, source)
    if old.slug == new.slug or old.build == new.build:
        raise DataError(
            f"OLD {old_ref!r} and NEW {new_ref!r} would share the build name "
            f"{new.slug!r}: give two different refs"
        )
    return old, new


def shared_cluster_conflict(old: Build, new: Build) -> str:
    """Why OLD and NEW cannot run side by side on one cluster, or '' when they can.

    CRDs are cluster-wide: side by side, both runs use the CRDs of whichever side
    prepared last, so builds whose CRDs differ (a field one knows and the other's
    schema prunes) must run one at a time. Compared in the source repository at
    both refs; a source git cannot compare counts as a difference, with its words.
    """
    if not old.source:
        return "no source repository to compare their CRDs in"
    done = commands.attempt(
        [
            "git",
            "-C",
            old.source,
            "diff",
            "--quiet",
            old.ref,
            new.ref,
            "--",
            pins.CRDS_BASE,
        ],
        timeout=GIT_TIMEOUT,
    )
    if done.returncode == 0:
        return ""
    if done.returncode == 1:
        return f"their CRDs differ ({pins.CRDS_BASE} of {old.ref} and {new.ref})"
    last = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return f"git could not compare their CRDs (exit {done.returncode}: {last})"


GIT_TIMEOUT = 60.0
"""`git diff --quiet` of two refs' CRD directories; seconds on any repository."""


def check_profile(implementation: str, build: Build) -> profiles.Profile:
    """Load the profile with the build's variables; DataError if it cannot take them."""
    declared = profiles.load(implementation).variables
    missing = [name for name in VARIABLES if name not in declared]
    if missing:
        raise DataError(
            f"implementation {implementation!r}: qualify needs the profile variables "
            f"{', '.join(VARIABLES)}; it does not declare {', '.join(missing)}"
        )
    return profiles.load(implementation, variables=build.variables())


def function_name(nodeid: str) -> str:
    """`conformance/tests/test_x.py::test_y[legacy]` -> `test_y`."""
    return nodeid.rsplit("::", 1)[-1].split("[", 1)[0]


def selections(keys: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The reruns that select the items (test id, layout) given: layout -> `-k`.

    Items of one layout: one run of that layout, selecting their functions. Items
    of both: one run of both layouts (`both`), each function with its layout's
    parameter id (`(test_alpha and [legacy])`), so that each side pays one suite
    start-up (prepare, install check, collection) per rerun round, not one per
    layout. `-k` matches names by substring, so it may select a few more items
    than asked for; the rerun's report is read by exact test id, so extras are
    only time.
    """
    names: dict[str, set[str]] = {}
    for nodeid, layout in keys:
        names.setdefault(layout, set()).add(function_name(nodeid))
    if len(names) == 1:
        ((layout, found),) = names.items()
        return {layout: " or ".join(sorted(found))}
    return {
        layouts.BOTH: " or ".join(
            f"({name} and [{layout}])"
            for layout, found in sorted(names.items())
            for name in sorted(found)
        )
    }


def profile_var_args(variables: Mapping[str, str]) -> list[str]:
    """`--profile-var NAME=VALUE` pairs, in a stable order."""
    return [
        arg
        for name in sorted(variables)
        for arg in ("--profile-var", f"{name}={variables[name]}")
    ]


def recorded_ref(reproduce: str) -> str:
    """The `ref` profile variable a report's `run.reproduce` line was run with, or ''.

    A qualification's run passes `--profile-var ref=REF`, which the report
    records as `--wpc-profile-var ref=REF`; reading it back names the version
    exactly as the qualification did (a commit ref is not in the version string).
    """
    try:
        words = shlex.split(reproduce)
    except ValueError:
        return ""
    for flag, value in itertools.pairwise(words):
        if flag.endswith("profile-var") and value.startswith("ref="):
            return value.removeprefix("ref=")
    for word in words:
        for flag in ("--wpc-profile-var=ref=", "--profile-var=ref="):
            if word.startswith(flag):
                return word.removeprefix(flag)
    return ""
