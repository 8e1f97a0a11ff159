"""Scheme (Guile's modules, as guile-lib 0.2.7 ships them in /usr/share/guile/site; held
out as nu62b). Their documentation is each file's summary line, its Commentary (in `;;`
comments or Guile's `#! … !#` block) and the docstrings, and `.scm` had not been read at
all: the 30 modules of guile-lib were no document, and every question was refused
(newuser62)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats.code_literals import lines_in_code
from ragd.ingest.loaders import parse as load
from tests.support.growth import growth_ratio

# Written here in the shape of a Guile module: a summary line, a Commentary in a `#! … !#`
# block, the module form, procedures with docstrings, GOOPS generics and methods.
SOURCE = b""";; (harbour tides) -- the next high water at a quay
;; Copyright (C) 2026  A. Harbour

#!
;;; Commentary:
Call @code{next-high-water} with a quay's name to learn when the
water is highest next.
(define this-is-prose "a line of the Commentary, no definition")
;;; Code:
!#

(define-module (harbour tides)
  #:use-module (oop goops)
  #:export (next-high-water <tide-table> refresh!))

;; The tables are read once a day.
(define (next-high-water quay)
  "Return the time of the next high water at @var{quay}.
(define not-a-definition \\"inside the docstring\\")
Times are in UTC."
  (assoc-ref tide-table quay))

(define* (tide-height quay #:key (units 'metres))
  "The height of the water at @var{quay} now."
  (* 2 (char->integer #\\")))

(define-class <tide-table> ()
  (entries #:init-value '()))

(define-generic refresh!)

(define-method (refresh! (table <tide-table>))
  (slot-set! table 'entries '()))

(define-method (refresh! (table <tide-table>) (day <integer>))
  (slot-set! table 'entries (list day)))
"""

# The summary line heads the header and Commentary; the module form is headed by the
# list that names it; each definition by its kind and name; the two methods of one
# generic, one after the other, are one section.
HEADINGS = (
    "(harbour tides) -- the next high water at a quay",
    "define-module (harbour tides)",
    "define next-high-water",
    "define* tide-height",
    "define-class <tide-table>",
    "define-generic refresh!",
    "define-method refresh!",
)


def test_scheme_files_are_indexed_by_default() -> None:
    assert PathFilter(DEFAULT_INCLUDE).includes("site/harbour/tides.scm")


def test_scheme_is_split_at_its_definitions_with_the_comments_above_them() -> None:
    chunks = chunk_document(load("harbour/tides.scm", SOURCE))
    by_path = {chunk.heading_path: chunk.text for chunk in chunks}
    assert tuple(by_path) == HEADINGS and len(chunks) == len(HEADINGS)
    # the Commentary is the module's own text, under its summary line
    assert "learn when the" in by_path[HEADINGS[0]]
    assert "a line of the Commentary" in by_path[HEADINGS[0]]
    # the comment above a definition, and its docstring's lines, go with it
    procedure = by_path["define next-high-water"]
    assert "read once a day" in procedure and "inside the docstring" in procedure
    assert "Times are in UTC" in procedure
    # a character `#\"` opens no string: the definitions after it are found
    assert "(list day)" in by_path["define-method refresh!"]


def test_a_summary_line_naming_the_module_heads_the_header_and_another_comment_none() -> None:
    for first, heading in (
        (";; (os process): process chains", "(os process): process chains"),
        (";;;; ftw.scm --- file system tree walk", "ftw.scm --- file system tree walk"),
        (";; guile-lib", "(untitled)"),
    ):
        source = f"{first}\n;; Copyright (C) 2026\n\n(define-module (os process))\n"
        chunks = chunk_document(load("process.scm", source.encode()))
        assert [c.heading_path for c in chunks] == [heading, "define-module (os process)"]


# htmlprag's way: a Commentary in `;;;` lines a blank line above the module form, and each
# procedure's Texinfo documentation a blank line above it, after a section's comment.
SET_OFF = b""";; (harbour charts) -- charts of the harbour
;; Copyright (C) 2026  A. Harbour

;;; Commentary:
;;; Charts are drawn from soundings.
;;; Code:

(define-module (harbour charts))

(define (sounding-depth s) (car s))

;;; @section Drawing

;;; @defproc draw-chart soundings
;;;
;;; Draws the chart of @var{soundings} at the scale of the harbour master's.

(define (draw-chart soundings)
  (map sounding-depth soundings))
"""


CHART_HEADINGS = (
    "(harbour charts) -- charts of the harbour",
    "define-module (harbour charts)",
    "define sounding-depth",
    "define draw-chart",
)


def test_a_comment_block_a_blank_line_above_a_definition_documents_it() -> None:
    by_path = {c.heading_path: c.text for c in chunk_document(load("charts.scm", SET_OFF))}
    assert tuple(by_path) == CHART_HEADINGS
    assert "scale of the harbour master" in by_path["define draw-chart"]
    assert "scale of the harbour master" not in by_path["define sounding-depth"]
    # a section's own comment, a blank line above the block, stays above
    assert "@section Drawing" in by_path["define sounding-depth"]
    # the Commentary above the module form is the header's
    assert "drawn from soundings" in by_path["(harbour charts) -- charts of the harbour"]


def test_an_unclosed_string_or_block_hides_no_definition() -> None:
    source = '(define broken "never closed\n(define (one) 1)\n#| nor this\n(define (two) 2)\n'
    code = source.split("\n")
    assert lines_in_code(code, "scheme") == [True] * len(code)
    headings = [c.heading_path for c in chunk_document(load("broken.scm", source.encode()))]
    assert headings == ["define broken", "define one", "define two"]


def test_the_scheme_lexer_is_linear_in_the_file() -> None:
    # Strings, characters, comments and blocks opened and never closed: 4x the input
    # costs about 4x the time (8x allowed), not 16x.
    shapes = ['"', "#\\", ";", "#|", "#!", '"a\\"', "|#", "!#", '\\"', "#;", "#!a ", "#|#|", "#||#"]

    def lines(size: int) -> list[str]:
        return ("".join(shape * size for shape in shapes) + "\n(define (f) 1)\n").split("\n")

    assert growth_ratio(lambda code: lines_in_code(code, "scheme"), lines(4_000), lines(16_000)) < 8


def _headings(name: str, source: str) -> list[str]:
    return [c.heading_path for c in chunk_document(load(name, source.encode()))]


def test_a_datum_comment_is_code_its_strings_strings() -> None:
    # `#;` comments out the datum after it, not the rest of the line: a string the datum
    # opens on that line runs on over the next (review64). Read as a `;` comment, the
    # string's opening quote was skipped, its closing one opened a string, and a line of
    # the string headed a section while the definition after it did not.
    source = (
        "(define (real-one x) x)\n"
        '#;(display "a message opened here\n'
        "(define hidden-in-a-string 1)\n"
        'closed here")\n'
        "(define (after-the-datum y) y)\n"
        '(define (later z) "a docstring")\n'
    )
    code = source.split("\n")
    assert lines_in_code(code, "scheme")[2:5] == [False, False, True]
    assert _headings("datum.scm", source) == [
        "define real-one",
        "define after-the-datum",
        "define later",
    ]


def test_block_comments_nest() -> None:
    # R6RS and R7RS block comments nest: the first `|#` closes only the inner one, and a
    # definition commented out with them stays commented out (review64).
    source = (
        "(define (real-one x) x)\n"
        "#| retired, with its own note:\n"
        "#| a note inside |#\n"
        "(define (retired y) y)\n"
        "|#\n"
        "(define (after-the-block z) z)\n"
    )
    assert _headings("nested.scm", source) == ["define real-one", "define after-the-block"]


def test_a_reader_directive_or_object_opens_no_block() -> None:
    # `#!optional`, `#!rest` (MIT Scheme, Chicken), `#!fold-case`, `#!r6rs` (Guile, R6RS,
    # R7RS) are a token, not Guile's `#! … !#` block: read as one, everything up to the
    # next `!#`, anywhere later, was a comment (review64).
    source = (
        "(define (first-fn a #!optional b) (or b a))\n"
        "#!fold-case\n"
        "(define (second-fn a #!rest more) more)\n"
        "(define (third-fn x) x)\n"
        '(define (fourth-fn x) (string-append x "!#"))\n'
        "(define (fifth-fn x) x)\n"
    )
    assert _headings("directives.scm", source) == [
        "define first-fn",
        "define second-fn",
        "define third-fn",
        "define fourth-fn",
        "define fifth-fn",
    ]
    assert _headings(
        "script.scm", "#!/usr/bin/guile -s\n(define (in-the-header) 1)\n!#\n(define (x) 1)\n"
    ) == ["(untitled)", "define x"]  # Guile's script header: a block, as before


def test_an_r6rs_library_is_split_at_the_definitions_inside_it() -> None:
    # An R6RS library (`.sls`: Chez Scheme's, scheme-chez-srfi's 218) is one form at the
    # margin, its definitions indented inside it: `.sls`, `.ss` and `.sps` had been no
    # Scheme at all, each file one `(untitled)` block (review66). A procedure's inner
    # `define` is its own; the `;;` lines above a definition are its.
    source = """#!r6rs
;; Copyright 2009 A. Keeper.

(library (harbour tides)
  (export next-high)
  (import (rnrs))

  ;; The hour of the next high water at a quay.
  (define (next-high quay)
    (define (hours) 12)
    (+ (hours) (string-length quay)))

  (define-record-type table
    (fields soundings)))
"""
    for name in ("tides.sls", "tides.ss"):
        by_path = {c.heading_path: c.text for c in chunk_document(load(name, source.encode()))}
        library = "library (harbour tides)"
        assert list(by_path) == [
            "(untitled)",
            library,
            f"{library} > define next-high",
            f"{library} > define-record-type table",
        ]
        assert "next high water" in by_path[f"{library} > define next-high"]


def test_a_salt_state_named_sls_is_read_as_text() -> None:
    # Salt's states are `.sls` too, in YAML: no line opens a form, and the file is text.
    state = b"nginx:\n  pkg.installed: []\n  service.running:\n    - enable: True\n"
    chunks = chunk_document(load("salt/nginx/init.sls", state))
    assert len(chunks) == 1 and "service.running" in chunks[0].text
    assert "```" not in chunks[0].text
