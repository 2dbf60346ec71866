"""Tiny HTML building blocks for the run's HTML report, escaping by construction.

Every piece of text from a report (test messages, node IDs, log paths) is
written by people or programs the report does not control, so nothing here
takes raw markup from a caller: `text` escapes, and `element` escapes its
attributes and accepts as children only `Markup` (already built here) or plain
strings (escaped). A `<script>` in a failure message stays text.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Markup:
    """HTML built by this module; the only thing inserted without escaping."""

    html: str

    def __str__(self) -> str:
        return self.html


Child = Markup | str


def text(value: object) -> Markup:
    """Any value as escaped text (quotes too, so it is safe in attributes)."""
    return Markup(html.escape(str(value), quote=True))


def join(children: Iterable[Child]) -> Markup:
    """Children side by side: Markup as it is, strings escaped."""
    return Markup(
        "".join(c.html if isinstance(c, Markup) else text(c).html for c in children)
    )


def element(tag: str, *children: Child, **attrs: str) -> Markup:
    """`<tag attrs>children</tag>`; `class_` spells the class attribute."""
    rendered = "".join(
        f' {name.rstrip("_").replace("_", "-")}="{text(value).html}"'
        for name, value in attrs.items()
    )
    return Markup(f"<{tag}{rendered}>{join(children).html}</{tag}>")


def table(headers: Iterable[str], rows: Iterable[Iterable[Child]]) -> Markup:
    """A table with a header row; each cell is Markup or escaped text."""
    head = element("tr", *(element("th", h) for h in headers))
    body = [element("tr", *(element("td", cell) for cell in row)) for row in rows]
    return element("table", element("thead", head), element("tbody", *body))


def page(title: str, style: str, *body: Child) -> str:
    """A whole self-contained document: inline CSS, no scripts, no external links."""
    return (
        "<!DOCTYPE html>\n"
        + element(
            "html",
            element(
                "head",
                Markup('<meta charset="utf-8">'),
                element("title", title),
                element("style", Markup(style)),
            ),
            element("body", *body),
            lang="en",
        ).html
        + "\n"
    )
