"""Whether a tag's build is already in the cache, asked without building anything.

The argo-workflows profile builds a git ref of a source repository into
`<cache>/components/argo-workflows-<commit12>/` and stamps it `.complete` when
done (`conformance.implementations.upstream`); a later run at the same commit
builds nothing. Only that stamp counts as built: an image archive or an
exported tree alone does not, and the cache key comes from the same function
the builder uses, so "built" here means exactly what the builder will reuse.
Turning the binaries into images and loading them is left to the run (seconds).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from conformance.implementations.contexts import Environment
from conformance.implementations.upstream import building
from conformance.implementations.upstream import sources


def cache_dir() -> Path:
    """The `{cache_dir}` the profile's commands get (WPC_CACHE_DIR or ~/.cache/wpc)."""
    return Environment.from_env().cache_dir


def is_built(commit: str, cache: Path) -> bool:
    """Whether the binaries of a git commit of the source are built and stamped."""
    return building.is_source_built(sources.ref_key(commit), cache)


def built(commits: Mapping[str, str], cache: Path) -> dict[str, bool]:
    """Tag -> whether its commit is built, for every tag given."""
    return {tag: is_built(commit, cache) for tag, commit in commits.items()}
