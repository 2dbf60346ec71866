"""The project's HTML pages, rendered from Jinja2 templates with escaping on.

Every report page (the ConformanceReport's, the ChaosReport's) extends one
base template, `plumbing/templates/page.html.j2`: the same inline stylesheet,
the same verdict banner, no script and nothing fetched from the network, so a
page opens the same from a CI artifact, a mail attachment or a laptop offline.
Autoescaping is always on: every value from a report (test names, messages,
paths written by programs the page does not control) is text, and only what a
template spells out is markup. Undefined names are errors, not empty strings,
so a renamed field fails the tests instead of vanishing from the page.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = "templates"
"""The folder of templates inside each package that has pages."""


def environment(*packages: str) -> jinja2.Environment:
    """Templates of `packages` (first wins), then the shared ones of this package."""
    loaders: list[jinja2.BaseLoader] = [
        jinja2.PackageLoader(name, TEMPLATES) for name in (*packages, "plumbing")
    ]
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(env: jinja2.Environment, template: str, context: Mapping[str, Any]) -> str:
    """One page: `template` filled with `context`."""
    return env.get_template(template).render(**context)


def href(target: str, page: Path | None) -> str:
    """Where a link from `page` to the file `target` points.

    Relative to the page when the file lies in the page's folder or below (the
    reports folder moves as a whole: a CI artifact, a copy elsewhere); else the
    file's absolute `file:` URI. Without a page, the path as it was recorded.
    Relative targets are taken from the working directory, where runs write them.
    """
    if page is None:
        return target
    folder = page.resolve().parent
    found = Path(target).resolve()
    if found.is_relative_to(folder):
        return Path(os.path.relpath(found, folder)).as_posix()
    return found.as_uri()
