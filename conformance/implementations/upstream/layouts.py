"""Which pod layouts an Argo Workflows source tree can run, read from its source.

The init-less layout arrived in v4.1.0; v4.0.x builds only the legacy one. The
tag name is no evidence (a fork or a backport may differ), so the tree itself
is read: a controller with the init-less layout has the `initlessPod` field in
its configuration (`config/*.go`). The same field decides the ConfigMap: Argo
parses its configuration strictly, so a controller without the field refuses
a ConfigMap that names it, and the manifests must leave the key out.
"""

from __future__ import annotations

import re
from pathlib import Path

from conformance import contract

CONFIG_DIR = "config"
INITLESS_FIELD = re.compile(r'json:"initlessPod[,"]')
"""The struct tag of the init-less switch in the controller's configuration."""


def has_initless_config(tree: Path) -> bool:
    """True when a Go file of the tree's `config/` declares the `initlessPod` field."""
    return any(
        INITLESS_FIELD.search(path.read_text(errors="replace"))
        for path in sorted((tree / CONFIG_DIR).glob("*.go"))
        if not path.name.endswith("_test.go")
    )


def unsupported(tree: Path) -> dict[str, str]:
    """The layouts the tree cannot run, each with the reason; empty when it runs both."""
    if has_initless_config(tree):
        return {}
    return {
        contract.INITLESS: (
            "the source has no init-less pod layout: no Go file of its "
            f"{CONFIG_DIR}/ declares the initlessPod configuration field "
            "(upstream added the layout in v4.1.0)"
        )
    }
