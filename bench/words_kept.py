"""How many of a Sphinx documentation tree's words reach the index.

Usage: python bench/words_kept.py DOCS_FOLDER [DOCS_FOLDER ...]
       python bench/words_kept.py FILE [FILE ...]   (any other file: its words as text)

For every `.rst`, `.md`, `.qmd` and `.Rmd` file under each folder, counts the words of
the *source* a reader of the built page sees, and the words of the chunks the daemon makes
of the file (`loaders.parse` + `chunk_document`, in process, exactly as the parse worker
does), and reports per folder: kept = Σ over words of min(count in source, count in
chunks) / Σ count in source.

The source's words are counted from the file's text with markup taken out by this script
alone (it shares no code with the readers, so a reader that drops text cannot hide it):

- reST: Sphinx's file-wide settings (`:orphan:`, `:tocdepth:`) in the fields a file opens
  with; section adornment lines; comments (`..` blocks that are not directives);
  hyperlink targets (`.. _name:`, `__ URL`) and substitution definitions (`.. |x| …`); a directive's
  name and its option lines (`:members:`), keeping its arguments (not the condition of
  `only`/`ifconfig` or the layout of `tabs`/`grid`) and body; the whole
  block of directives that are not text on the built page (`toctree`, `index`,
  `currentmodule`, `highlight`, `testsetup`, `image`, `raw`, `include`, `meta`, …); role
  names (`:func:`) and role targets that a title hides (`title <target>` counts `title`),
  and the part of a `~a.b.C` target Sphinx does not show (counts `C`); URLs of links
  written `` `text <url>`_ ``.
- MyST Markdown: the same for ```` ```{directive} ```` and `:::{directive}` fences (name,
  option lines), `{role}` prefixes, `(label)=` targets, `%` comments, front matter, link
  URLs `](…)`, HTML comments (`<!-- … -->`, on one line or several, outside code: a
  rendered page never shows one); `{eval-rst}` bodies are counted as reST.

Quarto and R Markdown (`.qmd`, `.Rmd`): the shown keys of the YAML header (`title`,
`author`, …, one-line values), no fence or chunk-option line (`#|`), of a fenced div's
`:::` line only a callout's `title="…"`, no shortcode outside code (`{{< include x.qmd >}}`:
the page shows what it names) but `kbd`'s keys; everything else as written.

DocBook and Mallard (`.docbook`, `.xml`, `.page`): a folder holding any is measured as one
book. Every such file's words are counted from its XML text nodes as lxml reads them with
no DTD and no entity expanded (`&app;` counts as nothing), left out: comments, processing
instructions, `indexterm` and `remark` (DocBook), editorial `comment`s, `links` and `info`
but its `desc`, and what an `if:choose` holds outside its `if:when` and `if:else`
branches, which Yelp never shows (Mallard). The chunks of all its files are counted
together and compared with the words of all its files together: a fragment one chapter
includes (`xi:include`) is read into that chapter, and counts there.

A FILE named on the command line (plain text, gzipped or not; code; anything else the
daemon reads as text) counts the words of its text as a terminal shows it: ANSI escape
sequences and overstrikes (`X\\bX`, `_\\bX`, grotty's `+\\bo` bullet) taken out by this
script's own patterns, and `%`-separator lines of an entry list (`%` alone) not counted.
Nothing else is taken out, so a running header a paged reader drops counts as lost.

Words are runs of letters and digits, lower-cased (`os.path.join` is three words), and
what is kept is compared as multisets, so a word that appears once in the source must
appear at least once in the chunks. Chunks are counted without their overlap (the text
carried over from the previous chunk), and each heading once, so repetition cannot make
up for a loss. Code blocks count: they are content too.
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "daemon"), str(ROOT / "shared")]

WORD = re.compile(r"[^\W_]+")
SILENT = {
    "toctree", "index", "currentmodule", "highlight", "tabularcolumns", "meta", "default-role",
    "default-domain", "sectionauthor", "moduleauthor", "codeauthor", "testsetup",
    "testcleanup", "raw", "image", "include", "contents", "sectnum", "py:currentmodule",
    "rst-class",
}  # fmt: skip
FILE_SETTINGS = {"orphan", "tocdepth", "nocomments", "nosearch"}
_FIELD = re.compile(r"^:([\w-]+):(\s|$)")
# Directives whose argument is a condition or a layout, not text on the page.
CONDITIONS = {"only", "ifconfig", "tabs", "tab-set", "grid", "hlist", "container", "div"}
_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")
_EXPLICIT = re.compile(r"^(\s*)\.\.(\s+|$)(.*)$")
_DIRECTIVE = re.compile(r"^([\w:.+-]+)\s*::(.*)$")
_OPTION = re.compile(r"^\s*:[\w .-]+:(\s.*)?$")
_ROLE = re.compile(r":[\w:.+-]+:`([^`]*)`")
_LINK = re.compile(r"`([^`<]*?)\s*<[^`>]*>`_{1,2}")
_TITLED = re.compile(r"^(.*?)\s*<[^<>]*>$", re.S)
_FENCE = re.compile(r"^(\s*)(`{3,}|:{3,})\s*\{([\w:.+-]+)\}(.*)$")
_CODE_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_MYST_ROLE = re.compile(r"\{[\w:.+-]+\}`([^`]*)`")
_MD_LINK = re.compile(r"\]\([^)]*\)")


_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_UNDERLINED_AFTER = re.compile(r"([^\x08\n])\x08_")
_STRUCK = re.compile(r"[^\x08\n]\x08")


def shown_text(text: str) -> str:
    """`text` as a terminal shows it (see the module's doc), by this script alone."""
    text = _CSI.sub("", text).replace("\x1b", "").replace("+\x08o", "\u2022")
    text = _UNDERLINED_AFTER.sub(r"\1", text)
    return _STRUCK.sub("", text).replace("\x08", "")


def file_source_words(path: Path) -> Counter[str]:
    """The words of a file read as text (gunzipped first when it ends in .gz)."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    text = shown_text(data.decode("utf-8", errors="replace"))
    return words("\n".join(line for line in text.split("\n") if set(line.strip()) != {"%"}))


def words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in WORD.findall(text))


def _role(match: re.Match[str]) -> str:
    text = match.group(1)
    titled = _TITLED.match(text)
    if titled and titled.group(1):
        return titled.group(1)
    target = text.strip().lstrip("!").strip("<>")
    return target[1:].rsplit(".", 1)[-1] if target.startswith("~") else target


def _inline_rst(line: str) -> str:
    return _ROLE.sub(_role, _LINK.sub(r"\1", line))


def _without_file_settings(lines: list[str]) -> list[str]:
    """The lines but Sphinx's file-wide settings (`:orphan:`, `:tocdepth: 2`) among the
    fields a file opens with: Sphinx reads them and shows nothing."""
    kept = list(lines)
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        field = _FIELD.match(line)
        if field is None:
            break
        if field.group(1).lower() in FILE_SETTINGS:
            kept[number] = ""
    return kept


def rst_source_words(text: str) -> Counter[str]:
    count: Counter[str] = Counter()
    # A link's URL may be on the line after its text: drop it first, keeping the lines.
    text = _LINK.sub(lambda m: m.group(1) + "\n" * m.group(0).count("\n"), text)
    text = _ROLE.sub(lambda m: _role(m) + "\n" * m.group(0).count("\n"), text)
    lines = _without_file_settings(text.splitlines())
    skip_below: int | None = None  # skip lines indented deeper than this (a dropped block)
    options_below: int | None = None  # a directive's option lines, right after it
    option_indent: int | None = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if skip_below is not None:
            if not line.strip() or indent > skip_below:
                continue
            skip_below = None
        if options_below is not None:
            if line.strip() and indent > options_below and _OPTION.match(line):
                option_indent = indent
                continue
            if line.strip() and option_indent is not None and indent > option_indent:
                continue  # an option's value continued on the next line
            options_below = option_indent = None
        if _ADORNMENT.match(line) or line.lstrip().startswith("__ "):
            continue  # an adornment, or an anonymous hyperlink target (`__ URL`)
        explicit = _EXPLICIT.match(line)
        if explicit:
            rest = explicit.group(3)
            directive = _DIRECTIVE.match(rest)
            if directive is None or rest.startswith(("_", "|")) or directive.group(1) in SILENT:
                footnote = re.match(r"^\[[^\]]+\]\s*(.*)$", rest)
                if footnote:
                    count += words(_inline_rst(footnote.group(1)))
                    continue
                skip_below = indent  # comment, target, substitution, silent directive
                continue
            if directive.group(1) not in CONDITIONS:
                count += words(_inline_rst(directive.group(2)))
            options_below = indent
            continue
        count += words(_inline_rst(line))
    return count


def myst_source_words(text: str) -> Counter[str]:
    count: Counter[str] = Counter()
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":  # front matter
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        lines = lines[end + 1 :]
    stack: list[tuple[str, str]] = []  # open fences: (closing fence, directive name)
    code: str | None = None  # the closing fence of an open plain code block
    options = False
    rst: list[str] | None = None
    commented = False  # inside an HTML comment left open on an earlier line
    for line in lines:
        if commented or (code is None and "<!--" in line):
            line, commented = _outside_comments(line, commented)
        stripped = line.strip()
        if code is not None:
            if stripped.startswith(code) and not stripped.strip(code[0]):
                code = None
            else:
                count += words(line)
            continue
        if (
            stack
            and stripped
            and stripped.startswith(stack[-1][0])
            and not stripped.strip(stack[-1][0][0])
        ):
            _, name = stack.pop()
            if rst is not None and name == "eval-rst":
                count += rst_source_words("\n".join(rst))
                rst = None
            options = False
            continue
        if rst is not None:
            rst.append(line)
            continue
        if options and re.match(r"^\s*:[\w-]+:", line):
            continue
        options = False
        fence = _FENCE.match(line)
        if fence:
            name = fence.group(3).lower()
            stack.append((fence.group(2), name))
            options = True
            if name == "eval-rst":
                rst = []
            elif name not in SILENT and name not in CONDITIONS:
                count += words(_MYST_ROLE.sub(r"\1", fence.group(4)))
            continue
        if stack and stack[-1][1] in SILENT:
            continue
        plain = _CODE_FENCE.match(line)
        if plain:
            code = plain.group(2)
            continue
        if re.match(r"^\s*\([\w:.-]+\)=\s*$", line) or stripped.startswith("%"):
            continue
        count += words(_MD_LINK.sub("]", _MYST_ROLE.sub(_myst_role, line)))
    return count


QUARTO_SHOWN_KEY = re.compile(r"(?:title|subtitle|author|date|description|abstract):(.*)")
QUARTO_OPTION = re.compile(r"\s*(?:#|//|--)\|")
QUARTO_TITLE = re.compile(r"""title=["']([^"']*)["']""")
# A shortcode, `{{< video https://… >}}`: rendered as what it names, none of its words; but
# `kbd`'s keys, and an escaped one, `{{{< var x >}}}`, shown as `{{< var x >}}`.
QUARTO_SHORTCODE = re.compile(r"(\{?)\{\{<([^>\n]*)>\}\}(\}?)")


def _quarto_shortcode(match: re.Match[str]) -> str:
    if match.group(1) and match.group(3):
        return match.group(0)[1:-1]
    name, *arguments = match.group(2).split() or [""]
    keys = (argument.rpartition("=")[2] for argument in arguments)
    return match.group(1) + (" ".join(keys) if name == "kbd" else "") + match.group(3)


def quarto_source_words(text: str) -> Counter[str]:
    """A Quarto or R Markdown page's shown words: of its YAML header only the shown keys'
    one-line values; no fence line, no chunk option line (`#|` before the chunk's code);
    of a fenced div's fence (`:::`) only a callout's `title="…"`; outside code, no
    shortcode's words but `kbd`'s keys (QUARTO_SHORTCODE)."""
    lines = text.split("\n")
    shown: list[str] = []
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((n for n in range(1, len(lines)) if lines[n].strip() in ("---", "...")), 0)
        shown += [m.group(1) for line in lines[1:end] if (m := QUARTO_SHOWN_KEY.match(line))]
        start = end + 1
    fenced = options = False
    for line in lines[start:]:
        bare = line.strip()
        if bare.startswith(("```", "~~~")) and (not fenced or not bare.strip("`~")):
            fenced, options = not fenced, not fenced
            continue
        if fenced:
            options = options and QUARTO_OPTION.match(line) is not None
            if not options:
                shown.append(line)
        elif bare.startswith(":::"):
            shown += QUARTO_TITLE.findall(bare)
        else:
            shown.append(QUARTO_SHORTCODE.sub(_quarto_shortcode, line))
    return words("\n".join(shown))


def _outside_comments(line: str, commented: bool) -> tuple[str, bool]:
    """The parts of `line` outside HTML comments, and whether one is still open at its end
    (a code span's `<!--` is taken for a comment too: rare in prose, and only undercounts)."""
    kept = []
    while True:
        if commented:
            end = line.find("-->")
            if end == -1:
                return "".join(kept), True
            line, commented = line[end + 3 :], False
        start = line.find("<!--")
        if start == -1:
            return "".join(kept) + line, False
        kept.append(line[:start] + " ")
        line, commented = line[start + 2 :], True


def _myst_role(match: re.Match[str]) -> str:
    return _role(match)


def chunks_of(path: Path) -> list[Any]:
    """The chunks the daemon makes of the file (none when it skips it, said on stderr)."""
    from ragd.ingest.chunking import chunk_document
    from ragd.ingest.loaders import SkipFile, parse

    try:
        return chunk_document(parse(path.name, path.read_bytes(), folder=str(path.parent)))
    except SkipFile as exc:
        print(f"  skipped {path}: {exc}", file=sys.stderr)
        return []


def chunk_words(path: Path, chunks: list[Any] | None = None) -> Counter[str]:
    """The words of the file's chunks, each heading once and no overlap counted."""
    if chunks is None:
        chunks = chunks_of(path)
    count: Counter[str] = Counter()
    headings = {c.heading[: i + 1] for c in chunks for i in range(len(c.heading))}
    for heading in headings:
        count += words(heading[-1])
    for chunk in chunks:
        count += words(chunk.embed_text)
    return count


def measure(folder: Path, verbose: bool = False) -> tuple[int, int, int]:
    total = kept = files = 0
    for path in sorted(folder.rglob("*")):
        if path.suffix not in (".rst", ".md", ".qmd", ".Rmd") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix in (".qmd", ".Rmd"):
            source = quarto_source_words(text)
        else:
            source = rst_source_words(text) if path.suffix == ".rst" else myst_source_words(text)
        got = chunk_words(path)
        lost = {w: n - got[w] for w, n in source.items() if got[w] < n}
        files += 1
        total += sum(source.values())
        kept += sum(min(n, got[w]) for w, n in source.items())
        if verbose and lost:
            sample = dict(list(lost.items())[:12])
            print(f"  {path.relative_to(folder)}: lost {sum(lost.values())} {sample}")
    return files, kept, total


XML_SUFFIXES = (".xml", ".docbook", ".page")
NOT_TEXT = {"indexterm", "remark"}
NOT_MALLARD_TEXT = {"comment", "links", "info"}
MALLARD_IF = "{http://projectmallard.org/if/1.0/}"


def xml_source_words(data: bytes, mallard: bool) -> Counter[str]:
    """The words of an XML file's text nodes (see the module's docstring)."""
    import lxml.etree

    parser = lxml.etree.XMLParser(
        load_dtd=False, resolve_entities=False, no_network=True, recover=True,
        remove_comments=True, remove_pis=True,
    )  # fmt: skip
    root = lxml.etree.fromstring(data, parser)
    count: Counter[str] = Counter()
    skipped = NOT_TEXT | (NOT_MALLARD_TEXT if mallard else set())
    stack = [] if root is None else [root]
    while stack:  # each kept element: its own text, and the tails of its children
        element = stack.pop()
        count += words(element.text or "")
        for child in element:
            count += words(child.tail or "")
            tag = child.tag.rpartition("}")[2] if isinstance(child.tag, str) else ""
            if tag == "info" and mallard:  # a Mallard page's summary is text
                stack.extend(c for c in child if str(c.tag).endswith("}desc"))
            elif element.tag == f"{MALLARD_IF}choose" and tag not in ("when", "else"):
                continue  # Yelp shows a choice's branches and nothing else of it
            elif tag and tag not in skipped:
                stack.append(child)
    return count


def measure_xml(folder: Path, verbose: bool = False) -> tuple[int, int, int, int]:
    """One book: (files, words kept, source words, chunks) over the folder's XML files."""
    source: Counter[str] = Counter()
    got: Counter[str] = Counter()
    files = chunk_count = 0
    for path in sorted(folder.rglob("*")):
        if path.suffix not in XML_SUFFIXES or not path.is_file():
            continue
        files += 1
        source += xml_source_words(path.read_bytes(), path.suffix == ".page")
        chunks = chunks_of(path)
        chunk_count += len(chunks)
        got += chunk_words(path, chunks)
    kept = sum(min(n, got[w]) for w, n in source.items())
    if verbose:
        lost = {w: n - got[w] for w, n in source.items() if got[w] < n}
        print(
            f"  lost {sum(lost.values())}: {dict(sorted(lost.items(), key=lambda x: -x[1])[:20])}"
        )
    return files, kept, sum(source.values()), chunk_count


def measure_file(path: Path, verbose: bool = False) -> tuple[int, int, int]:
    source, got = file_source_words(path), chunk_words(path)
    kept = sum(min(n, got[w]) for w, n in source.items())
    if verbose and kept < sum(source.values()):
        lost = {w: n - got[w] for w, n in source.items() if got[w] < n}
        print(f"  lost {sum(lost.values())} {dict(list(lost.items())[:12])}")
    return 1, kept, sum(source.values())


def main() -> None:
    verbose = "-v" in sys.argv
    for arg in [a for a in sys.argv[1:] if a != "-v"]:
        path = Path(arg)
        if path.is_dir() and any(p.suffix in XML_SUFFIXES for p in path.rglob("*")):
            files, kept, total, chunks = measure_xml(path, verbose)
            share = kept / total if total else 1.0
            print(
                f"{arg}: {files} files, {chunks} chunks, {kept} of {total} words kept ({share:.2%})"
            )
            continue
        counted = measure_file if path.is_file() else measure
        files, kept, total = counted(path, verbose)
        share = kept / total if total else 1.0
        print(f"{arg}: {files} files, {kept} of {total} source words kept ({share:.2%})")


if __name__ == "__main__":
    main()
