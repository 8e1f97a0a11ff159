"""How many of a Rust crate's documentation words reach the index.

Usage: python bench/rust_words.py CRATE_FOLDER [CRATE_FOLDER ...] [-v] [-t]

`-v` lists each file's doc words not kept; `-t` also gives the CPU seconds
(`process_time`, best of 5) to read and chunk each crate's largest `.rs` file.

For every `.rs` file under each folder, splits the source into doc-comment text and code
by this script's own patterns (it shares no code with the reader, so a reader that drops
text cannot hide it) and compares their words with the words of the chunks the daemon
makes of the file (`bench/words_kept.py`'s `chunk_words`: each heading once, no overlap).

- Doc comments: lines opening (after blanks) with `///` (not `////`) or `//!`, and
  block comments opening with `/**` (not `/***`, not `/**/`) or `/*!`, up to their `*/`
  (nested `/* */` counted). Their markers are not words, so the text is the lines as
  they are.
  What is counted is what rustdoc shows: a line of a Rust example (a doc fence whose
  info string is empty or only rustdoc's attributes: `ignore`, `no_run`, `editionNNNN`,
  …, or names `rust`; in a block quote too, `> ```` … `> # use x;`; or an indented code
  block: a doc line indented four past the comment's text after a blank doc line or
  another such line) that opens with `# ` or is a lone `#` is hidden by rustdoc, and
  is neither doc nor code here (the reader leaves it out too).
- A one-line `#[doc = "text"]` (`#![doc = …]`): the text is doc. `#[doc =
  include_str!("path")]`: the file's text is shown there, which this file does not
  hold; the words of its path are counted as code (the reader names the file there).
- Code: every other line.

Words are runs of letters and digits, lower-cased, compared as multisets. `doc kept`
credits the code's words first (a word the chunks hold fewer times than code and docs
together is charged to the docs): Σ min(doc[w], max(0, chunks[w] − code[w])) / Σ doc.
`all kept`: Σ min(doc[w] + code[w], chunks[w]) / Σ (doc + code).
"""

from __future__ import annotations

import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bench.words_kept import chunk_words, words  # noqa: E402

_LINE_DOC = re.compile(r"^\s*(///(?!/)|//!)")
_BLOCK_DOC = re.compile(r"^\s*(/\*\*(?![*/])|/\*!)")
_MARKERS = re.compile(r"^\s*(?:///|//!|/\*\*|/\*!|\*(?!/))?")  # a doc line's own marker
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([^`]*)$")
_DOC_FENCE = re.compile(r'doc\s*=\s*"([^"]*)"')
_DOC_LINE = re.compile(r'^\s*#!?\[\s*doc\s*=\s*"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_INCLUDE_LINE = re.compile(r'^\s*#!?\[\s*doc\s*=\s*include_str!\s*\(\s*"([^"]*)"\s*\)\s*\]\s*$')
_QUOTE = re.compile(r"^(?:\s*>)+\s?")
_RUSTDOC_WORDS = {"rust", "ignore", "no_run", "should_panic", "compile_fail", "test_harness"}


class _Shown:
    """Which doc lines rustdoc shows: all but a Rust example's `# ` and lone `#` lines."""

    def __init__(self) -> None:
        self.fence = ""  # the open fence's run
        self.rust = False
        self.indented = False  # the last doc line was indented code, or blank after it
        self.blank = True  # the last doc line was blank

    def __call__(self, line: str) -> bool:
        raw = _MARKERS.sub("", line, count=1)
        text = _QUOTE.sub("", raw.strip(), count=1).strip()
        hidden = text == "#" or text.startswith("# ")
        deep = not self.fence and raw[:5] == "     "  # one blank after `///`, then four
        self.indented = (deep and (self.blank or self.indented)) or (self.indented and not text)
        self.blank = not text
        if self.indented and deep:
            return not hidden
        fence = _FENCE.match(text)
        if fence and not self.fence:
            self.fence = fence.group(1)
            info = [w for w in re.split(r"[\s,]+", fence.group(2)) if w]
            self.rust = "rust" in info or all(
                w in _RUSTDOC_WORDS or w.startswith(("edition", "ignore-")) for w in info
            )
            return True
        if fence and fence.group(1).startswith(self.fence) and not fence.group(2).strip():
            self.fence = ""
            return True
        return not (self.fence and self.rust and hidden)

    def code(self, line: str) -> None:
        """A code line: it ends the doc comment, and any fence left open in it, unless it
        is an attribute between two runs of one item's docs, which may open a fence
        itself (clap: `#[cfg_attr(feature = "help", doc = " ```")]`, one per feature)."""
        if not line.lstrip().startswith("#["):
            self.fence = ""
            self.indented, self.blank = False, True
            return
        attribute = _DOC_FENCE.search(line)
        if attribute and not self.fence:
            self(attribute.group(1))


def split_source(text: str) -> tuple[Counter[str], Counter[str]]:
    """(doc words, code words) of a Rust file's text."""
    doc: Counter[str] = Counter()
    code: Counter[str] = Counter()
    depth = 0  # nesting of the open block doc comment (0: none)
    shown = _Shown()
    for line in text.splitlines():
        if depth:
            depth += line.count("/*") - line.count("*/")
            doc += words(line) if shown(line) else Counter()
            continue
        opened = _BLOCK_DOC.match(line)
        if opened:
            depth = max(0, line.count("/*") - line.count("*/"))
            doc += words(line) if shown(line) else Counter()
        elif _LINE_DOC.match(line):
            doc += words(line) if shown(line) else Counter()
        elif _DOC_LINE.match(line):
            text = _DOC_LINE.match(line).group(1)  # type: ignore[union-attr]
            doc += words(text) if shown(text) else Counter()
        elif _INCLUDE_LINE.match(line):
            code += words(_INCLUDE_LINE.match(line).group(1))  # type: ignore[union-attr]
        else:
            shown.code(line)
            code += words(line)
    return doc, code


def measure(folder: Path, verbose: bool) -> tuple[int, int, int, int, int]:
    """(files, doc words kept, doc words, all words kept, all words)."""
    files = doc_kept = doc_total = all_kept = all_total = 0
    for path in sorted(folder.rglob("*.rs")):
        doc, code = split_source(path.read_text(encoding="utf-8", errors="replace"))
        got = chunk_words(path)
        files += 1
        kept = {w: min(n, max(0, got[w] - code[w])) for w, n in doc.items()}
        doc_kept += sum(kept.values())
        doc_total += sum(doc.values())
        source = doc + code
        all_kept += sum(min(n, got[w]) for w, n in source.items())
        all_total += sum(source.values())
        lost = {w: n - kept[w] for w, n in doc.items() if kept[w] < n}
        if verbose and lost:
            print(f"  {path.relative_to(folder)}: doc words lost {dict(list(lost.items())[:12])}")
    return files, doc_kept, doc_total, all_kept, all_total


def largest_file_seconds(folder: Path) -> tuple[Path, float]:
    """The crate's largest `.rs` file and the CPU seconds to parse and chunk it (by its
    path in the crate, as the daemon names it), the best of 5."""
    from ragd.ingest.chunking import chunk_document
    from ragd.ingest.loaders import parse

    path = max(folder.rglob("*.rs"), key=lambda p: p.stat().st_size)
    data, name = path.read_bytes(), str(path.relative_to(folder))
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        chunk_document(parse(name, data))
        best = min(best, time.process_time() - started)
    return path.relative_to(folder), best


def main() -> None:
    verbose, timed = "-v" in sys.argv, "-t" in sys.argv
    for arg in [a for a in sys.argv[1:] if a not in ("-v", "-t")]:
        files, doc_kept, doc_total, all_kept, all_total = measure(Path(arg), verbose)
        print(
            f"{arg}: {files} files, doc words {doc_kept} of {doc_total} kept "
            f"({doc_kept / max(doc_total, 1):.2%}), all words {all_kept} of {all_total} "
            f"({all_kept / max(all_total, 1):.2%})"
        )
        if timed:
            path, seconds = largest_file_seconds(Path(arg))
            size = (Path(arg) / path).stat().st_size
            print(f"  largest file {path} ({size:,} bytes): {seconds:.3f} s CPU to read and chunk")


if __name__ == "__main__":
    main()
