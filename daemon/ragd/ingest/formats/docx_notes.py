"""Word's footnotes and endnotes: cited where they stand, their text at the end of the section.

python-docx reads neither: a paragraph's text leaves out its `w:footnoteReference` runs,
and `word/footnotes.xml` (`word/endnotes.xml`) is a part it keeps but never parses, so a
note's words were not indexed at all. As the OpenDocument reader does (`formats.odt`),
the citation stays where it is, "the limit [1]", and the note's text is a paragraph at
the end of its section, "[1] The limit is…", where the chunk of that section carries it.

Word stores no number with a note: the page numbers footnotes 1, 2, … and endnotes i, ii,
… in the order they are cited (Word's default formats; a document's own `w:numFmt` or
restart settings are not read). A note cited in a heading is numbered and its text kept,
but no mark is put into the heading: a heading path is a citation, "[1]" no part of it.

The parts are in the zip `archive.check_zip` measured before python-docx unpacked it, and
are parsed by python-docx's own parser (no entities, no network).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragd.ingest.formats.markdown import MarkdownWriter

# The reference element in a run of the document → the kind of note it cites.
REFERENCES = {"footnoteReference": "footnote", "endnoteReference": "endnote"}
# Word's own notes that are no one's text: the rule above the notes and its continuation.
SEPARATORS = frozenset({"separator", "continuationSeparator", "continuationNotice"})
ROMAN = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip


class WordNotes:
    """The notes of a Word document, and those cited in the section being written."""

    def __init__(self, document_part: Any, paragraph_text: Callable[[Any], str]) -> None:
        """`paragraph_text` reads one of a note's paragraphs (python-docx's Paragraph)."""
        from docx.opc.constants import RELATIONSHIP_TYPE

        kinds = {RELATIONSHIP_TYPE.FOOTNOTES: "footnote", RELATIONSHIP_TYPE.ENDNOTES: "endnote"}
        self.bodies: dict[tuple[str, str], tuple[Any, Any]] = {}  # (kind, id) → (note, part)
        self.paragraph_text = paragraph_text
        self.cited = {"footnote": 0, "endnote": 0}
        self.pending: list[str] = []
        self.problems: list[str] = []  # a damaged notes part: the text is read without it
        for relationship in document_part.rels.values():
            kind = kinds.get(relationship.reltype)
            if kind is not None and not relationship.is_external:
                self._read(kind, relationship.target_part)

    def _read(self, kind: str, part: Any) -> None:
        from docx.oxml.ns import qn
        from docx.oxml.parser import parse_xml
        from lxml.etree import XMLSyntaxError

        try:
            root = parse_xml(part.blob)
        except (XMLSyntaxError, ValueError) as exc:
            self.problems.append(f"unreadable {kind}s, read without them ({exc})")
            return
        for note in root.iterchildren(qn(f"w:{kind}")):
            if note.get(qn("w:type")) not in SEPARATORS:
                self.bodies[(kind, note.get(qn("w:id")))] = (note, part)

    def cite(self, run: Any, marked: bool = True) -> str:
        """The citations of the notes `run` refers to, "[1]" ("" when none, or not
        `marked`); their text is kept for the end of the section."""
        from docx.oxml.ns import qn

        marks = []
        for child in run._r.iterchildren():
            kind = REFERENCES.get(child.tag.rpartition("}")[2])
            if kind is None:
                continue
            self.cited[kind] += 1
            number = self.cited[kind]
            mark = str(number) if kind == "footnote" else _roman(number)
            marks.append(f"[{mark}]")
            words = self._text(kind, child.get(qn("w:id")))
            if words:
                self.pending.append(f"[{mark}] {words}")
        return " ".join(marks) if marked else ""

    def _text(self, kind: str, identifier: str | None) -> str:
        from docx.oxml.ns import qn
        from docx.text.paragraph import Paragraph

        found = self.bodies.get((kind, identifier or ""))
        if found is None:
            return ""  # a reference to a note the part lacks: a damaged file keeps its text
        note, part = found
        story = _Story(part)
        paragraphs = (Paragraph(p, story) for p in note.iterchildren(qn("w:p")))
        return " ".join(words for p in paragraphs if (words := self.paragraph_text(p).strip()))

    def write(self, writer: MarkdownWriter) -> None:
        """Write the notes cited so far, each a paragraph."""
        for note in self.pending:
            writer.paragraph(note)
        self.pending.clear()


class _Story:
    """What a note's paragraphs belong to: its part, whose relationships hold the targets
    of the links in the note."""

    def __init__(self, part: Any) -> None:
        self.part = part


def _roman(number: int) -> str:
    digits = []
    for value, letters in ROMAN:
        count, number = divmod(number, value)
        digits.append(letters * count)
    return "".join(digits)
