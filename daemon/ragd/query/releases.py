"""Which release a question or a heading names (pure).

A change log says the same things about every release in the same words ("Fixes", "Fix a
crash when …"), so "What was fixed in 2.14.3?" retrieves the sections of 2.14.2 and 2.14.4
as readily as its own; only the heading's version tells them apart. The keyless answer
(extractive.py) ranks a unit lower when the heading it sits under names a release and none
of them is one the question names.
"""

from __future__ import annotations

from ragd.query.page import VERSION


def named(text: str) -> set[str]:
    """The versions `text` names, without a leading "v" ("v3.3.0" → "3.3.0")."""
    return {m.group(0).lstrip("vV") for m in VERSION.finditer(text)}


def same(one: str, other: str) -> bool:
    """ "3.3" and "3.3.0" (or "3.3.1") name the same release line; "3.3" and "3.30" do not."""
    return one == other or one.startswith(f"{other}.") or other.startswith(f"{one}.")


def another(asked: set[str], where: str) -> bool:
    """`where` (a heading path) names a release, and none of the `asked` ones."""
    here = named(where)
    return bool(here) and not any(same(a, h) for a in asked for h in here)
