"""`.. sectnum::` numbers the sections as docutils shows them: under a title docutils
promotes (a lone top section, and a lone section under it, the subtitle), numbering starts
below it. The reader keeps the top title a section so that it heads the path, and docutils
numbered it too: docutils' enthought-plan.txt cited "1 Plan for … > 1.5 Proposed Changes
> 1.5.1 Doc Comment Syntax" where its page says "5.1 Doc Comment Syntax"."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.rst import parse

PLAN = b"""\
===========================
 Plan for the Harbour Tool
===========================

.. sectnum::
   :depth: 2

Introduction
============

The tool reads harbour notices.

Proposed Changes
================

Comment Syntax
--------------

Comments start with a hash.

Deeper Still
````````````

Not numbered past the depth asked.
"""

SUBTITLED = b"""\
===========================
 Harbour API Tool
===========================

-----------------------
 Request for Proposals
-----------------------

.. sectnum::

Requirements
============

Proposals state their price.
"""


def headings(source: bytes) -> set[tuple[str, ...]]:
    return {chunk.heading for chunk in chunk_document(parse("plan.rst", source))}


def test_numbers_start_below_the_title_docutils_promotes() -> None:
    found = headings(PLAN)
    title = "Plan for the Harbour Tool"
    assert (title, "1 Introduction") in found
    assert (title, "2 Proposed Changes", "2.1 Comment Syntax") in found
    assert (title, "2 Proposed Changes", "2.1 Comment Syntax", "Deeper Still") in found


def test_a_promoted_subtitle_is_not_numbered_either() -> None:
    found = headings(SUBTITLED)
    assert ("Harbour API Tool", "Request for Proposals", "1 Requirements") in found


def test_without_a_lone_title_every_top_section_is_numbered() -> None:
    source = b".. sectnum::\n\nFirst\n=====\n\nOne.\n\nSecond\n======\n\nTwo.\n"
    assert headings(source) == {("1 First",), ("2 Second",)}
