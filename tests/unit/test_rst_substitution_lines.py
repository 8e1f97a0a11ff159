"""A reST substitution (`|name|`) is placed where it is used, not where it is defined:
docutils copies a definition's contents, lines and all, into each paragraph using it, and
the image `.. |EXAMPLE| image::` defined on line 540 of docutils' demo.txt stretched the
chunk "Inline Markup" from line 89 to line 540, most of the file."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.rst import parse

HARBOUR = """\
.. |crest| image:: crest.png

Harbour
=======

Tides
-----

The harbour flies the |crest| flag at high water.

Berths
------

Boats moor stern first.

Notices
-------

The warden posts the |tide| times at the gate.

.. |tide| replace:: *spring tide*
.. |flag| image:: flag.png

Flags
-----

The |flag| flag means the harbour is closed.
"""


def section_lines(source: str) -> dict[str, tuple[int, int]]:
    """Each section's first and last line: from its title to the line before the next."""
    lines = source.split("\n")
    starts = {lines[i - 1]: i for i in range(2, len(lines)) if set(lines[i]) == {"-"}}
    ordered = sorted(starts.items(), key=lambda item: item[1])
    ends = [start - 1 for _, start in ordered[1:]] + [len(lines)]
    return {title: (start, end) for (title, start), end in zip(ordered, ends, strict=True)}


def test_a_substitution_is_placed_where_it_is_used() -> None:
    sections = section_lines(HARBOUR)
    chunks = chunk_document(parse("harbour.rst", HARBOUR.encode()))
    placed = {c.heading[-1]: c.lines for c in chunks if c.heading}
    for title in ("Tides", "Notices", "Flags"):
        lines = placed[title]
        first, last = sections[title]
        assert lines is not None and first <= lines[0] <= lines[1] <= last, (title, lines)
