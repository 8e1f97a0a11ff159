"""What a Mallard conditional (`if:choose`, `if:if`, an `if:test` attribute) is labelled
with in the text, so that branches for different desktops do not read as one page saying
contradictory things.

A test is a comma-separated list (any of) of space-separated token lists (all of), a
token negated by `!` (Mallard's conditional processing: `platform:gnome-classic`,
`!platform:gnome-classic`, `!target:mobile, !platform:gnome-classic`). Yelp decides the
tokens it knows when it builds the page and leaves the platform's to the viewer: its HTML
keeps each platform's branch and shows one by the session's style. So the index keeps
every branch, each led by its condition ("If gnome-classic: …", "If not gnome-classic:
…", an `if:else` "Otherwise: …"), and a reader's question finds the one for their
desktop, labelled. Tokens about the viewer rather than the system (`target:` the output,
a phone or the desktop's Yelp; `action:` what the viewer can do, install a package) are
not the reader's to choose: content whose test holds for some set of them is shown as
the desktop shows it, unlabelled.
"""

from __future__ import annotations

from typing import Any

IF_NAMESPACES = ("http://projectmallard.org/if/1.0/", "http://projectmallard.org/experimental/if/")
IF_TESTS = tuple(f"{{{namespace}}}test" for namespace in IF_NAMESPACES)
VIEWER_TOKENS = ("target:", "action:")  # the output and the viewer, not the reader's system
OTHERWISE = "Otherwise"


def condition_label(test: str) -> str:
    """ "If not gnome-classic" for `!platform:gnome-classic`; "" when the test leaves only
    tokens about the viewer in one of its alternatives (shown as the desktop shows it)."""
    alternatives = []
    for alternative in test.split(","):
        tokens = [t for t in alternative.split() if not t.lstrip("!").startswith(VIEWER_TOKENS)]
        if not tokens:
            return ""
        alternatives.append(" and ".join(_token_words(token) for token in tokens))
    return "If " + " or ".join(alternatives) if alternatives else ""


def _token_words(token: str) -> str:
    name = token.lstrip("!").removeprefix("platform:")
    return f"not {name}" if token.startswith("!") else name


def element_test(element: Any) -> str | None:
    """The `if:test` attribute of a Mallard element, in either namespace Mallard gave it."""
    return next((element.get(name) for name in IF_TESTS if element.get(name) is not None), None)


def is_conditional(element: Any) -> bool:
    """An element of Mallard's conditional vocabulary (`if:choose`, `if:when`, …)."""
    tag = element.tag
    return isinstance(tag, str) and tag.startswith(tuple(f"{{{n}" for n in IF_NAMESPACES))
