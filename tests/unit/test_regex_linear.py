"""Every regular expression the daemon applies to document text, file names, questions or
model output runs in time linear in its input (issue 18, item 1).

Such text is untrusted and these patterns run in the daemon's own process (the chunker,
the windows, the keyless answer, the gate, the filters), where `re` holds the GIL: one
pattern that backtracks polynomially on a crafted line stops every request. The rule the
code follows: no nested or adjacent unbounded quantifiers over overlapping characters.

How it is checked: each pattern in `PATTERNS` is run (`finditer`, every start position,
as `sub`/`split`/`findall` do; `match` where the code only ever anchors at the start) on
inputs built as prefix + pump × k + suffix, from families that exercise what regexes of
this kind overlap on (blanks, word characters, digits, punctuation, Markdown and table
markers, line breaks). A screening pass at a small size finds each pattern's costliest
families; each of those is then timed at sizes n and 4n (n chosen so one run takes a few
ms), and the test fails if 4× the input costs more than 8× the time: a linear pattern is
near 4×, a quadratic one near 16×. Times are CPU times (`process_time`) measured in the
same run (the best of several repeats at n, one at 4n first, all measured again when that
is over the limit: `growth_ratio`) — no absolute threshold.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from ragd.core import names
from ragd.index import chunk_paths, lexical, writer
from ragd.ingest import (
    chunking,
    document,
    filters,
    heading_text,
    hoogle,
    pdf_outline,
    r_markdown,
    vim_help,
)
from ragd.ingest.formats import (
    asciidoc,
    c_family,
    c_family_lexer,
    code,
    code_literals,
    docx,
    html,
    info,
    info_node,
    latex,
    latex_definitions,
    latex_source,
    mail_links,
    man,
    markdown,
    myst,
    rst,
    ruby_code,
    rust_attributes,
    rust_docs,
    rust_hidden,
    rust_lexer,
    sphinx,
    troff,
    xml_confined,
    yaml_outline,
)
from ragd.query import (
    alternatives,
    answer_type,
    candidates,
    companions,
    confidence_line,
    enumeration,
    extractive,
    follow_up,
    injection,
    model_replies,
    naming,
    option_use,
    page,
    prompting,
    question,
    releases,
    support,
    units,
)
from ragd.serve import ask
from ragproto import file_names
from tests.support.growth import GROWTH_LIMIT, cpu_cost, cpu_costs, growth_ratio

Runner = Callable[[str], object]


def _scan(pattern: re.Pattern[str]) -> Runner:
    return lambda text: sum(1 for _ in pattern.finditer(text))


def _anchored(pattern: re.Pattern[str]) -> Runner:
    return lambda text: pattern.match(text)


def _bytes_scan(pattern: re.Pattern[bytes]) -> Runner:
    return lambda text: sum(1 for _ in pattern.finditer(text.encode("utf-8", "surrogatepass")))


_FILTER = filters.PathFilter(("*.md", "*.txt", "*.tar.*", "*.[ch]"))


# The modules whose patterns see untrusted text; every compiled pattern they hold at
# module level (alone, or in a dict or a (name, pattern) table) is checked.
_MODULES = {
    "chunking": chunking, "markdown": markdown, "docx": docx, "html": html, "code": code,
    "names": names, "file_names": file_names, "filters": filters, "lexical": lexical,
    "chunk_paths": chunk_paths, "ruby_code": ruby_code,
    "support": support, "myst": myst, "sphinx": sphinx, "rst": rst,
    "extractive": extractive, "candidates": candidates,
    "companions": companions, "injection": injection, "prompting": prompting,
    "model_replies": model_replies, "ask": ask, "answer_type": answer_type, "units": units,
    "question": question, "confidence_line": confidence_line, "naming": naming,
    "page": page, "writer": writer, "enumeration": enumeration, "man": man, "troff": troff,
    "option_use": option_use, "alternatives": alternatives, "info": info,
    "info_node": info_node, "releases": releases, "mail_links": mail_links,
    "latex": latex, "latex_source": latex_source, "follow_up": follow_up,
    "latex_definitions": latex_definitions, "asciidoc": asciidoc,
    "xml_confined": xml_confined, "rust_docs": rust_docs, "rust_hidden": rust_hidden,
    "heading_text": heading_text, "rust_lexer": rust_lexer, "rust_attributes": rust_attributes,
    "code_literals": code_literals, "c_family": c_family, "c_family_lexer": c_family_lexer,
    "pdf_outline": pdf_outline, "yaml_outline": yaml_outline, "document": document,
    "hoogle": hoogle, "r_markdown": r_markdown, "vim_help": vim_help,
}  # fmt: skip
# Patterns the code only ever applies with `match` (anchored at the start of a line or
# name); every other pattern is scanned from every position.
_ANCHORED = {
    "chunking._UNDERLINE", "chunking._FENCE", "chunking._FENCE_RUN", "chunking._BLANKS",
    "chunking._HEADING_OPEN", "chunking._FENCE_ONLY",
    "docx._HEADING_STYLE", "code.DEFINITIONS", "code.MEMBERS", "code._LDOC_MODULE",
    "code._TCL_PACKAGE", "code._IN_PACKAGE", "code._CLOJURE_NS_NAME", "filters._TEMP",
    "code._D_MODULE", "code._VIM_LET", "code._CSHARP_NAMESPACE", "code._JAVA_PACKAGE",
    "code._VIM_SCRIPTENCODING", "code._DTRACE_MARK",
    "code._CLOJURE_NS_META", "code._CLOJURE_IN_NS",
    "filters._GENERATED",
    "hoogle._SIGNATURE", "hoogle._TYPE",
    "model_replies._FENCE", "units._TABLE_SEPARATOR",
    "units._LINK_TARGET", "units._RST_DIRECTIVE", "units._MD_HEADING", "units._DEFINITION",
    "units._NAVIGATION", "units._PROMPT_OR_COMMENT", "units._PROMPT", "units._DEF_LINE",
    "units._PROMPT_START", "units._CONTINUATION",
    "units._OPTION_LINE", "units._CLOSER",
    "units._DOCSTRING_OPEN", "units._FIELD", "units._DEFINITION_MARK", "units._LONE_NAME",
    "units._ATTRIBUTION", "units._CAPTION", "units._LONE_TAG", "units._PAGE_NUMERAL",
    "companions._REFERS_BACK",
    "myst._OPEN", "myst._CODE_OPEN", "myst._TARGET", "myst._OPTION",
    "mail_links._WORD_GOES_ON",
    "page.SECTION_NUMBER", "rst._ADORNMENT", "enumeration._ITEM", "option_use._ENTRY_HEAD",
    "info_node._NUMBER", "latex_source._LETTERS", "code_literals._REGEX_BODY",
    "c_family_lexer._QUOTED", "c_family_lexer._DIRECTIVE_NAME", "c_family_lexer._RAW_DELIMITER",
    "c_family._TAIL_NAME",
    "rust_docs.DEFINITION", "rust_docs.DOCUMENTED_ONLY", "rust_docs._LINE_DOC",
    "rust_docs._BLOCK_DOC", "rust_docs._ABOVE_ITEM", "rust_docs._CODE_KIND",
    "rust_docs._DOC_ATTRIBUTE", "rust_docs._FENCE_TEXT", "rust_docs.CONTAINER",
    "rust_hidden._RUST_ATTRIBUTE", "heading_text._ENTITY", "rust_hidden._QUOTED",
    "rust_hidden._FENCE", "rust_attributes._DOC", "rust_attributes._LITERAL",
    "rust_attributes._INCLUDE", "rust_docs._FIELD", "rust_docs._VARIANT", "rust_docs._SHAPE",
    "ruby_code.DEFINITION", "ruby_code.CRYSTAL_DEFINITION", "ruby_code._END", "ruby_code._ENDLESS",
    "ruby_code._LINE_STRING",
    "yaml_outline._KEY", "yaml_outline._DOUBLE_END", "yaml_outline._SINGLE_END",
    "r_markdown._CHUNK_HEADER", "r_markdown._CHUNK_OPTION", "r_markdown._DIV_FENCE",
    "vim_help._FIRST_TAG", "vim_help._SECTION_NUMBER", "vim_help._BYLINE",
}  # fmt: skip


def _patterns_of(label: str, module: object) -> dict[str, re.Pattern[str]]:
    found = {}
    for name, value in vars(module).items():
        key = f"{label}.{name}"
        if isinstance(value, re.Pattern):
            found[key] = value
        elif isinstance(value, dict):
            found |= {f"{key}[{k}]": v for k, v in value.items() if isinstance(v, re.Pattern)}
        elif isinstance(value, tuple):
            pairs = [v for v in value if isinstance(v, tuple) and len(v) == 2]
            found |= {f"{key}[{k}]": v for k, v in pairs if isinstance(v, re.Pattern)}
    return found


def _fences(text: str) -> int:
    """The fence tracker over every line of `text` (a line of 10,000 "- " markers pushes
    10,000 list items: each line must still cost time linear in its length)."""
    fences = chunking.Fences()
    return sum(fences.feed(line) for line in text.split("\n"))


def _registry() -> dict[str, Runner]:
    """Every pattern applied to untrusted text, by a name that says where it lives."""
    found: dict[str, Runner] = {}
    for label, module in _MODULES.items():
        for key, pattern in _patterns_of(label, module).items():
            if isinstance(pattern.pattern, bytes):
                found[key] = _bytes_scan(pattern)  # type: ignore[arg-type]
            elif key.split("[")[0] in _ANCHORED:
                found[key] = _anchored(pattern)
            else:
                found[key] = _scan(pattern)
    # Patterns built at run time, and the functions that replaced a pattern.
    found |= {
        "filters.skip_folders": _anchored(_FILTER._skip),
        "filters.include": _anchored(_FILTER._include),
        "support._pattern(version)": _scan(support._pattern("v1.2")),
        "support._pattern(name)": _scan(support._pattern("gplv3")),
        "support._pattern(words)": _scan(support._pattern("snake_case")),
        "chunking.atx_heading": chunking.atx_heading,
        "chunking.clean_heading": chunking.clean_heading,
        "chunking.Fences": _fences,
        "info_node.see_notes": info_node.see_notes,
        "rust_lexer.lex_lines": lambda text: rust_lexer.lex_lines(text.split("\n")),
    }
    return found


# Modules that use `re` but apply no pattern to untrusted text in the daemon.
_NOT_UNTRUSTED = {
    "evaluation",  # `ragd eval`: the user's own question files, offline
    "gitignore_lines",  # names `re.error` only (pathspec's); its patterns are matched on RE2
}


def test_every_module_using_re_is_checked() -> None:
    """A module that starts using regular expressions joins `_MODULES` (or is named in
    `_NOT_UNTRUSTED` with the reason)."""
    daemon = Path(__file__).resolve().parents[2] / "daemon" / "ragd"
    using = {
        path.stem
        for path in daemon.rglob("*.py")
        if "\nimport re\n" in path.read_text() or "from re import" in path.read_text()
    }
    assert {"chunking", "units", "evaluation"} <= using  # the scan sees them
    assert using - set(_MODULES) - _NOT_UNTRUSTED == set()


def test_the_registry_holds_the_patterns() -> None:
    """The collection works: the patterns named in the issue are in it."""
    names = set(_registry())
    assert {"chunking._SENTENCE_END", "chunking.atx_heading", "units._TABLE_SEPARATOR"} <= names
    assert len(names) > 50


_PREFIXES = (
    "", "#", "# a", "|", "| -", "- ", "1. ", ". ", "a.", "$ ", "<", "</", "[", "![", "`", ">",
    "v1", "--", "how many ", "ignore ", "confirm ", "you are ", "http://", ".. _", ":a:",
    "func ", "pub ", "export ", "x = ", "heading ", "SYSTEM", "\n", "a\\",
)  # fmt: skip
_PUMPS = (
    " ", "\t", " \t", "a", "A", "1", "a1", "1.", "a.", ". ", "_", "a_", "-", "a-", "--", "=",
    "~", "*", "**", "#", "|", "|-", "| ", "-|", ":", ":-", "`", "<", ">", "<a", "[", "]", "(",
    ")", "!", "?", "/", "\\", "a ", "- ", "\n", "\n ", " \n", "\n\n", "£1", "Ab", "aB", "1 ",
    "all ", "the ", "x1-", "1,", "\x85", "\udc80", "\\x", "$", "{", ".-", "@", "é",
    "![", "](", "[a](", "`a", "a@", "<a@", "a.1", "<a", "Confidence ", "* ", "*note ",
)  # fmt: skip
_SUFFIX = "\x00"  # ends every input on a character no pattern wants, so matches must fail
SCREEN_CHARS = 256  # screening size: a quadratic family costs ~50× a linear one here
RUN_SECONDS = 0.002  # n grows until one run takes this long, so the timer's grain is small
# The same for a single pattern (`_growth`): `re` backtracks in C, with no Python work per
# character to outweigh, so a quadratic pattern reads ≈ 16× at any size the timer resolves
# (≈ 15.6–16.3× at 0.0005–0.002 s for the deliberately quadratic patterns of
# test_a_quadratic_pattern_fails_the_check, below), and runs this short (each measurement
# loops to 4× this) halve what the growth timings cost.
PATTERN_RUN_SECONDS = 0.001
# 4n stays inside the CPU cache: at 512K chars a linear scan read 10–20× (cache, not pattern)
MAX_CHARS = 1 << 15


def _text(family: tuple[str, str, str], chars: int) -> str:
    prefix, pump, suffix = family
    return prefix + pump * max(1, chars // len(pump)) + suffix


@functools.cache
def _screening_texts() -> list[tuple[tuple[str, str, str], str]]:
    """Each family at the screening size: every prefix with every pump, ended as is or
    on a character no pattern wants (so matches must fail there)."""
    families = [(p, m, s) for p in _PREFIXES for m in _PUMPS for s in ("", _SUFFIX)]
    return [(family, _text(family, SCREEN_CHARS)) for family in families]


def _costliest(run: Runner, keep: int = 2) -> list[tuple[str, str, str]]:
    screening = _screening_texts()
    costs = cpu_costs(run, [text for _, text in screening])
    timed = [(cost, family) for cost, (family, _) in zip(costs, screening, strict=True)]
    timed.sort(key=lambda pair: pair[0], reverse=True)
    return [family for _, family in timed[:keep]]


def _growth(run: Runner, family: tuple[str, str, str]) -> tuple[float, int]:
    """Time at 4n over time at n, with n grown until one run is measurable."""
    chars = SCREEN_CHARS
    once = cpu_cost(run, _text(family, chars), repeats=1)
    while chars < MAX_CHARS and once < PATTERN_RUN_SECONDS:
        chars *= 2
        once = cpu_cost(run, _text(family, chars), repeats=1)
    # A pattern still this fast at MAX_CHARS is measured over several runs, so the timer's
    # grain and a busy machine's jitter do not decide the ratio (seen: 13× on 1 ms runs).
    loops = max(1, min(64, round(PATTERN_RUN_SECONDS * 4 / max(once, 1e-6))))
    return growth_ratio(run, _text(family, chars), _text(family, chars * 4), loops=loops), chars


@pytest.mark.parametrize("name", sorted(_registry()))
def test_pattern_time_grows_linearly(name: str) -> None:
    run = _registry()[name]
    worst = []
    for family in _costliest(run):
        ratio, chars = _growth(run, family)
        if ratio > GROWTH_LIMIT:  # measure once more before calling it: a busy machine
            ratio = min(ratio, _growth(run, family)[0])
        worst.append((ratio, family, chars))
    ratio, family, chars = max(worst)
    assert ratio <= GROWTH_LIMIT, (
        f"{name}: 4× the input ({family!r} at {chars} chars) took {ratio:.1f}× the time"
    )


# Patterns that backtrack quadratically, as the rule above forbids: a run the match must
# leave again at every start, a look-ahead over the rest of the line, a run of blanks
# before a character that never comes, lazy text before blanks to the end of the line.
QUADRATIC = {
    "run then digit": r"[a-z]+\d",
    "look-ahead to the end": r"a(?=[a-z ]*b)",
    "blanks then x": r"\s+x",
    "lazy text then blanks": r"^#+\s+(.*?)\s*$",
}


@pytest.mark.parametrize("name", sorted(QUADRATIC))
def test_a_quadratic_pattern_fails_the_check(name: str) -> None:
    """The check itself, at the sizes and repeats it uses: screening finds a family that
    makes each of these patterns quadratic, and its growth is far past the limit (≈ 16×
    where linear patterns read ≈ 4×): the margin that lets each run be this short. A busy
    neighbour can steal the larger run's time and flatten one measure (it did, under
    load, for helpers running the file beside other work), so a ratio under the bar is
    measured again, at most twice: a quadratic pattern is caught by its best measure, as
    a linear one is cleared by `growth_ratio`'s best."""
    run = _scan(re.compile(QUADRATIC[name], re.MULTILINE))
    ratio = 0.0
    for _ in range(3):
        ratio = max(ratio, *(_growth(run, family)[0] for family in _costliest(run)))
        if ratio > GROWTH_LIMIT * 1.5:
            break
    assert ratio > GROWTH_LIMIT * 1.5, f"{name}: 4× the input took only {ratio:.1f}× the time"


def test_a_long_blank_heading_line_chunks_at_once(tmp_path: Path) -> None:
    """The line from the issue: '# a' + 1,500 blanks + 'b' is a heading titled 'a … b'."""
    from ragd.ingest.document import Document

    line = "# a" + " " * 1500 + "b"
    doc = Document(kind="markdown", title="redos", text=line + "\n\nbody text here\n")
    chunks = chunking.chunk_document(doc)
    assert chunks and chunks[0].heading == ("a b",)


# Whole documents through the chunker (it runs in the daemon, after the parse worker):
# shapes that stress its loops — many headings, one long line, runs of blank lines,
# fences, setext underlines, a line of #'s.
DOCUMENTS = {
    "headings": lambda n: "".join(f"# h{i}\n\ntext {i}.\n\n" for i in range(n)),
    "one line": lambda n: "word " * (n * 10),
    "blank lines": lambda n: "\n" * (n * 10) + "x",
    "short lines": lambda n: "a\n" * (n * 10),
    "sentences": lambda n: "Hi. " * (n * 10),
    "fences": lambda n: "```\n" * n,
    # A code block cut into pieces, each fenced again (chunking._each_fenced): one opened on
    # a list item's marker line, and one whose opening line is longer than a chunk.
    "fence on an item's line": lambda n: "- ```sh\n" + "  line of code\n" * (n * 2) + "  ```\n",
    "fence long opening": lambda n: "```" + "a" * (n * 5) + "\n" + "line of code\n" * n + "```\n",
    # Fences in quotes (chunking.QuotedFence): one cut into pieces, openers left at once
    # (each kept in the prose), and a line of quote markers past MAX_QUOTES.
    "quoted fence": lambda n: "> ```sh\n" + "> line of code\n" * (n * 2) + "> ```\n",
    "quoted openers": lambda n: "> ```\nx\n" * n,
    "quote markers": lambda n: "> " * (n * 10) + "```\n",
    "underlines": lambda n: "a\n===\n" * n,
    "nested headings": lambda n: "".join(f"{'#' * (1 + i % 6)} h\n" for i in range(n)),
    "hashes": lambda n: "#" * (n * 10),
    "blank heading": lambda n: "# a" + " " * (n * 10) + "b",
}


# Plain text's headings are read from its layout (text_headings): shapes of those.
TEXT_DOCUMENTS = {
    "text underlines": lambda n: "".join(f"t{i}\n{'=-~^*#'[i % 6] * 3}\n\nx\n\n" for i in range(n)),
    "text overlines": lambda n: "===\nt\n===\n\n" * n,
    "text capitals": lambda n: "\nNAME\n       body\n" * n,
    # An indented page's titles at the margin (lynx -dump: Debian's bug tracker guides).
    "text margin titles": lambda n: "\nSeverity levels\n\n   body\n   more\n   text\n" * n,
    "text rules": lambda n: "-----\n" * (n * 4),
    # Numbered subtitles inside one numbered heading, deepening and closing by turns
    # (the Debian constitution's `  5.2. Appointment`), and numbers that extend nothing.
    "text numbered subtitles": lambda n: (
        "1. Top\n=====\n"
        + "".join(
            f"\n  1.{i}. Part\n\n  x\n\n  1.{i}.1. Sub\n\n  y\n\n  9.{i}. No\n" for i in range(n)
        )
    ),
    # Titles with nothing under them, two styles taking turns (their levels are voted on).
    "text empty titles": lambda n: "t\n===\n\nu\n---\n\n" * n,
}
KINDS = {
    **{shape: "markdown" for shape in DOCUMENTS},
    **{shape: "text" for shape in TEXT_DOCUMENTS},
}


def _size_taking(
    run: Runner, make: Callable[[int], str], seconds: float, most: int
) -> tuple[int, float | None]:
    """The first of 250, 500, 1,000, … (up to `most`) whose document takes `run` at least
    `seconds` of CPU time once, and that one run's time (None at `most`: not timed)."""
    size = 250
    while size < most:
        seen = cpu_cost(run, make(size), repeats=1)
        if seen >= seconds:
            return size, seen
        size *= 2
    return size, None


@pytest.mark.parametrize("shape", sorted(KINDS))
def test_chunking_a_document_grows_linearly(shape: str) -> None:
    from ragd.ingest.document import Document

    def run(text: str) -> object:
        return chunking.chunk_document(Document(kind=KINDS[shape], title="t", text=text))

    make = {**DOCUMENTS, **TEXT_DOCUMENTS}[shape]
    size, seen = _size_taking(run, make, RUN_SECONDS, 64_000)
    # (a busy machine was seen at 8.02× once, 4.2× when measured again: _ratio does that)
    ratio = growth_ratio(run, make(size), make(size * 4), small_seen=seen)
    assert ratio <= GROWTH_LIMIT, f"{shape}: 4× the document took {ratio:.1f}× the time"


def test_one_sentence_of_megabytes_chunks_in_linear_time() -> None:
    """A text without a full stop is one "sentence", cut into pieces by size. Each cut once
    copied the whole remainder, which only shows past a megabyte (8 MB: 6.7 s on the
    planner thread, ≈ 18× the time of 2 MB): the shapes above stay far smaller."""
    from ragd.ingest.document import Document

    def run(text: str) -> list[chunking.Chunk]:
        return chunking.chunk_document(Document(kind="text", title="t", text=text))

    def make(megabytes: int) -> str:
        return "lorem ipsum dolor sit amet " * (megabytes * 1024 * 1024 // 27)

    small, large = make(2), make(8)
    ratio = cpu_cost(run, large, repeats=1) / max(cpu_cost(run, small, repeats=1), 1e-9)
    if ratio > GROWTH_LIMIT:  # measure once more before calling it: a busy machine
        ratio = min(ratio, cpu_cost(run, large, repeats=2) / max(cpu_cost(run, small), 1e-9))
    assert ratio <= GROWTH_LIMIT, f"4× the sentence took {ratio:.1f}× the time"
    pieces = run(small)
    assert len(pieces) > 100 and all(len(c.text) < 4000 for c in pieces)


# The screening ends its inputs on nothing or on NUL, which every closing look-ahead
# accepts. A run ended by a character a look-ahead refuses ("/" and "-" for the
# identifiers a question demands) made the pattern try every shorter end of the run:
# "a" + 4,094 "1" + "/" took 0.22 s, "SYSTEM" + 4,090 "_" + "-" 0.23 s (16× for 4×).
@pytest.mark.parametrize(
    "family", [("a", "1", "/"), ("SYSTEM", "_", "-"), ("a", "a1", "/"), ("a", "_b", "/")]
)
def test_question_identifiers_of_a_run_ending_on_a_refused_character_grow_linearly(
    family: tuple[str, str, str],
) -> None:
    ratio, chars = _growth(question.identifiers, family)
    if ratio > GROWTH_LIMIT:  # measure once more before calling it: a busy machine
        ratio = min(ratio, _growth(question.identifiers, family)[0])
    assert ratio <= GROWTH_LIMIT, f"4× the question ({family!r} at {chars}) took {ratio:.1f}×"
    # A run that a "/" or "-" follows is part of a path or a hyphenated word: no name
    # the question demands, and no part of it either ("x9" of "x9.1/" was one).
    assert question.identifiers(_text(family, 64)) == []
    assert question.identifiers("Is x9.1/2 the same as x9.1?") == ["x9.1"]


# The AsciiDoc and Org readers scan with str methods, no regex (LaTeX's, below, with
# character classes): shapes that would make a
# scan retry a long run at every position (a bracket's partner looked for again and
# again, a block's end searched for from every opening line) or nest without end.
READER_DOCUMENTS = {
    "adoc brackets": ("a.adoc", lambda n: "x " + "[" * (n * 10)),
    "adoc words with brackets": ("a.adoc", lambda n: "a[" * (n * 5)),
    "adoc link words": ("a.adoc", lambda n: "link:x[" * (n * 2)),
    "adoc attribute references": ("a.adoc", lambda n: ":a: b\n\n" + "{a}{" * (n * 3)),
    "adoc anchors": ("a.adoc", lambda n: "x [[" * (n * 3)),
    "adoc cross references": ("a.adoc", lambda n: "<<a," * (n * 3)),
    "adoc table cells": ("a.adoc", lambda n: "|===\n" + "|a 2+" * (n * 2) + "\n|===\n"),
    "adoc terms": ("a.adoc", lambda n: "a" + ":: " * (n * 3)),
    "adoc nested blocks": (
        "a.adoc",
        lambda n: "".join("=" * (4 + i % 50) + "\n" for i in range(n)),
    ),
    "adoc nested lists": (
        "a.adoc",
        lambda n: "".join("." * (1 + i % 40) + " x\n" for i in range(n)),
    ),
    "adoc unclosed listings": ("a.adoc", lambda n: "x\n\n----\n" * n),
    # a value continued with ` \` over every line: each line once, not the value so far
    "adoc continued attribute value": ("a.adoc", lambda n: ":a: x \\\n" + "y \\\n" * n),
    # an escaped mark whose closing one is looked for: each mark looked at once, not
    # again from every opening (`x*y` closes nothing, nor does the next `\*`)
    "adoc escaped quotes": ("a.adoc", lambda n: "\\*x*y" * (n * 2)),
    "adoc escaped superscripts": ("a.adoc", lambda n: "\\^a b" * (n * 2)),
    "adoc escaped references": ("a.adoc", lambda n: "\\{a}\\https://x \\<<a>>" * n),
    # `+…+` passthroughs: openings with no closing plus, and closings that do not close
    "adoc passthrough openings": ("a.adoc", lambda n: " +x" * (n * 3)),
    "adoc passthrough pluses": ("a.adoc", lambda n: " +x +" * (n * 2) + "y+ +a+"),
    "org links": ("a.org", lambda n: "x " + "[[a][" * (n * 2)),
    "org unclosed blocks": ("a.org", lambda n: "#+BEGIN_SRC\n" * n),
    "org nested blocks": ("a.org", lambda n: "#+BEGIN_QUOTE\n" * n + "#+END_QUOTE\n" * n),
    "org drawers": ("a.org", lambda n: ":A:\n" * n + ":END:\n"),
    "org headlines": (
        "a.org",
        lambda n: "".join("*" * (1 + i % 60) + " h :t:\n" for i in range(n)),
    ),
    # a commented subtree's end: each headline it passes over looked at once
    "org commented subtrees": (
        "a.org",
        lambda n: "".join("*" * (1 + i % 60) + " COMMENT h\nx\n" for i in range(n)) + "* e\n",
    ),
}


# The LaTeX reader: one forward scan and a stack of frames; shapes that would make it
# look again for a closing string from every opening (a `$`, a `\verb|`, an optional
# argument's `]`, an `\end` searched for through the stack) or nest without end.
READER_DOCUMENTS |= {
    "tex nested braces": ("a.tex", lambda n: "{" * (n * 10) + "x" + "}" * (n * 10)),
    "tex unclosed dollars": ("a.tex", lambda n: "$a " * (n * 5)),
    "tex unclosed verbs": ("a.tex", lambda n: "\\verb|a " * (n * 3)),
    "tex unclosed optional arguments": ("a.tex", lambda n: "\\\\[ " * (n * 5)),
    "tex unclosed item terms": ("a.tex", lambda n: "\\begin{itemize}" + "\\item[ " * (n * 3)),
    # items in an item's term, which TeX reads to its `]`: that `]` looked for once
    # an \\iffalse never closed, nested conditionals in it counted; addresses never closed
    "tex unclosed iffalse": ("a.tex", lambda n: "\\iffalse " + "\\ifx a \\else % \\fi\n" * n),
    "tex unclosed addresses": ("a.tex", lambda n: "\\href{a%" * (n * 3)),
    # groups never closed: each one's scan to the end of the file made once
    "tex unclosed labels": ("a.tex", lambda n: "\\label{" * (n * 3)),
    "tex unclosed definitions": ("a.tex", lambda n: "\\def\\x{" * (n * 2)),
    "tex item terms in item terms": (
        "a.tex",
        lambda n: "\\begin{itemize}" + "\\item[a " * (n * 3) + "]",
    ),
    "tex unmatched ends": (
        "a.tex",
        lambda n: "\\begin{foo}" * (n * 2) + "\\end{bar}" * (n * 2),
    ),
    "tex unclosed lists": ("a.tex", lambda n: "\\begin{itemize}\\item x " * n),
    "tex titles in titles": ("a.tex", lambda n: "\\section{" * (n * 2)),
    "tex footnotes in footnotes": ("a.tex", lambda n: "\\footnote{a" * (n * 2)),
    "tex unclosed math environments": ("a.tex", lambda n: "\\begin{equation} x " * (n * 2)),
    "tex table cells": ("a.tex", lambda n: "\\begin{tabular}{l}" + "a & b \\\\ " * (n * 2)),
    "tex self-calling definitions": ("a.tex", lambda n: "\\def\\a{\\a}\\a " * (n * 2)),
    # a word macro (formats.latex_definitions) redefined and used over and over
    "tex word macros": ("a.tex", lambda n: "\\def\\a{\\a x \\a}\\a " * (n * 2)),
}

# The Perl reader (formats.perl, pod, pod_inline): formatting codes nested, never closed,
# or of the `C<< … >>` form over runs of `>`; POD never cut; subs without end.
READER_DOCUMENTS |= {
    "pod nested codes": ("a.pm", lambda n: "=pod\n\n" + "B<I<" * (n * 3) + "x" + ">" * n),
    "pod unclosed codes": ("a.pm", lambda n: "=pod\n\n" + "C<x " * (n * 5)),
    "pod double-bracket codes": ("a.pm", lambda n: "=pod\n\n" + "C<<<< x >> " * (n * 3)),
    "pod closing runs": ("a.pm", lambda n: "=pod\n\n" + "C<<<<<<<< x" + " >>>>>>>" * (n * 2)),
    "pod commands never cut": ("a.pm", lambda n: "=head1 a\n\n=item b\n\n" * n),
    "pod examples in a row": ("a.pm", lambda n: "=pod\n\n" + "  x\n\n" * (n * 2)),
    "perl subs": ("a.pm", lambda n: "package A;\n" + "# c\nsub f {\n}\n" * n),
}

READER_RUN_SECONDS = 0.05


@pytest.mark.parametrize("shape", sorted(READER_DOCUMENTS))
def test_markup_readers_grow_linearly(shape: str) -> None:
    from ragd.ingest.formats import asciidoc, latex, org, perl

    name, make = READER_DOCUMENTS[shape]
    readers = {".adoc": asciidoc, ".org": org, ".tex": latex, ".pm": perl}
    reader = readers[name[name.rindex(".") :]]

    def run(text: str) -> object:
        return reader.parse(name, text.encode())

    # Runs this long, not RUN_SECONDS: a partner searched for again from every bracket
    # is a C scan, and its quadratic cost only outgrows the per-bracket Python work
    # past ≈ 10^5 brackets (a run of 2,500 showed 4× at 4× the input).
    size, seen = _size_taking(run, make, READER_RUN_SECONDS, 1 << 17)
    ratio = growth_ratio(run, make(size), make(size * 4), repeats=2, small_seen=seen)
    assert ratio <= GROWTH_LIMIT, f"{shape}: 4× the document took {ratio:.1f}× the time"


# Indented blocks as the keyless answerer reads them (query/units.py, at query time, on
# every chunk of the page): `mixed_block` cuts a block that is not all prose into
# paragraphs. A run of blank lines inside one was read again at each of its lines (8,000
# of them: 2 s, 16× the time of 2,000).
UNIT_BLOCKS: dict[str, Callable[[int], str]] = {
    "units blank run in an indented block": lambda n: "Body.\n\n    a;\n" + "\n" * n + "    b;\n",
    "units one-word indented paragraphs": lambda n: "Body.\n\n" + "    word\n\n" * n,
    "units prose and code paragraphs by turns": lambda n: (
        "Body.\n\n"
        + "    x = f(y);\n\n    The value is read once, at start, and kept\n    until exit.\n\n" * n
    ),
    # A run of a code block stopping inside brackets runs on to where they close
    # (units._bracket_end): lines that open and never close, each line read in one pass.
    "units code lines of open brackets": lambda n: "```\n" + "f(a, [b,\n" * n + "```\n",
    "units code line of brackets in strings": lambda n: (
        "```\n" + ('x = f(\'(\' "[\\"" ' * n + "\n") * 8 + "```\n"
    ),
}


@pytest.mark.parametrize("shape", sorted(UNIT_BLOCKS))
def test_keyless_units_of_indented_blocks_grow_linearly(shape: str) -> None:
    make = UNIT_BLOCKS[shape]
    size, seen = _size_taking(units.units_of, make, READER_RUN_SECONDS, 1 << 17)
    ratio = growth_ratio(units.units_of, make(size), make(size * 4), repeats=2, small_seen=seen)
    assert ratio <= GROWTH_LIMIT, f"{shape}: 4× the chunk took {ratio:.1f}× the time"


# Paginated formatter output (ingest/paged_text.py), read by the loader in the parse
# worker and chunked in the daemon: pages of running lines, hyphenated line ends that
# chain, numbered titles deep and shallow, lines of fields that repeat at no interval.
def _pages(n: int, body: Callable[[int], str]) -> str:
    """n pages of 30 lines: a running header, `body(page)` (12 lines), blank lines."""
    return "".join(f"\nGuide     {i}\n\n" + body(i) + "\n" * 14 for i in range(n))


PAGED_DOCUMENTS = {
    "paged pages": lambda n: _pages(n, lambda _: "  word  word  recollec-\n  tion  word\n" * 6),
    "paged hyphen chains": lambda n: _pages(n, lambda _: "a-\n" * 12),
    "paged titles": lambda n: _pages(n, lambda i: f"\n{i + 1}.  Title\n\n" + "text\n" * 9),
    "paged deep titles": lambda n: _pages(
        n, lambda i: "".join(f"\n{i + 1}{'.1' * d}.  Title\n" for d in range(6)) + "\n" * 6
    ),
    "paged appendix titles": lambda n: (
        "Abstract\n\n   text\n\n"
        + _pages(
            n,
            lambda i: (
                f"\n{i + 1}.  Title\n\n   text\n\nAppendix A.  X\n\nA.{i + 1}.  Y\n\n   text\n"
            ),
        )
    ),
    "paged form feeds": lambda n: "".join(f"a   b   {i}\n\f\nc   d\n\ntext\n" for i in range(n)),
    "paged field lines": lambda n: _pages(n, lambda i: f"a   {i % 7}\n\n" * 6),
}


@pytest.mark.parametrize("shape", sorted(PAGED_DOCUMENTS))
def test_paged_text_grows_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, PAGED_DOCUMENTS[shape])


def _text_file_grows_linearly(shape: str, make: Callable[[int], str], name: str = "a.txt") -> None:
    """Loading and chunking `make(n)` as the file `name` costs about 4× at 4n."""
    from ragd.ingest import loaders

    def run(text: str) -> object:
        return chunking.chunk_document(loaders.parse(name, text.encode()))

    size, seen = _size_taking(run, make, RUN_SECONDS, 64_000)
    ratio = growth_ratio(run, make(size), make(size * 4), small_seen=seen)
    assert ratio <= GROWTH_LIMIT, f"{shape}: 4× the document took {ratio:.1f}× the time"


# Entry lists (ingest/entry_list.py), read by the loader in the parse worker and chunked in
# the daemon: named entries, fortunes, deep shared indentation, comment runs, entries of
# nothing, one huge entry between separators.
ENTRY_DOCUMENTS = {
    "entries named": lambda n: "# note\n" + "%%%%\nname\n\ntext of the entry.\n" * n,
    "entries fortunes": lambda n: "a fortune\n\t\t-- someone\n%\n" * n,
    "entries shared indentation": lambda n: ("%\n" + (" " * 50 + "x\n") * 20) * (n // 10 + 3),
    "entries comments": lambda n: "%%%%\n" * 3 + "# comment\n" * (n * 4),
    "entries empty": lambda n: "%\n" * (n * 4),
    "entries one long": lambda n: "%\n%\n" + "word " * (n * 20) + "\n%\n",
}


@pytest.mark.parametrize("shape", sorted(ENTRY_DOCUMENTS))
def test_entry_lists_grow_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, ENTRY_DOCUMENTS[shape])


# Terminal bold and underline in plain text (ingest/terminal_text.py), resolved by the
# loader in the parse worker: overstrikes, escape sequences whole and unfinished, one
# character struck over and over.
TERMINAL_DOCUMENTS = {
    "terminal overstrikes": lambda n: "N\bNA\bAM\bME\bE  _\bf_\bi_\bl_\be  +\bo\n" * n,
    "terminal escapes": lambda n: "\x1b[1m1.  Title\x1b[0m \x1b[38;5;1mred\x1b[m\n" * n,
    "terminal unfinished escapes": lambda n: "\x1b[" + "1;" * (n * 10) + "\n",
    "terminal strikes on one place": lambda n: "a" + "\ba" * (n * 10) + "\n",
}


@pytest.mark.parametrize("shape", sorted(TERMINAL_DOCUMENTS))
def test_terminal_marks_grow_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, TERMINAL_DOCUMENTS[shape])


# Java, C#, C and C++ (formats/c_family_lexer.py, c_family.py), read in the parse worker:
# one long line, braces never closed, openers never closed (a comment, a string, a text
# block, a verbatim or raw string, `#if 0`), CR-only line ends, many small definitions.
BRACED_DOCUMENTS = {
    "c long line": ("a.c", lambda n: "int f(" + "a, " * (n * 10) + ") {}\n"),
    "c braces": ("a.c", lambda n: "{" * (n * 10)),
    "c unclosed comment": ("a.c", lambda n: "/*" + "int f() {}\n" * n),
    "c unterminated strings": ("a.c", lambda n: 'int x = "abc\n' * n),
    "c unclosed ifs": ("a.c", lambda n: "#if 0\n" * (n * 2)),
    "c elses": ("a.c", lambda n: "#if X\nint f() {\n#else\nint g() {\n#endif\n}\n" * n),
    "c parentheses": ("a.c", lambda n: "(" * (n * 10)),
    "c long statement": ("a.c", lambda n: "int " * (n * 5) + "f() {}"),
    # Prototypes under comments (c_family._documented): each looks only as far up as the
    # definition before it, however many lines close a comment no line opens.
    "c documented prototypes": ("a.h", lambda n: "/* Opens it. */\nint f(void);\n" * n),
    "c comment ends without openings": ("a.h", lambda n: "*/\n" * (n * 4) + "int f(void);\n"),
    "c prototypes after comment ends": ("a.h", lambda n: "x */\n\nint f(void);\n" * n),
    "c macro lines above a prototype": (
        "a.h",
        lambda n: "/* d */\n" + "M(x)\n" * (n * 4) + "int f(void);\n",
    ),
    # Banners (formats/c_banners.py): a run of them, a run before one definition (each
    # looks ahead only to the next), and openings never closed (each read six lines on).
    "c banners": ("a.h", lambda n: "/*-*****\n*  Title\n*****/\n#define X 1\n" * n),
    "c banners without code": ("a.h", lambda n: "/* ==== T ==== */\n" * (n * 2) + "int f() {}\n"),
    "c banners never closed": ("a.h", lambda n: "/*-**********\n" * (n * 3)),
    # Banners where the lexer notes comments (attack56): a function's body of them, the
    # first column of an `#else` branch it skips, banners of the most lines.
    "c banners in a body": (
        "a.c",
        lambda n: "int f() {\n" + "/* ===== T ===== */\nx();\n" * n + "}\n",
    ),
    "c banners in an else": (
        "a.h",
        lambda n: "#if A\n#else\n" + "/* ===== T ===== */\n#define X 1\n" * n + "#endif\n",
    ),
    "c comments on a line": ("a.h", lambda n: "/* a */" * (n * 4) + "\nint x;\n"),
    "c tall banners": ("a.h", lambda n: "/*-********\n*  T\n*\n*\n*\n*********/\n" * n),
    # A title of many `<`, each looked past for a tag (r58), and of many tags.
    "c banner of brackets": ("a.h", lambda n: "/* ==== " + "<" * (n * 8) + " ==== */\nint x;\n"),
    "c banner of tags": ("a.h", lambda n: "/* ==== " + "<b>T</b>" * n + " ==== */\nint x;\n"),
    "cpp raw strings": ("a.cpp", lambda n: 'R"x(abc\n' * n),
    "cpp digit separators": ("a.cpp", lambda n: "1'" * (n * 5)),
    "cpp templates": ("a.cpp", lambda n: "template <" * (n * 2) + "{"),
    "cpp namespaces": ("a.cpp", lambda n: "namespace a {\n" * n),
    "cpp classes": ("a.cpp", lambda n: "class A { int f() { return 1; } };\n" * n),
    "java text blocks": ("A.java", lambda n: '"""abc\n' * n),
    "java cr only": ("A.java", lambda n: "class A {\r void f() {}\r" * n + "}"),
    "csharp verbatim strings": ("A.cs", lambda n: '@"abc\n' * n),
    "csharp raw strings": ("A.cs", lambda n: '""""abc\n' * n),
}


@pytest.mark.parametrize("shape", sorted(BRACED_DOCUMENTS))
def test_brace_languages_grow_linearly(shape: str) -> None:
    name, make = BRACED_DOCUMENTS[shape]
    _text_file_grows_linearly(shape, make, name)


def test_c_banners_look_at_a_line_of_many_comments_once() -> None:
    """The lexer notes each comment opening between statements; a line of thousands
    (`/* a */` after `/* a */`) was looked at for a banner once per comment, each time
    stripped whole: quadratic (16,000 of them: 14.8× the time of 4,000, attack56). The
    shape above hides it at the sizes it is timed at, under the chunker's linear cost."""
    from ragd.ingest.formats.c_banners import with_banners
    from ragd.ingest.formats.c_family import outline

    def run(text: str) -> object:
        lines = text.split("\n")
        comments: list[int] = []
        return with_banners(lines, outline(lines, "c", comments), comments)

    def make(n: int) -> str:
        return "/* a */" * n + "\nint x;\n"

    ratio = growth_ratio(run, make(4000), make(16000))
    assert ratio <= GROWTH_LIMIT, f"4× the comments took {ratio:.1f}× the time"


# Jupyter notebooks (formats/notebook.py), read in the parse worker: many cells, one long
# output (never read), and many cells nbformat refuses (one is a string), read as written.
NOTEBOOK_DOCUMENTS = {
    "notebook cells": lambda n: _notebook(
        [{"cell_type": "markdown", "metadata": {}, "source": f"# h{i}\nword"} for i in range(n)]
    ),
    "notebook output": lambda n: _notebook(
        [
            {
                "cell_type": "code",
                "metadata": {},
                "source": "x",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "y " * (n * 50)}],
                "execution_count": 1,
            }
        ]
    ),
    "notebook refused": lambda n: _notebook(
        ["a string", *[{"cell_type": "code", "source": f"x = {i}"} for i in range(n)]]
    ),
}


def _notebook(cells: list[object]) -> str:
    import json

    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})


@pytest.mark.parametrize("shape", sorted(NOTEBOOK_DOCUMENTS))
def test_notebooks_grow_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, NOTEBOOK_DOCUMENTS[shape], "a.ipynb")


# Doxygen's pages (formats/html.py): members by the thousand, a listing of many lines, a
# class list of many icons.
DOXYGEN_DOCUMENTS = {
    "doxygen members": lambda n: _doxygen(
        "".join(
            f'<h2 class="memtitle"><span class="permalink"><a href="#a{i}">&#9670;</a></span>'
            f'm{i}()</h2><div class="memitem"><p>Doc {i}.</p></div>\n'
            for i in range(n)
        )
    ),
    "doxygen listing": lambda n: _doxygen(
        '<div class="fragment">'
        + "".join(f'<div class="line"><span class="lineno">{i}</span> x();</div>' for i in range(n))
        + "</div>"
    ),
    # Doxygen 1.9.4's numbers with nothing after them: each gets its space (r58)
    "doxygen listing unspaced": lambda n: _doxygen(
        '<div class="fragment">'
        + "".join(f'<div class="line"><span class="lineno">{i}</span>x();</div>' for i in range(n))
        + "</div>"
    ),
    "doxygen class list": lambda n: _doxygen(
        '<div class="levels">[detail level 1]</div><table class="directory">'
        + '<tr><td><span class="icona"><span class="icon">C</span></span><a>K</a></td></tr>' * n
        + "</table>"
    ),
}


def _doxygen(body: str) -> str:
    title = '<div class="header"><div class="headertitle"><div class="title">X</div></div></div>'
    return f'<html><body>{title}<div class="contents">{body}</div></body></html>'


@pytest.mark.parametrize("shape", sorted(DOXYGEN_DOCUMENTS))
def test_doxygen_pages_grow_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, DOXYGEN_DOCUMENTS[shape], "a.html")


# YAML (formats.yaml_outline): entries split again at every level down to the deepest, a
# staircase of keys each longer than a chunk, items whose names come late or never, block
# scalars over key-like lines, documents by the thousand, a key as long as a line.
YAML_DOCUMENTS = {
    "yaml staircase": lambda n: "".join(" " * (i % 40) + "k:\n" for i in range(n * 4)),
    "yaml unnamed items": lambda n: "- a: 1\n" + "  b: 2\n" * (n * 4),
    "yaml late names": lambda n: "".join(
        "- a: 1\n" + "  b: 2\n" * 30 + "  name: x\n" for _ in range(n // 8 + 1)
    ),
    "yaml block scalars": lambda n: "a: |\n" + "  b: c\n" * (n * 4),
    "yaml long keys": lambda n: ("a" * 190 + " " * 20 + "b: c\n") * n,
    "yaml documents": lambda n: "---\nkind: A\nmetadata:\n  name: b\n" * n,
    "yaml small keys": lambda n: "k: 1\n" * (n * 4),
    "yaml comments": lambda n: "# c\n" * (n * 4) + "k: 1\n",
    # Quoted scalars and flow collections over lines (attack53): one never closed, one
    # long line of quotes and brackets, quotes escaped to the end of the line.
    "yaml open quote": lambda n: 'a: "\n' + "  b: 1\n" * (n * 4),
    "yaml open flow": lambda n: "a: [\n" + "  'b', {c: [1, 2]},\n" * n,
    "yaml quotes in a flow": lambda n: "a: [" + "'x', " * (n * 4) + "\n",
    "yaml escaped quotes": lambda n: "a: '" + "''" * (n * 4) + '\nb: "' + '\\"' * n + "\n",
    "yaml blanks before quotes": lambda n: "a: [" + " " * (n * 4) + "'x'\n",
    # Complex keys (r58): many, and one whose `? ` line is long blanks then a scalar.
    "yaml complex keys": lambda n: "? k\n: v\n" * (n * 2),
    "yaml long complex key": lambda n: "? " + " " * (n * 4) + "|\n  k\n: v\n",
}


@pytest.mark.parametrize("shape", sorted(YAML_DOCUMENTS))
def test_yaml_grows_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, YAML_DOCUMENTS[shape], "a.yml")


def _long_assignment(number: int) -> str:
    return f"V{number} = (\n" + "    1,\n" * 14 + ")\n"


# Python's sections (formats/code.py): assignments of 15 lines heading themselves by the
# thousand, and constants by the thousand after a long one or a definition, whose heading
# names a few of them (attack53b: each name was looked for among all those before it).
PYTHON_DOCUMENTS = {
    "python long assignments": lambda n: "".join(_long_assignment(i) for i in range(n // 10)),
    "python constants after a long one": lambda n: (
        _long_assignment(0) + "".join(f"x{i} = {i}\n" for i in range(n * 2))
    ),
    "python constants after a definition": lambda n: (
        "def f():\n    pass\n" + "".join(f"x{i} = {i}\n" for i in range(n * 2))
    ),
}


@pytest.mark.parametrize("shape", sorted(PYTHON_DOCUMENTS))
def test_python_sections_grow_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, PYTHON_DOCUMENTS[shape], "a.py")


# A Jinja template read as YAML (formats/code.py `_tags_blanked`): a comment never closed,
# one line of tags, tags never closed on a line of their own by the thousand.
TEMPLATE_DOCUMENTS = {
    "template open comment": lambda n: "{#\n" + "k: 1\n" * (n * 4),
    "template one line of tags": lambda n: "{% x %}" * (n * 4) + "\nk: 1\n",
    "template unclosed tags": lambda n: "{{ x }} {%\n%}\n" * (n * 2),
    "template open tags on a line": lambda n: "{{ x }}{%" * (n * 4) + "\n",
}


@pytest.mark.parametrize("shape", sorted(TEMPLATE_DOCUMENTS))
def test_yaml_templates_grow_linearly(shape: str) -> None:
    _text_file_grows_linearly(shape, TEMPLATE_DOCUMENTS[shape], "values.yaml.j2")


# OpenDocument spreadsheets (formats/ods.py, attack58b): rows by the thousand, sheets by
# the thousand, a cell of many spans, empty rows between two, a row repeated n times.
ODS_DOCUMENTS = {
    "ods rows": lambda n: _ods_rows(
        ("<table:table-row>" + _ods_cell("a") * 2 + "</table:table-row>") * n
    ),
    "ods sheets": lambda n: "".join(
        f'<table:table table:name="s{i}"><table:table-row>{_ods_cell("a")}</table:table-row>'
        "</table:table>"
        for i in range(n)
    ),
    "ods spans": lambda n: _ods_rows(
        "<table:table-row>" + _ods_cell("<text:span>a</text:span> " * n) + "</table:table-row>"
    ),
    "ods empty rows": lambda n: _ods_rows(
        "<table:table-row><table:table-cell/></table:table-row>" * n
        + "<table:table-row>"
        + _ods_cell("a")
        + "</table:table-row>"
    ),
    "ods repeated row": lambda n: _ods_rows(
        f'<table:table-row table:number-rows-repeated="{n}">{_ods_cell("a b")}</table:table-row>'
    ),
}


def _ods_cell(text: str) -> str:
    return f"<table:table-cell><text:p>{text}</text:p></table:table-cell>"


def _ods_rows(rows: str) -> str:
    return f'<table:table table:name="S">{rows}</table:table>'


@pytest.mark.parametrize("shape", sorted(ODS_DOCUMENTS))
def test_spreadsheets_grow_linearly(shape: str) -> None:
    import io
    import zipfile

    from ragd.ingest import loaders

    def make(n: int) -> bytes:
        content = (
            "<office:document-content"
            ' xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
            ' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
            ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body>'
            f"<office:spreadsheet>{ODS_DOCUMENTS[shape](n)}</office:spreadsheet></office:body>"
            "</office:document-content>"
        )
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
            package.writestr("content.xml", content)
        return out.getvalue()

    def run(data: bytes) -> object:
        return chunking.chunk_document(loaders.parse("a.ods", data))

    size, seen = _size_taking(run, make, RUN_SECONDS, 64_000)
    ratio = growth_ratio(run, make(size), make(size * 4), small_seen=seen)
    assert ratio <= GROWTH_LIMIT, f"{shape}: 4× the spreadsheet took {ratio:.1f}× the time"
