"""A chunk's text → the whole units a keyless answer may quote (pure).

A unit is what a reader would point at: a paragraph (hard-wrapped lines joined back into
one), a list item, a definition list's term with its definition ("**logger**" / ": Your
wrapped logger object."), a table row together with its header row, or a code block /
command line (with the line that introduces it, "To build a static jq, run:"). A paragraph
of a block quote signed by its author (an epigraph) is marked as another's words. Real
documents are full of lines that are not answers, and none of them becomes a unit:

* headings — Markdown `#` lines, setext/RST titles with their `===`/`---` underlines
  (centred ones too, indented past the body, which would otherwise read as code),
  a lone short line without a full stop ("Dependencies", "* Installation") — except an
  item of a list a lead-in introduces ("… in the following order:" / "2. converter"),
  which is an item however short, its sub-items part of an item ending in a colon;
* link-only lines — badges, bare URLs, `[ref]: https://…` and `.. _ref: …` targets, a
  manual's "Next: …, Previous: …, Up: …" page links, and a `literalinclude` shown as
  "(includes solution.py)": a pointer to a file, not what the file says;
* a lone name in backticks — an API reference's autodoc entry ("`add_log_level`") is
  the title of what follows it;
* questions — a FAQ's question is not its answer. It becomes the *context* of the units
  that follow it, as does a heading, so an answer paragraph is found by its question.

Indentation decides what is code in plain text: the chunk's most common indent is its
body text, lines indented deeper are a code block (`$ ./configure && make` under a
README's prose, the `ps -o pid,user:19,comm` in an FAQ whose answers are all indented).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from ragd.ingest.chunking import Fences
from ragd.ingest.formats.markdown import unescape_line
from ragd.query.injection import addresses_a_model

MAX_PARAGRAPH_CHARS = 800  # longer paragraphs are quoted sentence by sentence
MAX_CODE_LINES = 6  # a longer code block is quoted in runs of lines
# A fenced block this short is quoted whole, blank lines and all: cut into runs, a
# workflow file stopped at "on: [push, pull_request]" and never showed its `- uses:` line.
# Grid 8/10/12 on the replayed eval retrievals: the same counts (pydocs' PyPika join
# gains its `.where(`), 10 the middle. Only fences: an indented block in plain text (a
# licence's notice) is as often a quotation as code, and whole it crowds out the answer.
SHORT_BLOCK_LINES = 10
SHORT_BLOCK_CHARS = 400
MAX_UNIT_CHARS = 800
MIN_WORDS = 3
SENTENCE_WORDS = 2  # fewer words are quoted only when they end as a sentence does
HEADING_WORDS = 6  # a lone line this short without a full stop is a title, not a fact
TITLE_WORDS = 12  # a lone Title Case line up to this many longer words is a title

_RULE = re.compile(r"^\s*([=\-~^*#+_`'\".:])\1{2,}\s*$")  # setext/RST underline, <hr>
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
# Every run of blanks follows a fixed character, so no two blank runs meet (linear).
_TABLE_SEPARATOR = re.compile(r"^\s*(?:\|\s*)?:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)+(?:\|\s*)?$")
# List bullets, man pages' "○"/"◦" among them (enumeration.py reads items with the same).
BULLETS = "-*+•○◦"
_LIST_MARKER = re.compile(rf"^\s*(?:[{re.escape(BULLETS)}]|\d{{1,3}}[.)]|[a-z][.)])\s+")
_QUOTE_MARKER = re.compile(r"^\s*>\s?")
_NUMBER_MARKER = re.compile(r"^\s*\d{1,3}[.)]\s+")
# A manual's page links ("Next: Thread Safety, Previous: The Closure API, Up: Using libffi")
_NAVIGATION = re.compile(r"^\s*(?:Next|Prev(?:ious)?|Up):\s")
# A Sphinx/MyST `literalinclude` as the reader shows it (ingest/formats/sphinx.py): it
# points at a file, it says nothing the file does not.
_INCLUDE_POINTER = re.compile(r"^\s*\(includes [^()\n]{1,500}\)\s*$")
_LINK_TARGET = re.compile(r"^\s*(?:\[[^\]]+\]:\s*\S+|\.\.\s+_[^:]+:\s*\S+|\.\.\s+\|[^|]+\|.*)$")
# Link texts and targets are bounded: scanned from every "[" of a line without "]", an
# unbounded one is quadratic. An e-mail address splits at its one "@".
_MD_IMAGE = re.compile(r"!\[[^\]]{0,500}\]\([^)]{0,2000}\)")
# A link's text holds no "[": from each "[" the scan stops at the next one, so a run of
# brackets is read once, not 500 characters from each (test_regex_linear saw 9.6x the time
# for 4x a run of "[" on a loaded machine); nested brackets never made a link here anyway.
_MD_LINK = re.compile(r"\[([^\[\]]{0,500})\]\([^)]{0,2000}\)")
_URL = re.compile(r"<?\b(?:https?|ftp)://\S+|\bwww\.\S+|<[^>\s@<]+@[^>\s@<]+>")
_RST_ROLE = re.compile(r"`([^`<]{0,500})<[^>`]{1,2000}>`_+")  # the text's trailing blanks: cut
_RST_SUBSTITUTION = re.compile(r"\|[A-Za-z][\w-]*\|_{0,2}")  # |PyPI-Downloads| badges
# `.. contents::`, `.. code:: sh` and their `:backlinks: top` options
_RST_DIRECTIVE = re.compile(r"^\s*(?:\.\.\s+\S|:[\w-]+:(?:\s|$))")
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Unit:
    text: str  # quoted verbatim; several lines for code and for a table row with its header
    kind: str  # "prose", "item", "row" or "code"
    context: str = ""  # the heading, FAQ question or lead-in above it (for scoring only)
    instruction: bool = False  # addresses the reader as a model: shown, never obeyed
    sentence_of: int = -1  # a sentence of a long paragraph: that paragraph's number, else -1
    led_in: bool = False  # a code unit quoted with the line introducing it ("… run:")
    attributed: bool = False  # of a quotation signed by someone ("> … / > —Paul Querna")
    listed: bool = False  # an item of a list a lead-in introduces: kept however short
    numbered: bool = False  # an item of a numbered list ("2. Install …"): a step, no option
    nested: bool = False  # an item holding the sub-items it introduces
    # A later sentence of a long definition item ("PrivateTmp= — Takes a boolean argument.
    # If true, …"): the item's term and separator as written ("PrivateTmp= —"), shown
    # before the sentence when it is quoted without the item's first one. Not scored.
    term: str = ""
    # A run of a code block after its first (units.py cuts a long block into runs of lines):
    # the unit before it in its chunk is of the same block (extractive.code_blocks).
    later_run: bool = False

    @property
    def search_text(self) -> str:
        return f"{self.context}\n{self.text}" if self.context else self.text


def _indent(line: str) -> int:
    prefix = line[: len(line) - len(line.lstrip())]
    return len(prefix.expandtabs(8))


def _body_indent(lines: list[str]) -> int:
    """The indent most text lines share (ties go to the smaller one). Prompt and comment
    lines do not vote: a chunk that starts inside a long example ("$ git add …" × 7) would
    otherwise make the example its body and the prose around it an indented block. Nor
    do lines that read as code (_reads_as_code) while any line reads otherwise: Penlight's
    manual holds more lines of indented configuration and Lua than of prose, and
    "read.timeout=10", "ports = {" and "print(pretty.write(t))" made the indented examples
    the body, so they were read as paragraphs and quoted run onto one line ("; test.ini
    [timeouts] read=10 ; Read timeout in seconds …", newuser43)."""
    voters = [
        line
        for line in lines
        if line.strip() and not _LIST_MARKER.match(line) and not _PROMPT_OR_COMMENT.match(line)
    ]
    worded = [line for line in voters if not _reads_as_code(line)]
    widths = Counter(_indent(line) for line in (worded or voters))
    if not widths:
        return 0
    return min(widths, key=lambda w: (-widths[w], w))


_PROMPT_OR_COMMENT = re.compile(r"\s*(?:\$\s|>>>|#|//)")
# Code's marks: an assignment, a brace, a line opening as an INI section or comment, or as
# a Lua/SQL/Haskell comment (a `;` inside a line is prose's as often: "… printed on the
# ticket; the crew holds the list.").
_CODE_MARK = re.compile(r"[={}]|^\s*(?:--\s|\[|;)")
_OPTION_LINE = re.compile(r"\s*--?\w")


def _reads_as_code(line: str) -> bool:
    """A line with a mark of code (_CODE_MARK), unless it opens with an option: a man
    page's "-e script, --expression=script" is its body's term (sed(1)'s options stopped
    voting and their descriptions became the body: the options read as code runs)."""
    return bool(_CODE_MARK.search(line)) and not _OPTION_LINE.match(line)


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """(kind, lines) runs: "fence" for fenced code, "deep" for lines indented past the
    body, "text" for the rest; blank lines separate runs of text."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    in_fence = _fenced(lines)
    body = _body_indent([line for line, f in zip(lines, in_fence, strict=True) if f == ""])
    blocks: list[tuple[str, list[str]]] = []
    kind = ""
    current: list[str] = []
    after_blank = True  # indented code starts after a blank line; else it continues a line

    def flush() -> None:
        nonlocal current
        if any(line.strip() for line in current):
            blocks.append((kind, current))
        current = []

    for line, fenced_line in zip(lines, in_fence, strict=True):
        if fenced_line in ("open", "close"):
            flush()
            kind = "fence" if fenced_line == "open" else ""
            continue
        if fenced_line:
            current.append(line)
            continue
        if not line.strip():
            if kind != "deep":  # a blank line inside an indented code block keeps it whole
                flush()
            else:
                current.append(line)
            after_blank = True
            continue
        deep = _indent(line) > body and not _LIST_MARKER.match(line)
        line_kind = "deep" if deep and (after_blank or kind == "deep") else "text"
        if _first_line_indented(kind, line_kind, after_blank, current):
            # A paragraph whose first line is indented (licence texts): that line leaves
            # the indented block and starts the paragraph.
            first = current.pop()
            flush()
            kind = "text"
            current = [first]
        after_blank = False
        if line_kind != kind or (kind == "text" and _starts_new_unit(line, current)):
            flush()
            kind = line_kind
        current.append(line)
    flush()
    return blocks


def _first_line_indented(kind: str, line_kind: str, after_blank: bool, current: list[str]) -> bool:
    """The line before this body line, alone after a blank, was indented deeper."""
    if kind != "deep" or line_kind != "text" or after_blank:
        return False
    return len(current) == 1 or not current[-2].strip()


def _fenced(lines: list[str]) -> list[str]:
    """Each line's place: "open" or "close" (a fence's own lines), "code" (inside one) or
    "" (outside). The chunker's rule (chunking.Fences): only a bare run of the same
    character, as long or longer, closes a fence. A fence line at any indentation counts:
    a chunk's text may start inside a list item whose marker it does not hold."""
    out = []
    fences = Fences(anywhere=True)
    for line in lines:
        was_open = bool(fences.run)
        if not fences.feed(line):
            out.append("")
        elif not was_open or fences.left:  # a fence after one its list item left open
            out.append("open")
        else:
            out.append("code" if fences.run else "close")
    return out


def _starts_new_unit(line: str, current: list[str]) -> bool:
    return bool(current) and bool(_LIST_MARKER.match(line)) and not _is_table(current)


def _is_table(lines: list[str]) -> bool:
    return len(lines) >= 2 and bool(_TABLE_SEPARATOR.match(lines[1]))


def strip_links(text: str) -> str:
    text = _MD_IMAGE.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _RST_ROLE.sub(lambda m: m.group(1).rstrip(), text)
    text = _RST_SUBSTITUTION.sub(" ", text)
    return _URL.sub(" ", text)


def word_count(text: str) -> int:
    return len(_WORD.findall(strip_links(text)))


_FAQ_QUESTION = re.compile(r"^\W*Q\s*[:.]\s")  # "Q: I have many .tar.7z files."


def is_question(sentence: str) -> bool:
    return sentence.rstrip(" \"'”’)*_").endswith("?") or bool(_FAQ_QUESTION.match(sentence))


_OPTION_TERM = re.compile(r"^\s*[-+~]")  # "-n, --quiet, --silent", "~.", "+N"
SYMBOL_TERM_CHARS = 24


def defines_a_symbol(line: str) -> bool:
    """A line "TERM: meaning" whose term is a symbol — one short run without a blank that
    holds a character other than a letter or digit: gedit's escape sequences "\\n:
    Newline", "\\t: Tab" (a Mallard `terms` list, written "term: text" by the reader),
    "%h: the host name". However few its words, it is a definition, not a title: both
    rules dropped gedit's three escapes, and "how do I match a tab?" was answered with
    the lead-in announcing them."""
    term, colon, meaning = line.strip().partition(": ")
    return (
        bool(colon and meaning.strip())
        and 0 < len(term) <= SYMBOL_TERM_CHARS
        and not any(c.isspace() for c in term)
        and not term.replace("_", "").isalnum()
    )


def looks_like_title(line: str) -> bool:
    """A lone short line with no full stop ("Dependencies", "* Installation", "Usage"), or
    a numbered line in Title Case ("3. Protecting Users' Legal Rights From
    Anti-Circumvention Law.")."""
    bare = _LIST_MARKER.sub("", line).strip(" *_#:")
    if _CAPTION.match(bare):
        return True
    if not bare or _OPTION_TERM.match(bare) or defines_a_symbol(bare):
        return False
    return _short_title(bare) or _title_case(bare)


# A caption alone on its line ("Example 10.6.", "Table 3.1", "Example 10.6. The
# /etc/pptpd.conf file"): the title of the listing or table after it, though a full stop
# follows its number. A title after the number ends in no full stop ("Example 3 shows …"
# is a sentence). Only matched at a line's start; every repeat bounded: linear.
_CAPTION = re.compile(
    r"(?:Example|Table|Figure|Listing)\s{1,3}\d{1,4}(?:\.\d{1,4}){0,4}"
    r"(?:\.?|\.\s{1,3}[^\n]{0,120}[^.!?\s])$"
)


def _short_title(bare: str) -> bool:
    return (
        word_count(bare) <= HEADING_WORDS
        and not bare.endswith((".", "!", "?", ";", ","))
        and not any(c in bare for c in "=`()/$0123456789")
        and _COMMAND_SIGN.search(bare) is None
    )


# An option after a word ("dpkg --search", "tar -x") or a placeholder ("<filename>"): a
# command line written as a paragraph, which no title holds. The ITIL manual's "Find
# which package a file came from" says its answer as the lone line `dpkg --search
# <filename>`, read as a title and never quoted (newuser56). Linear: no nested repeat.
_COMMAND_SIGN = re.compile(r"\s--?[A-Za-z]|<[A-Za-z][\w.-]*>")


def _title_case(bare: str) -> bool:
    """Most longer words capitalised, as a section title is and a sentence is not."""
    words = [w for w in _WORD.findall(bare) if len(w) >= 4]
    capitalised = sum(w[0].isupper() for w in words)
    return 2 <= len(words) <= TITLE_WORDS and capitalised >= 0.8 * len(words)


def unwrap(lines: list[str]) -> str:
    """Hard-wrapped lines → one line; a word hyphen-split across lines stays split; a line's
    escaped `#` or fence (`\\#include <json/value.h>`: the readers' Markdown writer escapes
    them so a paragraph is not read as a heading or code) as the page shows it. JsonCpp's
    Doxygen reference has 109 such lines in 38 chunks (attack56)."""
    return " ".join(
        unescape_line(_QUOTE_MARKER.sub("", line)).strip() for line in lines if line.strip()
    )


def sentences(paragraph: str) -> list[str]:
    parts = [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]
    # "e.g." and "i.e." never end a sentence: "… limit the bandwidth to e.g. 800Kib/sec …"
    # was cut in two, and its lead-in quoted after its own second half.
    # Only each part's last characters are read, and a sentence's parts joined once: a
    # paragraph of many "e.g." costs time linear in its length. "E.g." may open it.
    groups: list[list[str]] = []
    for part in parts:
        if groups and f" {groups[-1][-1][-5:]}".lower().endswith(_ABBREVIATIONS):
            groups[-1].append(part)
        else:
            groups.append([part])
    return [" ".join(group) for group in groups]


_ABBREVIATIONS = (" e.g.", " i.e.", "(e.g.", "(i.e.")


# A definition's term and what separates it from its definition, as the readers write one
# item: the man and Info readers "- PrivateTmp= — Takes a boolean argument.", Markdown
# "- Storage: Controls where …", the reST and HTML readers a definition or field list's
# paragraph "timeout: The number of seconds …". A term is short and is no sentence; before
# a colon, a few words, since a colon after a long clause introduces, it does not define.
TERM_CHARS = 100
COLON_TERM_WORDS = 4
_TERM_SEPARATORS = {"item": (" — ", ": "), "prose": (": ",)}
# In a paragraph, a capitalised word before a colon is mostly a label or a title run into
# the text ("Q: …", "NOTE: …", "Kestrel Sound Ferries: … January was the worst month …"
# on the eval replay), so there the term must read as a name: lower case or a digit first
# ("bin:", "param timeout:", "100-999:"), or a sign of code in it ("Storage=", "max_age").
_NAME_LIKE = re.compile(r"^[a-z0-9`]|[=_`.]")


def definition_term(paragraph: str, kind: str) -> str:
    """The term opening a long definition item with its separator ("PrivateTmp= —",
    "Storage:"), or "" when the paragraph opens with none. Its later sentences are quoted
    one by one, and "If true, sets up a new file system namespace …" alone never said it was
    about `PrivateTmp=`: the term is what the question asked for."""
    head = paragraph[: TERM_CHARS + 3]  # only the opening is read: bounded, whatever follows
    found = [(head.find(sep), sep) for sep in _TERM_SEPARATORS.get(kind, ())]
    found = [(at, sep) for at, sep in found if 0 < at <= TERM_CHARS]
    if not found:
        return ""
    at, separator = min(found)
    term = paragraph[:at].strip()
    if not term or _SENTENCE_END.search(term) or term.endswith((".", "!", "?", ":", ",")):
        return ""
    if separator == ": " and len(term.split()) > COLON_TERM_WORDS:
        return ""
    if kind == "prose" and not _NAME_LIKE.search(term):
        return ""
    return term + separator.rstrip()


_ITEM_ENDS = (".", "!", "?", ";", ":", ")")  # how an item run into the next one ends


def _item_inside(sentence: str) -> str | None:
    """The term of a list item run into the sentence, as a reader writes items it did not
    part ("… is silently capped to 15. - timeout:n — Sets the amount of time …"): the last
    such item's term, "" when it opens with none, None when the sentence holds no such
    join. A spaced dash inside a sentence ("the deck crew - two sailors at least - must
    stay …") is an aside, not a join: a join follows a finished sentence or opens a term
    of its own."""
    found = None
    at = sentence.find(" - ")
    while at >= 0:
        # Both reads are bounded, so many dashes in one sentence stay linear.
        term = definition_term(sentence[at + 3 : at + TERM_CHARS + 6], "item")
        if term or sentence[max(0, at - 3) : at].rstrip().endswith(_ITEM_ENDS):
            found = term
        at = sentence.find(" - ", at + 3)
    return found


def names_term(sentence: str, term: str) -> bool:
    """The sentence already names the term, or one of the names it lists ("HandleLidSwitch=
    defaults to …" of "HandlePowerKey=, …, HandleLidSwitch= —"): nothing to add."""
    names = term.rstrip(" —:").split(", ")
    return any(name.strip() and name.strip() in sentence for name in names)


def _dedent(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    width = min((_indent(line) for line in lines if line.strip()), default=0)
    return [line.expandtabs(8)[width:].rstrip() for line in lines]


def _code_units(lines: list[str], lead: str, context: str, fenced: bool = False) -> list[Unit]:
    """A short fenced code block is one unit; a longer one, or an indented block, is
    quoted in runs of lines."""
    code = _dedent(lines)
    runs = [code] if fenced and _short_block(code) else _closers_kept_with_code(_code_runs(code))
    units: list[Unit] = []
    for run in runs:
        text = "\n".join(line for line in run if line.strip())
        if not text.strip() or (word_count(text) == 0 and not (lead and _URL.search(text))):
            continue
        if _only_closes(run):  # a block that is a lone `end` says nothing (a chunk's tail)
            continue
        text = text[:MAX_UNIT_CHARS]
        led_in = bool(lead) and run is runs[0]
        quoted = f"{lead}\n{text}" if led_in else text
        flagged = addresses_a_model(text)
        units.append(Unit(quoted, "code", context, flagged, led_in=led_in, later_run=bool(units)))
    return units


# A line that only closes what lines before it opened: `end`, `fi`, `esac`, `done`, `}`, `)`,
# `end)`, `};` — one keyword at a time, each followed by punctuation only (linear).
_CLOSER = re.compile(r"^[^\w\n]*(?:(?:end|fi|esac|done|endif|endfunction)\b[^\w\n]*)*$")


def _only_closes(run: list[str]) -> bool:
    return all(_CLOSER.match(line) for line in run)


def _closers_kept_with_code(runs: list[list[str]]) -> list[list[str]]:
    """Runs, a run that only closes (_only_closes) joined to the run before it: Penlight's
    `path.splitpath` was cut into runs of six lines whose last was its function's `end`,
    quoted alone as `"end"` (newuser43)."""
    out: list[list[str]] = []
    for run in runs:
        if out and _only_closes(run):
            out[-1].extend(run)  # in place: a file of many closers in a row stays linear
        else:
            out.append(list(run))
    return out


def _short_block(code: list[str]) -> bool:
    """At most SHORT_BLOCK_LINES non-blank lines and SHORT_BLOCK_CHARS characters."""
    filled = [line for line in code if line.strip()]
    size = sum(len(line) + 1 for line in filled)
    return len(filled) <= SHORT_BLOCK_LINES and size <= SHORT_BLOCK_CHARS


def _code_runs(code: list[str]) -> list[list[str]]:
    """Runs of at most MAX_CODE_LINES lines; a comment or a line ending in a colon that
    would end a run moves to the next, so "# Seconds between manifest uploads" stays with
    the setting it describes and ":param dayfirst:" with its description (a colon line
    across blank lines too: "Usage::" with its example); a prompt line stays with the
    output it prints; a run that would stop inside a list runs on to its end (_list_end),
    one that would stop inside a bracket runs on to where it closes (_bracket_end), one
    that would stop inside a docstring field leaves the field whole to the next run
    (_field_end). A comment longer than a run is quoted in whole runs: it cannot wait."""
    runs: list[list[str]] = []
    start = 0
    while start < len(code):
        end = window = min(len(code), start + MAX_CODE_LINES)
        while end < len(code):
            last = end - 1
            while last > start and not code[last].strip():
                last -= 1
            # Across blank lines only a colon still introduces what follows (a docstring's
            # "Usage::" or "**One** ``str``, to parse it::" and its example); a comment
            # a blank line ends is as often the output of the lines above it.
            across = last < end - 1
            if last <= start:
                if _introduces_next(code[start]):
                    # Every line of the window introduces the next: a comment longer than
                    # a run (a Go doc comment, a licence header) is quoted in whole runs;
                    # backed off line by line it was cut into one-line quotes.
                    end = window
                break
            if not across and _awaits_output(code[last], code[end]):
                end = last  # ">>> Q_(25.4, ureg.degC)" goes with what it prints
                continue
            if not _introduces_next(code[last]):
                break
            if across and not code[last].rstrip().endswith(":"):
                break
            end = last
        end = _field_end(code, start, end)
        end = _bracket_end(code, start, _summary_end(code, start, end))
        end = _list_end(code, start, _statement_end(code, start, end))
        runs.append(code[start:end])
        start = end
    return runs


def _statement_end(code: list[str], start: int, end: int) -> int:
    """`end`, moved past the continuation lines ("... else:") of the doctest statement the
    run stops inside, while the run stays within MAX_UNIT_CHARS (beyond that, `end` as it
    was). Cut at six lines, structlog's 13-line `>>> if sys.stderr.isatty():` example was
    quoted without its `... else:` branch, the one that answers "how do I get JSON
    instead" (newuser15's folder, replayed)."""
    if end >= len(code) or not _CONTINUATION.match(code[end]):
        return end
    if not any(_PROMPT_START.match(line) for line in code[start:end]):
        return end
    size = sum(len(line) + 1 for line in code[start:end])
    for i in range(end, len(code)):
        if not _CONTINUATION.match(code[i]):
            return i
        size += len(code[i]) + 1
        if size > MAX_UNIT_CHARS:
            return end
    return len(code)


def _list_end(code: list[str], start: int, end: int) -> int:
    """`end`, moved past the rest of a list the run stops inside (a docstring's
    "Supported date formats are:" and its items), up to twice a run's length."""
    limit = min(len(code), start + 2 * MAX_CODE_LINES)
    last = end - 1
    while last > start and not code[last].strip():
        last -= 1
    if not (_LIST_MARKER.match(code[last]) or code[last].rstrip().endswith(":")):
        return end
    while end < limit and (not code[end].strip() or _LIST_MARKER.match(code[end])):
        end += 1
    while end > start + 1 and not code[end - 1].strip():
        end -= 1
    return end


_OPENS, _CLOSES = "([{", ")]}"
_LINE_COMMENT = ("#", "//")


def _bracket_depth(line: str) -> int:
    """How many more brackets `line` opens than it closes, outside its quoted strings and
    a trailing `#` or `//` comment (one pass over the line; a string never runs on to the
    next line here, so an apostrophe in a comment or prose cannot hide a later line)."""
    depth = 0
    quote = ""
    i = 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1  # the escaped character cannot close the string
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif line.startswith(_LINE_COMMENT, i):
            break
        elif char in _OPENS:
            depth += 1
        elif char in _CLOSES:
            depth -= 1
        i += 1
    return depth


def _bracket_end(code: list[str], start: int, end: int) -> int:
    """`end`, moved on to the line that closes the brackets the run leaves open, up to
    twice a run's length (beyond that, or if they never close, `end` as it was). Cut at six
    lines, a call written one argument a line ("fit = ExponentialSmoothing(", "aust,", …,
    'initialization_method="estimated",') was quoted without its closing ").fit()", and the
    next quote opened in the middle of the expression (newuser55's notebooks)."""
    if end >= len(code):
        return end
    depth = sum(_bracket_depth(line) for line in code[start:end])
    if depth <= 0:
        return end
    limit = min(len(code), start + 2 * MAX_CODE_LINES)
    for i in range(end, limit):
        depth += _bracket_depth(code[i])
        if depth <= 0:
            return i + 1
    return end


# A docstring's field: ":param max_retries: The maximum …", ":type timeout: float",
# ":raises ValueError:" (Sphinx). Its description runs on in lines indented under it.
_FIELD = re.compile(r"[^\S\n]*:[A-Za-z_][^:\n]{0,100}:(?:\s|$)")


def _field_end(code: list[str], start: int, end: int) -> int:
    """`end`, moved so that a docstring field the run would stop inside is quoted from its
    name: back to the field's own line when the run holds lines before it (the field opens
    the next run), else on to the field's last line, up to twice a run's length. Cut at a
    fixed length, ":param max_retries: The maximum number of retries …" went to one run
    and "… import urllib3's ``Retry`` class and pass that instead." to the next, whose
    "that" then had no subject."""
    if end >= len(code) or not code[end].strip() or _FIELD.match(code[end]):
        return end
    field = end - 1
    while field >= start and code[field].strip() and not _FIELD.match(code[field]):
        field -= 1
    if field < start or not _FIELD.match(code[field]):
        return end
    width = _indent(code[field])
    if any(_indent(line) <= width for line in code[field + 1 : end + 1]):
        return end  # the lines after the field are not its description
    if field > start:
        return field
    limit = min(len(code), start + 2 * MAX_CODE_LINES)
    while end < limit and code[end].strip() and _indent(code[end]) > width:
        end += 1
    return end


_DEF_LINE = re.compile(r"\s*(?:async\s+)?(?:def|class)\s")
_DOCSTRING_OPEN = re.compile(r"\s*[rRuUbB]?(?:\"\"\"|\'\'\')")


def _summary_end(code: list[str], start: int, end: int) -> int:
    """`end`, moved on to the end of the first paragraph of the docstring of a definition
    the run opens with, up to twice a run's length: a signature written one parameter a
    line ("def is_between(", "self,", … ") -> bool:") would otherwise fill the run, and
    the sentence saying what the function does would go to the next one."""
    limit = min(len(code), start + 2 * MAX_CODE_LINES)
    first = start
    while first < end and (not code[first].strip() or code[first].lstrip().startswith("@")):
        first += 1  # blank lines and decorators before the `def`
    if first >= end or not _DEF_LINE.match(code[first]):
        return end
    # The docstring is the first line after the signature (which ends at a colon).
    header = first
    while header < limit and not code[header].rstrip().endswith(":"):
        header += 1
    opened = header + 1
    if opened >= limit or not _DOCSTRING_OPEN.match(code[opened]):
        return end
    quotes = code[opened].lstrip().lstrip("rRuUbB")[:3]
    if quotes in code[opened].lstrip().lstrip("rRuUbB")[3:]:
        return max(end, opened + 1)  # a one-line docstring
    for i in range(opened + 1, limit):
        if not code[i].strip():
            return max(end, i)  # its first paragraph ends here
        if quotes in code[i]:
            return max(end, i + 1)
    return end


_PROMPT = re.compile(r"\s*(?:>>>|\.\.\.|\$)(?:\s|$)")  # a doctest's or a shell's input line
_PROMPT_START = re.compile(r"\s*>>>(?:\s|$)")  # a doctest statement's first line
_CONTINUATION = re.compile(r"\s*\.\.\.(?:\s|$)")  # … and each line continuing it


def _awaits_output(line: str, after: str) -> bool:
    """A prompt line (">>> Q_(25.4, ureg.degC)", "$ make") whose output is the next line: cut
    between them, the output would be quoted without what printed it."""
    return bool(_PROMPT.match(line)) and bool(after.strip()) and not _PROMPT.match(after)


def _introduces_next(line: str) -> bool:
    """A comment, a line ending in a colon (":param dayfirst:", "def parse(s):") or one
    that opens a bracket ("CREATE TABLE arc (", "CASES = ["): it belongs with the lines
    after it."""
    bare = line.strip()
    return bare.startswith(("#", "//", "--", ";", "/*", "*")) or bare.endswith((":", "(", "[", "{"))


def _table_units(lines: list[str], context: str) -> list[Unit]:
    header = lines[0].strip()
    units = []
    for row in lines[2:]:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if any(cells):
            units.append(Unit(f"{header}\n{row.strip()}", "row", context, addresses_a_model(row)))
    return units


# A "term  description" layout written as text, aligned in two columns: a syntax table in
# a <pre> block ("x*?       zero or more of x (ungreedy/lazy)"), a README's list of files
# ("COPYING             XZ Utils copyright and license information"), a program's help
# ("-batch               force batch I/O"). Read as one paragraph or one code block, its
# lines ran together and the one line answering a question was never a unit of its own.
ALIGNED_MIN_ROWS = 3  # fewer lines are not a layout: two could line up by chance
ALIGNED_SHARE = 0.6  # of the rows, those whose description starts at the shared column
ALIGNED_TERM_CHARS = 40
# A line that is one HTML tag (`<pre class="rust">`, `</pre>`): markup around the layout.
_LONE_TAG = re.compile(r"^\s*</?[A-Za-z][\w-]{0,20}(?:\s[^<>\n]{0,200})?>\s*$")
_DESCRIBES = re.compile(r"[^\W\d_]{2}")  # a description holds a word, not only "(1)" or "4.3"
_COMMENT_START = ("#", "//", "/*", "--", ";", "(*")


def _split_row(line: str) -> tuple[int, int] | None:
    """(the term's indent, the description's column) of `line` when it reads as a term, a
    gap of two blanks or more, and a description in words; None otherwise. A prompt's
    line ("$ make   # builds the app") and a code comment after a gap are code."""
    indent = _indent(line)
    bare = line.strip()
    gap = bare.find("  ")
    if gap <= 0 or gap > ALIGNED_TERM_CHARS or _PROMPT.match(bare):
        return None
    term, description = bare[:gap], bare[gap:].lstrip()
    if description.startswith(_COMMENT_START) or not _DESCRIBES.search(description):
        return None
    words = len(term.split())
    if words > HEADING_WORDS or (words >= SENTENCE_WORDS + 1 and term.endswith(_ITEM_ENDS)):
        return None  # "It docks at nine.  Then …": two blanks after a sentence ("x*?" is a term)
    return indent, indent + len(bare) - len(description)


def aligned_rows(lines: list[str]) -> list[str] | None:
    """The rows of a block laid out as aligned "term  description" lines, each with the
    lines continuing its description (indented to its column) run onto it; None when the
    block is not such a layout. Lone HTML tags (`<pre>`, `</pre>`) are not lines of it.
    Every line must be a row at the block's indent or a continuation, and most rows'
    descriptions must start at one column."""
    lines = [line.expandtabs(8) for line in lines if line.strip() and not _LONE_TAG.match(line)]
    split = [_split_row(line) for line in lines]
    columns = Counter(found[1] for found in split if found is not None)
    if not columns:
        return None
    column, shared = columns.most_common(1)[0]
    indent = min(_indent(line) for line in lines)
    rows: list[list[str]] = []
    for line, found in zip(lines, split, strict=True):
        if rows and _indent(line) >= column:
            rows[-1].append(line.strip())  # a description continued under its column
        elif found is not None and found[0] == indent:
            rows.append([line.strip()])
        else:
            return None
    if len(rows) < ALIGNED_MIN_ROWS or shared < ALIGNED_SHARE * len(rows):
        return None
    return [" ".join(row) for row in rows]


# An underline or overline of a title: a run of one of these (not `"""` or `...`, which
# _RULE also matches and which close a docstring or stand for elided code).
_UNDERLINE = re.compile(r"^\s*([=\-~^*+#])\1{2,}\s*$")


def _indented_title(lines: list[str]) -> str:
    """The title, when an indented block is only a title: a centred setext heading
    ("Simon Tatham's Portable Puzzle Collection" over its `====`, the sgt-puzzles manual)
    or a lone centred line in Title Case ("TERMS AND CONDITIONS", a licence's). Indented
    past the body, it was read as code and quoted first for "How do I take back a move in
    Simon Tatham's puzzles?" (keyless45). A line with a sign of code stays code; "" for
    any other block."""
    filled = [line.strip() for line in lines if line.strip()]
    underlined = len(filled) >= 2 and bool(_UNDERLINE.match(filled[-1]))
    if underlined:
        filled = filled[:-1]
        if len(filled) == 2 and _UNDERLINE.match(filled[0]):
            filled = filled[1:]  # an RST overline
    if len(filled) != 1 or _CODE_SIGNS.search(filled[0]) or _PROMPT.match(filled[0]):
        return ""
    if underlined and word_count(filled[0]) > 0:
        return filled[0]
    return filled[0] if _title_case(filled[0]) else ""


def _aligned_units(rows: list[str], context: str) -> list[Unit]:
    return [Unit(row, "row", context, addresses_a_model(row)) for row in rows]


class _Reader:
    """Walks a chunk's blocks, keeping the current context (heading or question)."""

    def __init__(self, heading: str) -> None:
        self.context = heading.rsplit(" > ", 1)[-1] if heading else ""
        self.units: list[Unit] = []
        self.paragraphs = 0

    def text_block(self, lines: list[str], introduced: bool = False, listed: bool = False) -> None:
        """`introduced`: the block before this one ends in a colon ("… is read from:").
        `listed`: the block is an item of a list a lead-in introduces (listed_items)."""
        lines = _quotable_lines(lines)
        while lines:
            if _MD_HEADING.match(lines[0]):
                self.context = lines[0].strip().lstrip("#").strip()
                lines = lines[1:]
            elif len(lines) >= 2 and _RULE.match(lines[1]) and not _is_table(lines):
                self.context = lines[0].strip()  # setext / RST title and its underline
                lines = lines[2:]
            elif _RULE.match(lines[0]):
                lines = lines[1:]  # an overline or a horizontal rule
            else:
                break
        if not lines:
            return
        if _is_table(lines):
            self.units.extend(_table_units(lines, self.context))
            return
        rows = aligned_rows(lines)
        if rows:
            self.units.extend(_aligned_units(rows, self.context))
            return
        lone = len(lines) == 1 and not lines[0].rstrip().endswith(":")
        # A lone name in backticks under a lead-in is what the lead-in names ("The config
        # file is read from:" / "`~/.config/ragd/config.toml`"), not a title.
        if (
            lone
            and not listed
            and (looks_like_title(lines[0]) or (_LONE_NAME.match(lines[0]) and not introduced))
        ):
            self.context = _LIST_MARKER.sub("", lines[0]).strip(" *_#")
            return
        kind = "item" if _LIST_MARKER.match(lines[0]) else "prose"
        paragraph = _LIST_MARKER.sub("", unwrap(lines), count=1)
        numbered = bool(_NUMBER_MARKER.match(lines[0]))
        self.paragraph(paragraph, kind, _signed_quotation(lines), listed, numbered)

    def paragraph(
        self,
        paragraph: str,
        kind: str,
        attributed: bool = False,
        listed: bool = False,
        numbered: bool = False,
    ) -> None:
        if _FAQ_QUESTION.match(paragraph):
            # A FAQ's question, every sentence of it ("Q:  I need to use a script that runs
            # "xz -9". On a system with 256 MiB of RAM, xz says that it cannot allocate
            # memory. Can I make the script work without modifying it?"): the reader's
            # situation, not the answer. Quoted, its middle sentence restated the user's
            # question and crowded out the "A:" paragraph's XZ_DEFAULTS.
            self.context = paragraph
            return
        parts = sentences(paragraph)
        questions = [p for p in parts if is_question(p)]
        flagged = addresses_a_model(paragraph)
        whole = len(paragraph) <= MAX_PARAGRAPH_CHARS and not questions and not flagged
        self.paragraphs += 1
        group = -1 if whole else self.paragraphs
        term = "" if whole else definition_term(paragraph, kind)
        for number, part in enumerate([paragraph] if whole else parts):
            if is_question(part):
                self.context = part  # a FAQ question: context for its answer, never quoted
                continue
            if not (long_enough(part) or (listed and word_count(part)) or _bare_lead(part)):
                continue
            text = part if len(part) <= MAX_UNIT_CHARS else _cut(part)
            flagged = addresses_a_model(part)
            carried = term if number and not names_term(part, term) else ""
            inside = _item_inside(part)
            if inside is not None:
                # Another item run into this one ("… capped to 15. - timeout:n — Sets
                # …"): what follows is that item's, under its own term or none.
                carried, term = "", inside
            self.units.append(
                Unit(
                    text,
                    kind,
                    self.context,
                    flagged,
                    group,
                    attributed=attributed,
                    listed=listed,
                    term=carried,
                    numbered=numbered,
                )
            )

    def nests(self, lines: list[str], indent: int) -> bool:
        """Joins a sub-item (indented past the item above it) to that item when that item
        introduces it ("2. For each attribute, in the order it was declared:" / "   1.
        default factory"): the sub-items are the item's own content, and the list around
        it keeps its length. `indent`: the item above's own indent."""
        previous = self.units[-1] if self.units else None
        if previous is None or previous.kind != "item" or not previous.listed:
            return False
        if _indent(lines[0]) <= indent:
            return False
        if not previous.nested and not leads_in(previous.text):
            return False
        text = f"{previous.text}\n{unwrap(lines).strip()}"
        if len(text) > MAX_UNIT_CHARS:
            return False
        self.units[-1] = replace(previous, text=text, nested=True)
        return True

    def holds_code(self, lines: list[str]) -> bool:
        """Joins code to the listed item announcing it (listed_items), when it fits in
        one unit: the item's sub-items after it then join the item too (`nests`)."""
        previous = self.units[-1] if self.units else None
        if previous is None or previous.kind != "item" or not previous.listed:
            return False
        code = "\n".join(line.rstrip() for line in _dedent(lines) if line.strip())
        text = f"{previous.text}\n{code}"
        if not code or len(text) > MAX_UNIT_CHARS:
            return False
        self.units[-1] = replace(previous, text=text, nested=True)
        return True

    def definition(self, term: str, lines: list[str], joiner: str = "\n") -> None:
        """A definition list item: its term and each of its definitions (": …", with
        their continuation lines) as one item, so a lead-in's "receives three positional
        arguments:" is followed by "**logger**" and what it is, not by a bare ": …".
        `joiner` goes between the term and the first definition."""
        parts: list[list[str]] = []
        for line in _quotable_lines(lines):
            if _DEFINITION_MARK.match(line) or not parts:
                parts.append([])
            parts[-1].append(line)
        said = [unwrap(part) for part in parts]
        text = "\n".join(
            [f"{term.strip()}{joiner}{said[0]}", *said[1:]] if term.strip() and said else said
        )
        if not said or not long_enough(text):
            return
        if len(text) > MAX_UNIT_CHARS:
            text = _cut(text)
        self.units.append(Unit(text, "item", self.context, addresses_a_model(text)))

    def indented_block(self, lines: list[str]) -> None:
        previous = self.units[-1] if self.units else None
        # What a lead-in announces is its content, however it is cased ("… delimited by
        # any amount of whitespace:" / "OLDNAME NEWNAME[:NEWID]").
        announced = previous is not None and leads_in(previous.text)
        title = "" if announced else _indented_title(lines)
        rows = aligned_rows(lines)
        if title:
            self.context = title
        elif rows:  # a README's indented list of files, a man page's options in two columns
            self.units.extend(_aligned_units(rows, self.context))
        elif (
            previous is not None
            and _OPTION_TERM.match(previous.text)
            and "\n" not in previous.text
            and not previous.text.endswith((".", "!", "?"))
            and not any(_CODE_SIGNS.search(line) for line in lines)
        ):
            # A man page's option and, indented under it, its description: one unit.
            described = f"{previous.text} {unwrap(lines)}"
            self.units[-1] = Unit(described, "item", previous.context, addresses_a_model(described))
        elif _reads_as_prose(lines):
            for paragraph in _paragraphs(lines):
                self.text_block(paragraph)
        else:
            self.mixed_block(lines)

    def mixed_block(self, lines: list[str]) -> None:
        """An indented block that is not all prose: each paragraph that reads as sentences
        (`_sentences_in_code`) is prose, each run of the others is code, in their order.
        lynx indents a page's prose, so one block can hold "… reportbug --file $(which
        grep)" and, a blank line on, "… by using dpkg" / "--search. You can …": judged
        whole, the command made both code and the second was cut before its option.
        Only a paragraph ending as a sentence does (or a capitalised lead-in) is taken
        out of the code, so a call (`print(name, value, …)`) between a block's
        statements stays with them."""
        code: list[str] = []
        for paragraph in _paragraphs_kept_apart(lines):
            if _sentences_in_code(paragraph):
                if code:
                    self.code_block(code)
                    code = []
                self.text_block(paragraph)
            else:
                code.extend(paragraph)
        if code:
            self.code_block(code)

    def code_block(self, lines: list[str], fenced: bool = False) -> None:
        previous = self.units[-1] if self.units else None
        announced = previous is not None and leads_in(previous.text)
        if not any(
            _announced_content(line) if announced else _is_code_content(line) for line in lines
        ):
            return  # a comment banner; a bare URL unless announced ("the web page is:")
        lead = ""
        if previous and previous.kind in ("prose", "item") and _introduces(previous.text):
            # "To build a static jq, run:" + the command; only the paragraph's last sentence
            # leads in, the sentences before it stay a unit of their own (but a bare "For
            # example:" takes the ones that say what it exemplifies).
            *before, lead = sentences(self.units.pop().text) or [""]
            if not before and _bare_lead(lead) and self._exemplified(previous):
                # "Example:" a paragraph of its own: what it exemplifies is the paragraph
                # before it, under the same heading.
                previous = self.units.pop()
                before = sentences(previous.text)
            lead = _with_what_it_exemplifies(before, lead)
            if before:
                self.units.append(
                    Unit(" ".join(before), previous.kind, previous.context, previous.instruction)
                )
        self.units.extend(_code_units(lines, lead, self.context, fenced))

    def _exemplified(self, lead: Unit) -> bool:
        """The unit before a bare lead-in (`lead`) is a whole paragraph of prose under the
        same heading, which the example after the lead-in shows."""
        if not self.units:
            return False
        before = self.units[-1]
        return (
            before.kind == "prose"
            and before.sentence_of < 0
            and before.context == lead.context
            and not before.instruction
            and not _bare_lead(before.text)
        )


# A MyST / Pandoc definition list's definition: ": Your wrapped logger object." under the
# term's own line ("**logger**"). The colon and one blank at least, so a field list's
# ":param x:" is not one.
_DEFINITION_MARK = re.compile(r"^\s{0,3}:[^\S\n]+\S")


def _definition_term(
    kind: str, lines: list[str], following: list[tuple[str, list[str]]]
) -> str | None:
    """The term of a definition list item when this block is its lone term line and the
    next block its definition ("**logger**" / ": Your wrapped logger object."): read
    apart, the term became a title and the definition a paragraph about nothing."""
    if kind != "text" or len(lines) != 1 or not following or following[0][0] != "text":
        return None
    return lines[0] if _is_term_line(lines[0], following[0][1][0]) else None


# A term alone on its line over its description indented under it, no blank between
# (lynx's rendering of HTML's <dl>: doc-debian's "   critical" / "          makes unrelated
# software on the system …"): one item, term first, as a man page's option is.
TERM_MAX_WORDS = 4
# Words a name rarely holds and a sentence's opening nearly always does ("All members" /
# "of the committee are …", "The levels are these" / "as follows.").
_SENTENCE_WORDS = frozenset(
    "a all an and are as be by for if in is it of on or that the these this those to was "
    "were when with".split()
)
DESCRIPTION_INDENT = 2


def _term_over_its_description(lines: list[str]) -> bool:
    term = lines[0].strip()
    if len(lines) < 2 or not term or word_count(term) > TERM_MAX_WORDS:
        return False
    if term.endswith((".", "!", "?", ":", ",", ";")) or _LIST_MARKER.match(lines[0]):
        return False
    if _OPTION_TERM.match(term) or _CODE_MARK.search(term):
        return False  # an option's line over its description: read as options are
    if _MD_HEADING.match(lines[0]) or _RULE.match(lines[1]):
        return False
    if not (term[0].isalnum() or term[0] == "_") or term.endswith(("\\", "^")):
        return False  # box drawing, a shell's or cmd.exe's line continued (pip's `… ^`)
    if not any(char.isalnum() for char in term):
        return False  # a rule of underscores (man-db's)
    if "|" in term or "(" in term:
        return False  # a diagram's arrows, code: `if (!png_ptr)` / `return ERROR;`
    if not _SENTENCE_WORDS.isdisjoint(word.lower() for word in _WORD.findall(term)):
        return False  # a sentence's first words, its next line indented deeper
    deeper = _indent(lines[0]) + DESCRIPTION_INDENT
    # Sentences, not columns: a protocol's request over its aligned fields, a key map.
    return all(
        _indent(line) >= deeper and "\t" not in line and "   " not in line.strip()
        for line in lines[1:]
        if line.strip()
    )


def _is_term_line(line: str, after: str) -> bool:
    """`line` is a definition's term: `after` opens the definition, and `line` is neither
    a definition itself nor a heading or an underline."""
    if not _DEFINITION_MARK.match(after) or _DEFINITION_MARK.match(line):
        return False
    return not (_MD_HEADING.match(line) or _RULE.match(line) or _LIST_MARKER.match(line))


# A line that is one name in backticks and nothing else: an API reference's entry
# ("`add_log_level_number`", an autodoc directive as the reader shows it) is the title
# of what follows it, and says nothing by itself.
_LONE_NAME = re.compile(r"^\s*`{1,2}[^`\s]+`{1,2}\s*$")


# The signature under a quotation: "> —Paul Querna", "> -- Alan Kay", "― <cite>…</cite>".
# A "--" right before a small letter is an option ("> --data-dir /srv/ragd" ending a
# quoted note), not a signature.
_ATTRIBUTION = re.compile(r"^\s*>[^\S\n]*(?:[—―–][^\S\n]*\S|--(?:[^\S\n]+\S|[^\s\-a-z]))")


def _signed_quotation(lines: list[str]) -> bool:
    """A block quote ending in its author's name (an epigraph): another's words, which
    set the scene for a section and rarely say what the section itself answers."""
    return (
        len(lines) >= 2
        and all(_QUOTE_MARKER.match(line) for line in lines)
        and bool(_ATTRIBUTION.match(lines[-1]))
    )


def _quotable_lines(lines: list[str]) -> list[str]:
    """The block's lines without link targets, page links, directives and lines of links
    alone, except a link or address that ends a sentence ("… can be reached via" /
    "<xz@example.org>."): there it is the answer."""
    kept: list[str] = []
    for line in lines:
        if _LINK_TARGET.match(line) or _NAVIGATION.match(line) or _RST_DIRECTIVE.match(line):
            continue
        if _INCLUDE_POINTER.match(line) or _contents_entry(line) or _MENU_ENTRY.match(line):
            continue
        text = word_count(line) > 0 or _RULE.match(line) or _TABLE_SEPARATOR.match(line)
        if text or (kept and _ends_sentence_with_link(kept[-1], line)):
            kept.append(line)
    return kept


# A Texinfo menu's entry as makeinfo's HTML writes it, one table row a node
# ("| • Specifying Options: |"), no description after it: where an answer is, not what
# it is. Rows of such a menu ran together into one paragraph ("| • Specifying Options: |
# | • The Options: | …") and were quoted as an answer (nu61a, aspell's manual). An
# entry with its description ("• Options:: Setting the options.") is kept.
_MENU_ENTRY = re.compile(r"^[^\S\n]*(?:\|[^\S\n]*)?•[^\S\n][^|\n]*:[^\S\n]*(?:\|[^\S\n]*)?$")


# A table of contents' dot leader, as a PDF's text holds it ("11 4.1.9 Selection of lines
# to print . . . . . . . . ."): the entry says where an answer is, never what it is, and
# nu52a's manuals had their contents pages quoted as answers.
DOT_LEADERS = (". . . . .", ".....", "· · · · ·")
# What may follow a leader on its line: the page number (`7`, `2-14`, a preface's `xii`;
# the numerals as a preface numbers its pages, so a word of their letters, "ill", is none).
_PAGE_NUMERAL = re.compile(r"x{0,3}(?:ix|iv|v?i{0,3})", re.IGNORECASE)


def _contents_entry(line: str) -> bool:
    """`line` ends in a dot leader and a page number, or in a leader set off from its
    title by a space (a PDF's line cut before its number). Dots with words after them
    are no leader, nor are dots on a word at a line's end: an ellipsis ("Please wait.....
    the server needs", "copies the files....."), a progress bar ("[.....     ] 50%"),
    whose lines had been dropped from their paragraphs and the sentences around them
    quoted cut."""
    head = line.rstrip()
    last = head.rsplit(None, 1)[-1] if head else ""
    numbered = last.replace("-", "").isdigit() or bool(last and _PAGE_NUMERAL.fullmatch(last))
    if numbered:
        head = head[: -len(last)].rstrip()
    elif head.rstrip("0123456789").endswith(DOT_LEADERS):  # on the leader: "Intro......3"
        head, numbered = head.rstrip("0123456789"), head[-1:].isdigit()
    if not head.endswith(DOT_LEADERS):
        return False
    title = head.rstrip(".· ")
    return numbered or head[len(title) : len(title) + 1] in ("", " ")


def _ends_sentence_with_link(previous: str, line: str) -> bool:
    return _continues(previous) and bool(_URL.search(line)) and not _MD_IMAGE.search(line)


def _continues(line: str) -> bool:
    """The line stops mid-sentence ("… can be reached via")."""
    end = line.rstrip()
    ends = end.endswith((".", "!", "?", ":", ";"))
    return word_count(end) > 0 and not ends and not looks_like_title(end)


def _announced_content(line: str) -> bool:
    """A line a lead-in announces holds something: a URL ("the web page is:"), or words
    even after a "#" — the root prompt of "execute the following command." /
    "# aptitude purge '~c'", which alone reads as a comment."""
    return word_count(line) > 0 or bool(_URL.search(line))


def _is_code_content(line: str) -> bool:
    bare = line.strip()
    return word_count(bare) > 0 and not bare.startswith(("#", "//", "/*", "--", ";"))


def _introduces(text: str) -> bool:
    # "…, run:", "If you want to use `cc' instead, type", "1. Create the dictionary",
    # "If you think listed packages are OK to be purged, execute the following command."
    return not text.rstrip().endswith((".", "!", "?", ")")) or leads_in(text)


# A lead-in of this few words announces an example without saying what it shows:
# "For example:", "Usage:", "For instance:".
BARE_LEAD_WORDS = 2
EXEMPLIFIED_CHARS = 250  # the sentence it borrows; a longer one stays a unit of its own


def _bare_lead(text: str) -> bool:
    """A lead-in that says only that an example follows ("Example:", "For instance:"):
    kept as a unit until the code after it takes it (units_of drops it otherwise)."""
    return text.rstrip().endswith(":") and 0 < word_count(text) <= BARE_LEAD_WORDS


def _with_what_it_exemplifies(before: list[str], lead: str) -> str:
    """`lead`, and, when it says nothing but that an example follows ("For example:"),
    the sentences before it (taken from the end of `before`) that fit in
    EXEMPLIFIED_CHARS, which say what the example shows: "In case the format is omitted,
    the … ``.default_format`` attribute is filled in." A short paragraph goes whole: left
    behind, Markdown's "Sane Lists do not allow the mixing of list types." was no longer
    quoted once "In other words, …" joined the example. A colon is required: "See
    below." is not such a lead-in."""
    if not lead.rstrip().endswith(":") or word_count(lead) > BARE_LEAD_WORDS:
        return lead
    borrowed: list[str] = []
    length = 0  # of the borrowed sentences, each with the space after it
    while before and length + len(before[-1]) + 1 <= EXEMPLIFIED_CHARS:
        length += len(before[-1]) + 1
        borrowed.insert(0, before.pop())
    return " ".join([*borrowed, lead])


def _cut(text: str) -> str:
    return text[:MAX_UNIT_CHARS].rsplit(" ", 1)[0] + " …"


# Code's marks in a line, but for an option: prose about a command names its options.
_CODE_SIGNS_BUT_OPTIONS = re.compile(r"^\s*(?:\$|>>>|#|//)|[={};]")
_OPTION_SIGN = re.compile(r"\s--?[A-Za-z]")
_CODE_SIGNS = re.compile(f"{_CODE_SIGNS_BUT_OPTIONS.pattern}|{_OPTION_SIGN.pattern}")
# A line naming an option reads as a sentence's when it holds this many words: "You can
# also find out which package installed it by using dpkg" / "--search. You can find out
# which version …" (doc-debian's bug-reporting guide, lynx's layout: the prose indented,
# the examples at the margin, so the prose is the chunk's indented block). Read as code,
# it was cut before "--search" and quoted without it. A command line has fewer words, or
# a shell's marks: `gcc -o prog main.c util.c -lm -Wall -O2 $(pkg-config --libs gtk)` has
# eight words and ends as a sentence may, and had been quoted as one. (Counting a
# sentence's words instead lost 202 of the indented commit subjects of /usr/share/doc's
# changelogs, "Make fc-match --sort call FcFontRenderPrepare.", to code.) A make
# variable, `$(LN_S)`, is no shell's mark: xcb's changelog names one in a sentence.
OPTION_IN_PROSE_WORDS = 6
SHELL_MARKS = (" && ", " || ")


def _reads_as_prose(lines: list[str]) -> bool:
    """An indented paragraph of sentences (an FAQ answer, a block quote), not code."""
    text = unwrap(lines)
    return (
        word_count(text) >= 6
        and text.endswith((".", "!", "?", ":", ")"))
        and not any(_CODE_SIGNS_BUT_OPTIONS.search(line) for line in lines)
        and not any(_OPTION_SIGN.search(line) and not _option_in_a_sentence(line) for line in lines)
    )


def _option_in_a_sentence(line: str) -> bool:
    """`line`, which names an option, holds words enough, and none of a shell's marks, to
    be a sentence's line rather than a command's."""
    return (
        word_count(line) >= OPTION_IN_PROSE_WORDS
        and not any(mark in line for mark in SHELL_MARKS)
        and not _substitutes_a_command(line)
    )


def _substitutes_a_command(line: str) -> bool:
    """A shell's `$(nproc)`, `$(pkg-config …)`: `$(` and a lower-case command's name."""
    found = line.find("$(")
    while found >= 0:
        if line[found + 2 : found + 3].islower():
            return True
        found = line.find("$(", found + 2)
    return False


WRAPPED_LINE_WORDS = 5


def _sentences_in_code(paragraph: list[str]) -> bool:
    """A paragraph of a block read as code that is prose all the same: it reads as
    sentences, its lines are a paragraph's wrapped lines (each but the last of a few words
    at least: a list of exit codes, "0 - action allowed", is no paragraph), and it ends
    as a sentence does or opens as one and leads in ("To report a bug in grep, run:";
    `def check(path, mode, strict):` opens in lower case)."""
    text = unwrap(paragraph)
    ends = text.endswith((".", "!", "?")) or (text.endswith(":") and text[:1].isupper())
    # The last line of text, not the blank lines after it, may be short: counted from the
    # blank line, "… kept until the daemon" / "stops." was no paragraph, and only a block's
    # last paragraph, with no blank line after it, was ever taken out of the code.
    filled = [line for line in paragraph if line.strip()]
    wrapped = all(word_count(line) >= WRAPPED_LINE_WORDS for line in filled[:-1])
    # A lone line in Title Case ("Rename XSetCPtr.c to XISetCPtr.c.", "Fixes bug #69476.
    # Reported by Jean Krohn.") the text reader takes for a title: read as text, it was
    # quoted nowhere and became the heading of every unit after it in the chunk.
    titled = len(filled) == 1 and looks_like_title(filled[0])
    return ends and wrapped and not titled and _one_margin(filled) and _reads_as_prose(paragraph)


def _one_margin(lines: list[str]) -> bool:
    """A paragraph's wrapped lines start at one column. Lines hanging under a first one are
    a layout: a compiler's message ("fatal error: … input constraint" / "        with a
    matching output …"), libpng's "allowed: 0: treat png_benign_error() as an error." /
    "         1: treat … as a warning.", which read as one sentence had lost its lines."""
    return len({_indent(line) for line in lines}) <= 1


def _paragraphs_kept_apart(lines: list[str]) -> list[list[str]]:
    """`lines` cut at blank lines, each piece keeping every blank line after it (code's own
    blank lines stay where they were). A piece starts at a line of text after a blank one:
    cut at the first blank line instead, the second of two led the next paragraph, which
    was then no paragraph of wrapped lines, and a run of blank lines was read again at
    each of its lines (a block with 8,000 of them took 2 s)."""
    cut: list[list[str]] = [[]]
    filled = False  # the last piece holds a line of text
    for line in lines:
        if line.strip():
            if filled and not cut[-1][-1].strip():
                cut.append([])
            filled = True
        cut[-1].append(line)
    return cut if filled else []


def _paragraphs(lines: list[str]) -> list[list[str]]:
    """`lines` cut at blank lines, the blank lines left out."""
    return [[line for line in piece if line.strip()] for piece in _paragraphs_kept_apart(lines)]


# The code reader's fences (formats/code.py): an opening one names the language, a closing
# one is bare. No indentation: the reader writes them at column 0.
_BARE_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*$")
_OPENING_FENCE = re.compile(r"^(?:`{3,}|~{3,})[^`~ \t]")


def as_fenced_code(text: str) -> str:
    """A chunk of a source file read as the code it is. The code reader fences all of a
    file's code, and the chunker cuts a definition longer than a chunk into pieces of which
    only the first holds the opening fence and only the last the closing one; read by
    indentation, the pieces between were prose and a field under its comment was quoted
    as one sentence ("// Expected arguments Args PositionalArgs", cobra's Command)."""
    for line in text.split("\n"):
        if bare := _BARE_FENCE.match(line):
            return f"{bare.group(1)}\n{text}"  # the last piece: its fence opened before it
        if _OPENING_FENCE.match(line):
            return text
    return f"```\n{text}\n```"  # a piece between: no fence line of its own


def units_of(text: str, heading: str = "") -> list[Unit]:
    """The quotable units of one chunk, in document order."""
    reader = _Reader(heading)
    blocks = _blocks(text)
    listed = listed_items(blocks)
    item_indent = 0  # the indent of the last item read: a deeper one is its sub-item
    skip = False
    for number, (kind, lines) in enumerate(blocks):
        if skip:
            skip = False
            continue
        term = _definition_term(kind, lines, blocks[number + 1 : number + 2])
        if term is not None:
            reader.definition(term, blocks[number + 1][1])
            skip = True
        elif kind == "text" and _DEFINITION_MARK.match(lines[0]):
            reader.definition("", lines)  # a definition whose term the chunk cut off
        elif kind == "text" and len(lines) >= 2 and _is_term_line(lines[0], lines[1]):
            reader.definition(lines[0], lines[1:])  # "Term" / ": definition", no blank line
        elif kind == "text" and _term_over_its_description(lines):
            reader.definition(lines[0], lines[1:], joiner=" — ")
        elif kind == "fence" and listed[number] and reader.holds_code(lines):
            continue
        elif kind == "fence":
            reader.code_block(lines, fenced=True)
        elif kind == "deep":
            reader.indented_block(lines)
        else:
            introduced = number > 0 and _ends_in_colon(blocks[number - 1][1])
            if listed[number] and reader.nests(lines, item_indent):
                continue
            if listed[number]:
                item_indent = _indent(lines[0])
            reader.text_block(lines, introduced, listed[number])
    return [
        u
        for u in reader.units
        if u.kind == "code" or long_enough(u.text) or (u.listed and word_count(u.text))
    ]


def listed_items(blocks: list[tuple[str, list[str]]]) -> list[bool]:
    """For each block, whether it is an item of a list that a lead-in introduces: the
    items after a line ending in a colon, while block after block opens with a list
    marker (nested items too). Such an item is what the lead-in announces however short
    — "If present, the hooks are executed in the following order:" / "1. default
    factory" / "2. converter" — where a lone short line elsewhere is a title ("* Usage")
    and two words without a full stop a label: read so, the middle of an ordered list
    vanished and its last step became the heading of what followed."""
    out = [False] * len(blocks)
    in_list = False
    for number, (kind, lines) in enumerate(blocks):
        marked = _is_item(kind, lines)
        introduced = number > 0 and _ends_in_colon(blocks[number - 1][1])
        if kind == "fence" and in_list and introduced:
            # Code an item announces, with the list going on after it ("- Update
            # limits.conf to include the following:" / "* soft core unlimited" / "- Type
            # ulimit -c unlimited"): the item's own content, and the list not ended.
            following = blocks[number + 1] if number + 1 < len(blocks) else ("", [""])
            out[number] = _is_item(*following)
            continue
        in_list = marked and (introduced or in_list)
        out[number] = in_list
    return out


def _is_item(kind: str, lines: list[str]) -> bool:
    return kind == "text" and bool(_LIST_MARKER.match(lines[0])) and not _only_a_link(lines)


def _ends_in_colon(lines: list[str]) -> bool:
    """The block is a lead-in: it announces the block after it ("… is read from:",
    "Check results of the following command.")."""
    return bool(lines) and leads_in(" ".join(lines[-2:]))


# A sentence that announces what comes next though it ends in a full stop: "Check results
# of the following command.", "… configure APT … as the following.", "… as follows.".
# Up to two words after "the following" ("the following command", "the following 3
# lines"); the last word is looked at apart, since "in the following section." points at a
# section, which a heading opens, not at what is under the sentence.
_ANNOUNCES = re.compile(r"(?:\bthe following(?:[^\S\n]+[\w-]+){0,2}|\bas follows)[^\S\n]*\.$")
_ELSEWHERE = {"section", "sections", "chapter", "chapters", "page", "pages", "example", "examples"}
LEAD_TAIL_CHARS = 120  # a lead-in's announcing words are at its end


def leads_in(text: str) -> bool:
    """`text` introduces what follows it: it ends in a colon ("The options are:") or in
    a sentence announcing it ("… execute the following command.", "… as follows.")."""
    end = " ".join(text[-LEAD_TAIL_CHARS:].split())
    if end.endswith(":"):
        return True
    announced = _ANNOUNCES.search(end)
    return announced is not None and end[:-1].rsplit(" ", 1)[-1].lower() not in _ELSEWHERE


def _only_a_link(lines: list[str]) -> bool:
    """An item that is one Markdown link and nothing more ("* [Usage](#usage)"): it points
    to where something is said (a table of contents under "This README covers:"), and
    kept as an item however short, such lists were quoted as answers, lead-in and all."""
    item = _LIST_MARKER.sub("", " ".join(line.strip() for line in lines), count=1).strip()
    return _MD_LINK.fullmatch(item) is not None


# A definition list item: "~.  Disconnect.", "-R hostname  Removes all keys …"
_DEFINITION = re.compile(r"^\s*(?:[-~+]\S*\s*|\S+\s{2,})\S")  # no two blank runs meet


def long_enough(text: str) -> bool:
    words = word_count(text)
    if words >= MIN_WORDS:
        return True
    # A short line written as a sentence is a fact ("ISC license.", "- Variadic closures."),
    # where a short line without its full stop is a label or a title.
    if words >= SENTENCE_WORDS and strip_links(text).rstrip().endswith((".", "!")):
        return True
    return bool((_DEFINITION.match(text) or defines_a_symbol(text)) and words)
