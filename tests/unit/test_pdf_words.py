"""A PDF's words as typed (ingest/pdf_words): word spaces in text drawn in a composite font
with no space glyph, ligatures as their letters.

fontspec's and unicode-math's manuals (LuaLaTeX, CID fonts) had half their words glued
together: pypdf measured the word gaps against CID 32, a 572-unit glyph that is no space
(py-pdf/pypdf#3978). The PDF here is built the same way: letters in a Type0 font whose
/ToUnicode maps no code to U+0020, words apart by TeX's 240-unit gaps in a TJ array."""

from __future__ import annotations

import io

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

from ragd.ingest import pdf_words
from ragd.ingest.loaders import parse

# Codes 1-26 are a-z; CID 32 is some other glyph, 572 units wide (as in fontspec.pdf).
TO_UNICODE = b"""/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Letters def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
1 beginbfrange
<0001> <001A> <0061>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end
"""


# Codes 27 and 28 are the fl and fi ligatures where a font maps them (test_ligatures_…).
_LIGATURE_CODES = {"\ufb02": 27, "\ufb01": 28}


def _codes(word: str) -> str:
    return "".join(f"{_LIGATURE_CODES.get(letter, ord(letter) - 96):04X}" for letter in word)


def _font(to_unicode: bytes, writer: PdfWriter) -> DictionaryObject:
    cmap = DecodedStreamObject()
    cmap.set_data(to_unicode)
    widths = ArrayObject([NumberObject(1), ArrayObject([NumberObject(500)] * 28)])
    widths += [NumberObject(32), ArrayObject([NumberObject(572)])]
    cid_font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/CIDFontType0"),
            NameObject("/BaseFont"): NameObject("/AldusNovaPro-Book"),
            NameObject("/CIDSystemInfo"): DictionaryObject(
                {
                    NameObject("/Registry"): TextStringObject("Adobe"),
                    NameObject("/Ordering"): TextStringObject("Identity"),
                    NameObject("/Supplement"): NumberObject(0),
                }
            ),
            NameObject("/W"): widths,
            NameObject("/DW"): NumberObject(550),
        }
    )
    return DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type0"),
            NameObject("/BaseFont"): NameObject("/AldusNovaPro-Book-Identity-H"),
            NameObject("/Encoding"): NameObject("/Identity-H"),
            NameObject("/DescendantFonts"): ArrayObject([writer._add_object(cid_font)]),
            NameObject("/ToUnicode"): writer._add_object(cmap),
        }
    )


def _pdf(words: list[str], to_unicode: bytes = TO_UNICODE) -> bytes:
    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    font = _font(to_unicode, writer)
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    shown = "-240".join(f"<{_codes(word)}>" for word in words)
    content = DecodedStreamObject()
    content.set_data(f"BT /F1 9.96 Tf 72 700 Td [{shown}] TJ ET".encode())
    page[NameObject("/Contents")] = writer._add_object(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


WORDS = ["for", "basic", "use", "no", "package", "options", "are", "required"]


def test_words_drawn_in_a_font_without_a_space_glyph_keep_their_spaces() -> None:
    document = parse("manual.pdf", _pdf(WORDS))
    assert document.pages is not None
    (_, text), *_ = document.pages
    assert text.split() == WORDS  # was ["forbasicusenopackageoptionsarerequired"]


def test_a_font_that_has_a_space_keeps_pypdf_s_own_reading() -> None:
    """A code mapped to U+0020 is the font's space: its width is pypdf's to judge."""
    with_space = TO_UNICODE.replace(
        b"1 beginbfrange", b"1 beginbfchar\n<0020> <0020>\nendbfchar\n1 beginbfrange"
    )
    assert pdf_words.install()
    fonts = PdfReader(io.BytesIO(_pdf(WORDS, with_space))).pages[0]["/Resources"]["/Font"]
    from pypdf.generic._font import Font

    font = Font.from_font_resource(fonts["/F1"].get_object())
    assert not pdf_words.spaceless(font)
    assert font.space_width == 572  # CID 32 is this font's space: left as pypdf reads it


def test_the_pypdf_internal_corrected_is_still_there() -> None:
    """If a pypdf upgrade moves `Font.from_font_resource`, this says so (else the glued
    words would come back silently)."""
    assert pdf_words.install() is True


def test_ligatures_are_read_as_their_letters() -> None:
    """pdfTeX's "fi" and "fl" glyphs come out of pypdf as U+FB01 and U+FB02, which neither
    BM25 nor the embedder read as letters: float.sty's manual's "ﬂoat" was no "float"."""
    ligatures = TO_UNICODE.replace(
        b"1 beginbfrange", b"2 beginbfchar\n<001B> <FB02>\n<001C> <FB01>\nendbfchar\n1 beginbfrange"
    )
    document = parse("float.pdf", _pdf(["the", "\ufb02oat", "is", "de\ufb01ned"], ligatures))
    assert document.pages is not None
    assert document.pages[0][1].split() == ["the", "float", "is", "defined"]
    assert pdf_words.unligated("\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06") == "fffiflffifflstst"


# Codes 1-26 are ideographs (U+4E00 on), as a Chinese or Japanese CID font maps them.
CJK_TO_UNICODE = TO_UNICODE.replace(b"<0001> <001A> <0061>", b"<0001> <001A> <4E00>")


def test_a_chinese_or_japanese_font_without_a_space_gets_no_spaces_between_its_glyphs() -> None:
    """Those scripts put no space between words: a gap in a TJ array is spacing, and the
    font keeps pypdf's reading (attack53b: "一丁丂七丄" had become "一丁丂 七丄")."""
    document = parse("cjk.pdf", _pdf(["abc", "de"], CJK_TO_UNICODE))
    assert document.pages is not None
    assert document.pages[0][1].strip() == "一丁丂七丄"


def test_the_correction_is_installed_once() -> None:
    """However many PDFs a parse worker reads, pypdf's reader is wrapped once."""
    from pypdf.generic._font import Font

    assert pdf_words.install()
    wrapped = Font.from_font_resource
    for _ in range(3):
        parse("manual.pdf", _pdf(WORDS))
        assert pdf_words.install()
    assert Font.from_font_resource == wrapped


def test_a_font_read_through_its_encoding_keeps_pypdf_s_reading() -> None:
    """A Chinese font with no /ToUnicode (`UniGB-UCS2-H`: its codes are the characters)
    maps no code, so none to a space: it is not taken as spaceless (attack53b: its
    glyphs had come out spaced apart, "一 丁 丂")."""
    writer = PdfWriter()
    font = _font(TO_UNICODE, writer)
    del font["/ToUnicode"]
    font[NameObject("/Encoding")] = NameObject("/UniGB-UCS2-H")
    page = writer.add_blank_page(612, 792)
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    content = DecodedStreamObject()
    content.set_data(b"BT /F1 9.96 Tf 72 700 Td [<4E00>-240<4E01>-240<4E02>] TJ ET")
    page[NameObject("/Contents")] = writer._add_object(content)
    out = io.BytesIO()
    writer.write(out)
    document = parse("chinese.pdf", out.getvalue())
    assert document.pages is not None
    assert document.pages[0][1].strip() == "一丁丂"
