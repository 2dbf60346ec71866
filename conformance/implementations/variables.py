"""Profile variables as a user gives them, `NAME=VALUE`: the one parser every verb uses.

A profile declares its `variables` (`conformance.implementations.profiles`); a run
overrides them with a repeated `--profile-var NAME=VALUE` (`wpc run`, `bench`,
`uninstall`, `profile check`, the pytest plugin), `--profile-var-a/-b` (the
differential) or one comma-separated value (`WPC_CHAOS_PROFILE_VARS`, the chaos
experiments' `wpc_profile_vars`). All of them come here, so a typo is refused the
same way everywhere, naming the bad item, before anything is built or installed.
Whether the profile declares a name is `profiles.load`'s business, not this one's.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.errors import DataError

FLAG = "--profile-var"
"""Where the values usually come from; an error names it (or the caller's `source`)."""


def parse(items: Iterable[str], *, source: str = FLAG) -> dict[str, str]:
    """`NAME=VALUE` items as a mapping, in the order given.

    The value is everything after the first `=` (it may be empty or hold `=`); the
    name is stripped of blanks. DataError, naming `source` and the item, for an item
    without `=`, an empty name, or a name given twice (which value would win is a
    guess the user should not have to make).
    """
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise DataError(f"{source} must look like NAME=VALUE, not {item!r}")
        if name in values:
            raise DataError(f"{source} {name} given twice")
        values[name] = value
    return values


def parse_joined(text: str, *, source: str) -> dict[str, str]:
    """`a=1,b=2` (one configuration value, comma-separated) as `parse` does it.

    Blanks around an item and empty items (`a=1,,b=2`, a trailing comma) are
    ignored: the Makefile builds the value from a space-separated list.
    """
    return parse(
        filter(None, (part.strip() for part in text.split(","))), source=source
    )
