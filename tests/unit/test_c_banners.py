"""A C header's banner comments title the groups under them (nu54b, lz4 1.9.4).

lz4.h opens each group of its API with a comment of rules and a title (`Tuning
parameter`, `Advanced Functions`, …). The macros under a banner had been the tail of the
documented prototype above it: `#define LZ4_MAX_INPUT_SIZE 0x7E000000` was cited as
`LZ4_decompress_safe()`, lz4frame.h's `LZ4F_MAGICNUMBER` as
`LZ4F_createDecompressionContext()`, and `LZ4_MEMORY_USAGE` as `(untitled)`.
"""

from __future__ import annotations

from ragd.ingest.formats.c_banners import banners
from tests.support.code_sections import assert_every_line_kept
from tests.support.code_sections import sections_of as _sections

HEADER = b"""/* harbour.h - berths as a library */
#ifndef HARBOUR_H
#define HARBOUR_H

/*------   Version   ------*/
#define HARBOUR_VERSION 3

/*-************************************
*  Tuning parameter
**************************************/
#define HARBOUR_MEMORY_DEFAULT 14

/*! harbour_open() :
 *  Opens the harbour for `berths` berths.
 */
HARBOUR_API int harbour_open(int berths);


/*-************************************
*  Advanced Functions
**************************************/
#define HARBOUR_MAX_BERTHS 0x7E000000   /* the most berths a harbour has */

/*! harbour_bound() :
 *  The berths a harbour of `size` needs at most.
 */
HARBOUR_API int harbour_bound(int size);

/********************** FILE HEADER **********************/

struct harbour_file {
    char magic[2];
};

#endif /* HARBOUR_H */
/*--- end                                  harbour.h ---*/
"""


def test_a_banner_heads_the_macros_under_it() -> None:
    sections = _sections("harbour.h", HEADER)
    assert list(sections) == [
        "(untitled)",
        "Version",
        "Tuning parameter",
        "harbour_open()",
        "Advanced Functions",
        "harbour_bound()",
        "struct harbour_file",
    ]
    assert "HARBOUR_MAX_BERTHS 0x7E000000" in sections["Advanced Functions"]
    assert "HARBOUR_MAX_BERTHS" not in sections["harbour_open()"]
    assert "HARBOUR_MEMORY_DEFAULT 14" in sections["Tuning parameter"]
    # A banner with only a blank line before a definition opens that definition's section
    # (a section of the banner alone would be a chunk of a title); one with no code after
    # it (valgrind's end marker) heads nothing.
    assert "FILE HEADER" in sections["struct harbour_file"]
    assert "end " in sections["struct harbour_file"]
    assert_every_line_kept("harbour.h", HEADER)


def test_what_is_no_banner_heads_nothing() -> None:
    """An editor's mode line, a rule alone, a comment saying more than a title, a boxed
    comment of several lines, a banner inside a type's braces."""
    lines = [
        "// <memory> -*- C++ -*-",
        "/* -*- Mode: C; tab-width: 4; indent-tabs-mode: nil -*- */",
        "/* ------------------------------------------------ */",
        "/****************************",
        " * Opens the harbour and returns its berths.",
        " ****************************/",
        "/**********************",
        " * Copyright 2020 Someone",
        " * Licensed under the MIT licence",
        " **********************/",
        "int x = 1; /* ===== not alone ===== */",
    ]
    assert banners(lines) == []
    cpp = (
        b"class Harbour {\n  /* ===== Berths ===== */\n  int count;\n"
        b"  int berths() { return 1; }\n};\n"
    )
    assert "Berths" not in _sections("harbour.hpp", cpp)


def test_banner_shapes_titled_as_written() -> None:
    lines = [
        "/* --- Dependency --- */",
        "// ============ Internal helpers ============",
        "/*******************************************",
        " *            CT log functions             *",
        " *******************************************/",
        "/* ====  > Basic Manipulations <  ==== */",
    ]
    assert [b.title for b in banners(lines)] == [
        "Dependency",
        "Internal helpers",
        "CT log functions",
        "Basic Manipulations",
    ]


ELSEWHERE = b"""int ferries;
/*
// ===== Old berths =====
int old_berths;
*/
int berths = 2;

int main(void) {
    /* ===== Step one ===== */
    moor();
    sail();
}
#if 0
/* ===== Disabled ===== */
int disabled;
#endif
int docked;
const char *schema = R"(
/* ===== Table ===== */
CREATE TABLE berth (id INTEGER);
)";
#define MOOR(x) \\
  /*-*************** \\
  *  In a macro \\
  ****************/ \\
  (x)
int moored;
"""


def test_a_banner_where_no_statement_is_read_heads_nothing() -> None:
    """A banner is one only where the lexer reads a comment between statements at the
    top: one in a function's body had cut the function in two (`main()` one line, the
    rest headed `Step one`); one in a commented-out block, an `#if 0` branch or a raw
    string headed the code after it (attack56)."""
    sections = _sections("ferry.cpp", ELSEWHERE)
    assert list(sections) == ["(untitled)", "main()"]
    assert "sail();" in sections["main()"]
    assert_every_line_kept("ferry.cpp", ELSEWHERE)


def test_a_banner_s_title_is_its_words() -> None:
    """Brackets that close a name stay (pyport.h's `WRAPPER FOR <sys/select.h>` had lost
    its `>`), a Doxygen command is no word of it, and a licence box of one line is no
    banner (attack56)."""
    lines = [
        "/* ===== WRAPPER FOR <sys/select.h> ===== */",
        "/*********************",
        " * \\file harbour.h",
        " *********************/",
        "/* ==== @name Getters ==== */",
        "/*************************************",
        " * Copyright (c) 2004 Acme Corp      *",
        " *************************************/",
    ]
    assert [b.title for b in banners(lines)] == [
        "WRAPPER FOR <sys/select.h>",
        "harbour.h",
        "Getters",
    ]


def test_a_banner_s_title_has_no_html_tags() -> None:
    """A title written with HTML for Doxygen (`<b>Tuning</b>`) had its tags in the
    heading path (r58); a break is a blank, and a name in brackets that is no HTML tag
    (`<sys/select.h>`, xmlsec's `<dsig:Signature>`) or a comparison stays."""
    lines = [
        "/* ===== <b>Tuning</b> parameters ===== */",
        "/*********************",
        " * <code>size_t</code><br/>helpers",
        " *********************/",
        "/* ==== <dsig:Signature> node ==== */",
        "/* ==== when x < b > z ==== */",
    ]
    assert [b.title for b in banners(lines)] == [
        "Tuning parameters",
        "size_t helpers",
        "<dsig:Signature> node",
        "when x < b > z",
    ]
