"""We test these aspects of the shared page machinery (`plumbing.pages`):

- autoescaping is on for every template, and an undefined name is an error, not
  an empty string;
- a link to a file in the page's folder or below is relative, one elsewhere is
  the file's `file:` URI, and without a page the path stays as recorded.
"""

from __future__ import annotations

import jinja2
import pytest

from plumbing import pages


def test_values_are_escaped_and_undefined_names_fail():
    env = pages.environment()
    page = pages.render(
        env, "page.html.j2", {"title": "<b>x</b>", "verdict": "", "verdict_meaning": ""}
    )
    assert "<title>&lt;b&gt;x&lt;/b&gt;</title>" in page
    with pytest.raises(jinja2.UndefinedError):
        pages.render(env, "page.html.j2", {"verdict": ""})


def test_links_are_relative_inside_the_pages_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "reports" / "index.html"
    assert pages.href("reports/logs/a.txt", page) == "logs/a.txt"
    assert pages.href(str(tmp_path / "reports" / "b c.txt"), page) == "b c.txt"
    assert pages.href("/var/log/x.log", page) == "file:///var/log/x.log"
    assert pages.href("reports/logs/a.txt", None) == "reports/logs/a.txt"
