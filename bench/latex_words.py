"""How many of a LaTeX document's prose words reach the index.

Usage: python bench/latex_words.py [-v] FILE_OR_FOLDER [...]

For every `.tex` file given (or `.tex.gz`; a folder: every one under it), counts the
prose words of the source and the words of the chunks the daemon makes of the file
(`bench/words_kept.chunk_words`: `loaders.parse` + `chunk_document` in process, as the
parse worker does; overlap and repeated headings not counted), and reports per file and
pooled: kept = Σ over words of min(count in source, count in chunks) / Σ count in
source, with the sectioning commands of the source beside the headings of the chunks.

The source's prose words are counted by this script's own patterns (no code shared with
the reader, so a reader that drops text cannot hide it): the text between
`\\begin{document}` (the file's start when there is none) and `\\end{document}`, with
comments, `comment` environments and `\\iffalse … \\fi` taken out; the arguments of the
commands whose argument is a key, a file or a package (`\\label`, `\\ref`, `\\cite`,
`\\usepackage`, `\\includegraphics`, `\\index` and kin), environment names, a `\\begin`'s
optional argument and a table's column spec, lengths (`1em`, `3pt`), then every control
word's name. Words are runs of letters, lower-cased, compared as multisets; digits do not
count (a LaTeX source's numbers are mostly lengths and counters).
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from words_kept import chunks_of

LETTERS = re.compile(r"[^\W\d_]+")
BODY = re.compile(r"\\begin\s*\{document\}(.*?)(?:\\end\s*\{document\}|\Z)", re.S)
COMMENT = re.compile(r"(?<!\\)%[^\n]*")
COMMENT_ENV = re.compile(r"\\begin\s*\{comment\}.*?\\end\s*\{comment\}", re.S)
IFFALSE = re.compile(r"\\iffalse\b.*?\\fi\b", re.S)
KEYED = re.compile(
    r"\\(?:label|ref|eqref|pageref|autoref|cref|Cref|nameref|cite[a-zA-Z]*|nocite|"
    r"usepackage|RequirePackage|documentclass|includegraphics|index|input|include|"
    r"bibliography|bibliographystyle|hyperref|url|href|setlength|addtolength|"
    r"setcounter|addtocounter|newcounter|pagestyle|thispagestyle)\*?"
    r"(?:\s*\[[^\]]*\])*\s*\{[^{}]*\}"
)
BEGIN = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}(?:\s*\[[^\]]*\])?")
COLUMNS = re.compile(
    r"\\begin\s*\{(?:tabular|tabularx|longtable|array)\*?\}\s*(?:\{[^{}]*\})?\s*\{[^{}]*\}"
)
LENGTH = re.compile(r"-?\d*\.?\d+\s*(?:pt|em|ex|cm|mm|in|bp|pc|sp|dd|cc|mu)\b")
CONTROL_WORD = re.compile(r"\\[a-zA-Z@]+")
SECTIONING = re.compile(
    r"\\(?:part|chapter|section|subsection|subsubsection|paragraph|subparagraph)\*?\s*[\[{]"
)


def read(path: Path) -> str:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def body(text: str) -> str:
    text = COMMENT.sub("", text)
    found = BODY.search(text)
    return found.group(1) if found else text


def source_words(text: str) -> Counter[str]:
    prose = IFFALSE.sub(" ", COMMENT_ENV.sub(" ", body(text)))
    for pattern in (COLUMNS, KEYED, BEGIN, LENGTH, CONTROL_WORD):
        prose = pattern.sub(" ", prose)
    return letter_words(prose)


def letter_words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in LETTERS.findall(text))


def chunk_letter_words(path: Path) -> tuple[Counter[str], int]:
    """The chunks' words (each heading once, no overlap) and how many headings they have."""
    chunks = chunks_of(path)
    headings = {c.heading[: i + 1] for c in chunks for i in range(len(c.heading))}
    count: Counter[str] = Counter()
    for heading in headings:
        count += letter_words(heading[-1])
    for chunk in chunks:
        count += letter_words(chunk.embed_text)
    return count, len(headings)


def files(args: list[str]) -> list[Path]:
    found: list[Path] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.tex*") if p.name.endswith((".tex", ".tex.gz")))
        else:
            found.append(path)
    return found


def main() -> None:
    verbose = "-v" in sys.argv
    total = kept = sections = headings = measured = 0
    for path in files([a for a in sys.argv[1:] if a != "-v"]):
        text = read(path)
        source = source_words(text)
        if not source:
            print(f"{path.name}: no prose words")
            continue
        got, file_headings = chunk_letter_words(path)
        file_kept = sum(min(n, got[w]) for w, n in source.items())
        file_total = sum(source.values())
        file_sections = len(SECTIONING.findall(body(text)))
        total, kept, measured = total + file_total, kept + file_kept, measured + 1
        sections, headings = sections + file_sections, headings + file_headings
        print(
            f"{path.name}: {file_kept} of {file_total} ({file_kept / file_total:.2%}); "
            f"{file_sections} sectioning commands, {file_headings} headings"
        )
        if verbose:
            lost = Counter({w: n - got[w] for w, n in source.items() if got[w] < n})
            print("   lost:", ", ".join(f"{w} ×{n}" for w, n in lost.most_common(15)))
    print(
        f"{measured} files: {kept} of {total} prose words kept ({kept / max(total, 1):.2%}); "
        f"{sections} sectioning commands, {headings} headings"
    )


if __name__ == "__main__":
    main()
