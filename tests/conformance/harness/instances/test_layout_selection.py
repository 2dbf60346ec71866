"""We test these aspects of the one layout vocabulary (`conformance.harness.instances.layouts`):

- the spec's layouts are the contract's;
- a selection (`legacy`, `initless`, `both`) expands to the layouts it names, and a
  single layout is one of the two; anything else is refused with the same words,
  naming where the value came from;
- the argparse types keep the text as given and refuse with those words, which
  argparse prefixes with the flag;
- the Makefile's `LAYOUT` takes exactly the selections, and refuses anything else
  with those words before any target runs (`make -n`: nothing is executed).
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import pytest

from conformance import contract
from conformance import spec
from conformance.harness.instances import layouts

ROOT = Path(__file__).resolve().parents[4]


@pytest.mark.parametrize(
    ("value", "selected"),
    [
        ("both", ("legacy", "initless")),
        ("legacy", ("legacy",)),
        ("initless", ("initless",)),
    ],
)
def test_a_selection_expands_to_its_layouts(value, selected):
    assert layouts.parse_selection(value) == selected


@pytest.mark.parametrize("value", ["sideways", "", "Both", "legacy,initless"])
def test_anything_else_is_refused_naming_the_source(value):
    expected = f"WPC_CHAOS_LAYOUT must be legacy, initless or both, not {value!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        layouts.parse_selection(value, source="WPC_CHAOS_LAYOUT")


def test_one_layout_is_legacy_or_initless():
    assert layouts.parse_layout("initless") == "initless"
    with pytest.raises(
        ValueError, match=r"^wpc_layout must be legacy or initless, not 'both'$"
    ):
        layouts.parse_layout("both", source="wpc_layout")


def test_the_argparse_flag_keeps_the_text_and_refuses_with_the_same_words(capsys):
    parser = argparse.ArgumentParser(prog="p")
    layouts.add_argument(parser)
    assert parser.parse_args([]).layout == "both"
    assert parser.parse_args(["--layout", "initless"]).layout == "initless"
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["--layout", "sideways"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --layout: must be legacy, initless or both, not 'sideways'" in err
    with pytest.raises(argparse.ArgumentTypeError, match="legacy or initless"):
        layouts.layout_argument("both")


def test_the_spec_knows_the_same_layouts():
    # The spec sits beside the contract module (neither imports the other), so it
    # spells the two names out itself.
    assert spec.LAYOUTS == contract.LAYOUTS


def test_help_shows_the_choices_as_argparse_would():
    assert layouts.metavar() == "{legacy,initless,both}"
    assert layouts.metavar(contract.LAYOUTS) == "{legacy,initless}"


def test_the_makefile_takes_exactly_the_selections():
    text = (ROOT / "Makefile").read_text()
    listed = re.search(r"^LAYOUTS := (.*)$", text, re.MULTILINE)
    assert listed is not None
    assert tuple(listed[1].split()) == layouts.SELECTIONS


def _make(layout: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-n", "-s", "-C", str(ROOT), "chaos", f"LAYOUT={layout}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize("value", ["sideways", "legacy initless", ""])
def test_make_refuses_a_bad_layout_before_any_target(value):
    # Failed before: `make chaos LAYOUT=sideways` brought the cluster up, and only
    # then did `chaos run` refuse the layout.
    made = _make(value)
    assert made.returncode != 0
    assert f"LAYOUT must be legacy, initless or both, not '{value}'" in made.stderr
    assert "-m clusters up" not in made.stdout


def test_make_takes_each_selection():
    for value in layouts.SELECTIONS:
        made = _make(value)
        assert made.returncode == 0, made.stderr
        assert "-m clusters up" in made.stdout
        assert f"-m chaos run --layout {value} " in made.stdout
