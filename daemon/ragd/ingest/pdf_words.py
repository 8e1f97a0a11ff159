"""A PDF's words as a reader would type them: the spaces between them, and no ligatures.

Word spaces. pypdf takes a gap inside a line for a word space when it is wider than about half the
font's space. For a composite font (Type0: the CID fonts XeLaTeX and LuaLaTeX embed) whose
`/ToUnicode` maps no code to U+0020, pypdf 7.1 measures the "space" of CID 32 instead,
whatever glyph that is: in fontspec's manual, AldusNovaPro-Book's is 572 units wide, so
TeX's 240-unit word gaps were no spaces and half the manual's words were glued together
("Forbasicuse,nopackageoptionsarerequired", py-pdf/pypdf#3978; newuser52 counted 51.9 %
of its words kept). Such a font's space is taken here as half its default glyph width,
as pypdf itself does for a simple font that gives no space width. A font that maps a code
to U+0020 keeps pypdf's own reading, so every other PDF extracts as before, byte for byte
(the 25 LaTeX manuals of bench/heldout nu52a and every PDF on the development machine:
only fontspec's and unicode-math's changed, words kept 50.3 % → 99.1 % and 90.3 % → 98.7 %
against poppler's `pdftotext`).

The correction wraps pypdf's `Font.from_font_resource`, an internal of the pinned pypdf
(constraints.txt); `tests/unit/test_pdf_words.py` fails if a pypdf upgrade moves it.

Ligatures. pdfTeX's fonts map the "fi", "fl", "ff", "ffi", "ffl" glyphs to the Unicode
ligature characters (U+FB00–U+FB06), and pypdf gives those: "ﬁrst", "deﬁned", "ﬂoat". Neither
BM25 nor the embedder's word pieces read them as the letters (`ﬂoat` is the pieces "ﬂ",
"##oat"), so a question about floats did not find float.sty's manual's 243 words spelt so;
13 of the 25 manuals of nu52a had 1,674 such words. `unligated` writes them as letters.
Only that block is rewritten, not all of NFKC (which would also turn "½" into "1⁄2" and
"™" into "TM").
"""

from __future__ import annotations

import functools
import itertools
from typing import Any


@functools.cache  # once per process: the wrapper must not wrap itself
def install() -> bool:
    """Correct the space width of fonts without a space glyph; False when this pypdf has
    no such internal to correct (its own reading is used then)."""
    try:
        from pypdf.generic._font import Font
    except ImportError:
        return False
    read = getattr(Font, "from_font_resource", None)
    if read is None:
        return False
    unbound = read.__func__

    def from_font_resource(cls: type, font_dict: Any) -> Any:
        font = unbound(cls, font_dict)
        if spaceless(font) and not unspaced_script(font):
            font.space_width = font.character_widths.get("default", 500) / 2
        return font

    Font.from_font_resource = classmethod(from_font_resource)  # type: ignore[method-assign,assignment]
    return True


def spaceless(font: Any) -> bool:
    """A composite font whose `/ToUnicode` maps codes, none of them to a space. One that
    maps none is read through its encoding (`UniGB-UCS2-H`: a Chinese font's codes are
    the characters themselves, its space among them), and keeps pypdf's reading: its
    glyphs had been spaced apart wherever a gap reached a quarter of the default width
    (attack53b)."""
    mapped = font.character_map.values()
    return font.sub_type == "Type0" and bool(mapped) and " " not in mapped


# Chinese and Japanese put no space between words: a gap between their glyphs in a TJ array
# is spacing (a quarter em before a bracket, justification), and a font of theirs that maps
# no space keeps pypdf's reading, or "一丁丂" came out "一 丁 丂" wherever a gap was wider
# than a quarter of the default width (attack53b). CJK symbols and punctuation, kana, the
# ideographs and their extensions, full- and half-width forms; not Hangul's syllables:
# Korean spaces its words.
def _unspaced(character: str) -> bool:
    return (
        "\u3000" <= character <= "\u9fff"
        or "\uf900" <= character <= "\ufaff"
        or "\uff00" <= character <= "\uffef"
        or character >= "\U00020000"
    )


# Characters of a font's map looked at: a CJK font maps tens of thousands, and pypdf reads
# each font again for each page (every one of 20,000 took 39 ms a font a page).
UNSPACED_SAMPLE = 2048


def unspaced_script(font: Any) -> bool:
    """Whether most characters the font maps (of its first UNSPACED_SAMPLE) are of a
    script without word spaces."""
    mapped = unspaced = 0
    for text in itertools.islice(font.character_map.values(), UNSPACED_SAMPLE):
        if isinstance(text, str) and text:
            mapped += 1
            unspaced += _unspaced(text[0])
    return unspaced * 2 > mapped


# Unicode's Latin ligatures, each as the letters it joins (its NFKC form).
_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
    }
)


def unligated(text: str) -> str:
    """`text` with its ligature characters written as their letters ("ﬁrst" → "first")."""
    return text.translate(_LIGATURES)
