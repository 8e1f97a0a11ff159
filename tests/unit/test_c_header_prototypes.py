"""A C header's documented prototypes head its sections (newuser54).

A header is its library's API: prototypes, each under the comment that documents it. A
prototype headed nothing (a forward declaration in a `.c` file is no definition), so
lz4 1.9.4's `lz4.h` was 18 `(untitled)` chunks of its 25, and the 114 lines of obsolete
functions after its last union, `LZ4_decompress_fast()`'s warning among them, were cited
as `union LZ4_streamDecode_u`. Now a prototype at the top with a comment right above it
is headed by its name (`LZ4_compress_default()`); an undocumented one, a declaration's
own trailing comment and a macro's call (`STATIC_ASSERT(x);`) head nothing, as before.
"""

from __future__ import annotations

from tests.support.code_sections import assert_every_line_kept
from tests.support.code_sections import sections_of as _sections

HEADER = b"""/* harbour.h - berths as a library */
#define HARBOUR_MAX_BERTHS 0x7E   /* the most berths a harbour has */

HARBOUR_API int harbour_version(void);   /**< the library's version */
HARBOUR_API const char* harbour_name(void);

/*! harbour_open() :
 *  Opens the harbour for `berths` berths.
 * @return : 0, or a negative value if `berths` is too large.
 */
HARBOUR_API int harbour_open(int berths);

/*! harbour_close() :
    Closes it; berths still let stay let.
*/
HARBOUR_API int harbour_close(void);
HARBOUR_API int harbour_close_all(void);

union harbour_state_u {
    char size[64];
    long align;
};

/*! Obsolete functions (since 1.2) */
HARBOUR_DEPRECATED("use harbour_open() instead") HARBOUR_API int harbour_start(int n);

/*! harbour_open_fast() :
 *  Not protected against malicious input: trusted data only.
 */
HARBOUR_DEPRECATED("unsafe, use harbour_open() instead")
HARBOUR_API int harbour_open_fast(int berths);

/* checked at compile time */
STATIC_ASSERT(sizeof(long) >= 4);

/// Counts the free berths.
int harbour_free(const struct harbour *h);
"""


def test_a_documented_prototype_at_the_top_heads_its_section() -> None:
    sections = _sections("harbour.h", HEADER)
    assert list(sections) == [
        "(untitled)",
        "harbour_open()",
        "harbour_close()",
        "union harbour_state_u",
        "harbour_start()",
        "harbour_open_fast()",
        "harbour_free()",
    ]
    opened = sections["harbour_open()"]
    assert "Opens the harbour" in opened and "int harbour_open(int berths);" in opened
    # a comment whose inner lines open with no `*`, closed by a lone `*/`, goes with it
    assert "Closes it; berths still let stay let." in sections["harbour_close()"]
    assert "harbour_close_all" in sections["harbour_close()"]  # undocumented: no heading
    # a declaration's trailing comment documents it, not the prototype below it
    assert "harbour_name" in sections["(untitled)"]
    # the obsolete functions are no longer cited as the union above them
    assert "use harbour_open() instead" in sections["harbour_start()"]
    # documented above the macro call it opens with, which goes with it
    fast = sections["harbour_open_fast()"]
    assert "trusted data only" in fast and 'HARBOUR_DEPRECATED("unsafe' in fast
    # a macro's call under a comment heads nothing
    assert "STATIC_ASSERT" in sections["harbour_open_fast()"]
    assert "Counts the free berths." in sections["harbour_free()"]


def test_a_header_with_documented_prototypes_keeps_every_line() -> None:
    assert_every_line_kept("harbour.h", HEADER)


def test_an_undocumented_forward_declaration_in_a_c_file_heads_nothing() -> None:
    source = b"static int helper(int x);\n\nint main(void)\n{\n    return helper(1);\n}\n"
    assert list(_sections("main.c", source)) == ["(untitled)", "main()"]


def test_a_comment_of_numbers_alone_documents_nothing() -> None:
    """Tcl's `tclDecls.h` puts `/* 449 */` above each of its stubs: read as documentation,
    each would be a section of two lines."""
    header = (
        b"/* Stubs */\n/* 448 */\nEXTERN int Tcl_A(int x);\n/* 449 */\nEXTERN int Tcl_B(void);\n"
    )
    assert list(_sections("tclDecls.h", header)) == ["(untitled)"]


def test_macro_calls_a_blank_line_above_a_prototype_are_not_its_own() -> None:
    """OpenSSL's headers run `DECLARE_ASN1_FUNCTIONS(…)` calls with no `;` before a
    prototype, one statement with it: the comment above the calls documents them, not
    the prototype a blank line below (read from its statement's start, it headed 110
    lines of `cms.h`)."""
    header = (
        b"/* clang-format on */\nDECLARE_ASN1_FUNCTIONS(CMS_ContentInfo)\n"
        b"DECLARE_ASN1_FUNCTIONS(CMS_ReceiptRequest)\n\n"
        b"CMS_ContentInfo *CMS_ContentInfo_new_ex(OSSL_LIB_CTX *libctx);\n"
    )
    assert list(_sections("cms.h", header)) == ["(untitled)"]


def test_a_prototype_ending_in_attribute_macros_is_headed_by_its_own_name() -> None:
    """glibc ends its prototypes with attribute macros: only one macro alone was taken for
    the signature's end, so `memmove (…) __THROW __nonnull ((1, 2));` was headed
    `__nonnull()` (149 chunks of 1,499 headers sampled from /usr/include: string.h,
    stdlib.h, wchar.h, pthread.h); a macro's call heads nothing (valgrind's `VG_(…)`)."""
    header = (
        b"/* Copy N bytes of SRC to DEST, overlapping.  */\n"
        b"extern void *memmove (void *__dest, const void *__src, size_t __n)\n"
        b"     __THROW __nonnull ((1, 2));\n\n"
        b"/* Re-allocate the block in __ptr.  */\n"
        b"extern void *realloc (void *__ptr, size_t __size)\n"
        b"__THROW __attribute_warn_unused_result__ __attribute_alloc_size__ ((2));\n\n"
        b"/* Verbosity level: 0 = silent, 1 (default), > 1 = more verbose. */\n"
        b"extern Int VG_(clo_verbosity);\n"
    )
    assert list(_sections("string.h", header)) == ["memmove()", "realloc()"]
    assert "VG_(clo_verbosity)" in _sections("string.h", header)["realloc()"]
    assert_every_line_kept("string.h", header)
