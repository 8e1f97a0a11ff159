"""An MkDocs site's sources (newuser60: pymdown-extensions 10.12's docs/): a page whose
only line includes another file by a snippet (`--8<-- "LICENSE.md"`), and a theme
override whose first text is a Jinja tag (`{% import "partials/language.html" … %}`),
have no title there: neither line is shown to a reader as one. Both had headed every
chunk of their file."""

from __future__ import annotations

from ragd.ingest.chunking import UNTITLED, chunk_document, content_title
from ragd.ingest.loaders import parse


def test_a_snippet_line_is_no_title() -> None:
    chunks = chunk_document(parse("about/license.md", b'--8<-- "LICENSE.md"\n'))
    assert [c.heading_path for c in chunks] == [UNTITLED]
    assert content_title('--8<-- "refs.md"\n\nText after it.\n') == UNTITLED


def test_a_template_tag_line_is_no_title() -> None:
    footer = (
        b'{% import "partials/language.html" as lang with context %}\n'
        b"<footer><p>Made with Material for MkDocs</p>\n{% include 'social.html' %}</footer>\n"
    )
    chunks = chunk_document(parse("theme/partials/footer.html", footer))
    assert {c.heading_path for c in chunks} == {UNTITLED}
    assert content_title("{{ config.site_name }}\n\nText.\n") == UNTITLED
    assert content_title("{# a comment #}\n\nText.\n") == UNTITLED
    assert content_title("Ferry timetable {2024}\n\nText.\n") == "Ferry timetable {2024}"
