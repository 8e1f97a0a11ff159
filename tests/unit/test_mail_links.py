"""A `mailto:` link keeps its address in the text (fix25).

The HTML and reST readers keep a link's text and drop its target, so "report it by
[email](mailto:security@…)" was indexed as "report it by email": the question "what
address do I write to for security reports?" found the paragraph and no address in it.
"""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse

ADDRESS = "security@harbour.example.org"
OTHER = "https://harbour.example.org/policy"

PAGES = {
    "policy.md": (
        f"# Security\n\nReport problems by [email](mailto:{ADDRESS}); the [policy]({OTHER}) "
        "says more.\n"
    ),
    "policy.rst": (
        f"Security\n========\n\nReport problems by `email <mailto:{ADDRESS}>`_; the "
        f"`policy <{OTHER}>`_ says more.\n"
    ),
    "policy.html": (
        f'<html><body><h1>Security</h1><p>Report problems by <a href="mailto:{ADDRESS}">'
        f'email</a>; the <a href="{OTHER}">policy</a> says more.</p></body></html>'
    ),
}


def chunk_text(name: str, text: str) -> str:
    return "\n".join(chunk.text for chunk in chunk_document(parse(name, text.encode())))


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_mailto_link_keeps_its_address(name: str) -> None:
    text = chunk_text(name, PAGES[name])
    assert ADDRESS in text, text
    assert "Report problems by" in text and "says more" in text


@pytest.mark.parametrize("name", ["policy.rst", "policy.html"])
def test_the_address_follows_the_link_text_and_other_links_stay_text(name: str) -> None:
    text = chunk_text(name, PAGES[name])
    assert f"by email ({ADDRESS});" in text, text
    assert "the policy says more" in text and OTHER not in text, text  # as before


def test_a_link_that_shows_its_address_is_not_doubled() -> None:
    """Each page shows the address twice: once as a link's text, once as plain text (reST
    makes that a `mailto:` link too); the address is added to neither."""
    for name, page in {
        "shown.rst": (
            f"Contact\n=======\n\nWrite to `{ADDRESS} <mailto:{ADDRESS}>`_ or {ADDRESS}.\n"
        ),
        "shown.html": (
            f'<html><body><h1>Contact</h1><p>Write to <a href="MAILTO:{ADDRESS}?subject=bug">'
            f"<b>{ADDRESS.upper()}</b></a> or {ADDRESS}.</p></body></html>"
        ),
    }.items():
        text = chunk_text(name, page)
        assert text.lower().count(ADDRESS) == 2, text


def test_the_address_is_read_as_a_link_encodes_it() -> None:
    """`mailto:` takes %-escapes and a query (`?subject=`); the address is what is before
    the query, unescaped, and it stays inside an element the link holds."""
    page = (
        '<html><body><h1>Contact</h1><p>Or <a href="mailto:ferry%2Bdesk@harbour.example.org'
        '?subject=Lost%20ticket"><b>write</b> to the desk</a> today.</p></body></html>'
    )
    text = chunk_text("desk.html", page)
    assert "write to the desk (ferry+desk@harbour.example.org) today" in text, text


def test_the_address_does_not_cut_a_word_the_link_is_part_of() -> None:
    """In a language written without spaces the word runs on past the link (w3m's
    Japanese FAQ): the address goes after the word, which stays whole."""
    page = (
        '<html><body><h1>FAQ</h1><p>作者に<a href="mailto:aito@fw.ipsj.or.jp">\n直接メール</a>'
        "するか，あるいは w3m BBS に書いてください．</p></body></html>"
    )
    text = chunk_text("FAQ.html", page)
    assert "直接メールするか (aito@fw.ipsj.or.jp)，あるいは" in text, text
