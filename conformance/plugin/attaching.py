"""Allure labels and attachments, typed in one place.

allure-pytest is a hard dependency, but its API is untyped; this module is the
only one that calls it. Outside an allure run (no --alluredir) the calls do
nothing.
"""

from __future__ import annotations

from pathlib import Path

import allure


def label_test(
    *, short_name: str, layout: str, features: list[str], clauses: list[str]
) -> None:
    """Story = ShortName, features, a layout label and parameter, clause tags."""
    allure.dynamic.story(short_name)  # type: ignore[no-untyped-call]
    allure.dynamic.label("layout", layout)  # type: ignore[no-untyped-call]
    allure.dynamic.parameter("layout", layout)
    for feature in features:
        allure.dynamic.feature(feature)  # type: ignore[no-untyped-call]
    allure.dynamic.tag(*clauses)  # type: ignore[no-untyped-call]


def attach_file(path: Path, *, name: str, yaml: bool) -> None:
    """Attach one evidence file to the running test."""
    kind = allure.attachment_type.YAML if yaml else allure.attachment_type.TEXT
    allure.attach.file(str(path), name=name, attachment_type=kind)  # type: ignore[no-untyped-call]
