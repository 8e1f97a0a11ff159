"""The lines of a doc comment's Rust example that rustdoc shows.

rustdoc compiles a doc comment's Rust examples as tests and hides the lines a test needs
but a reader does not: a line that opens (after blanks) with `# `, or is a lone `#`
(`# use std::fmt::Debug;`, `# fn main() -> anyhow::Result<()> {`). `##` opening a line is
an escaped `#`, shown as one `#` (a `#[derive]` or a `##` in a raw string). Indexed as
written, a keyless answer quoted the hidden scaffolding as if it were the example.

A fence is a Rust example when its info string is empty or is only rustdoc's own
attributes (`ignore`, `no_run`, `should_panic`, `edition2018`, …), or names `rust`
among others; any other word (`text`, `toml`, `console`, `notrust`) makes it something
else, whose lines are shown as written, as rustdoc shows them.
"""

from __future__ import annotations

import re

# rustdoc's attributes of a Rust code block (LangString in rustdoc's source, and the
# rustdoc book's "Attributes"): any other word names another language.
_RUST_ATTRIBUTES = frozenset(
    {"rust", "ignore", "no_run", "should_panic", "compile_fail", "test_harness", "allow_fail"}
    | {"standalone_crate", "custom"}
)
_RUST_ATTRIBUTE = re.compile(r"edition\d+|ignore-[\w-]+|E\d{4}")
_INFO_WORDS = re.compile(r"[^\s,{}]+")
_QUOTED = re.compile(r"(?:[ ]{0,3}>)+[ ]?")  # a block quote's markers, nested ones too
_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")


def is_rust_info(info: str) -> bool:
    """Whether a fence whose info string is `info` holds a Rust example for rustdoc."""
    words = _INFO_WORDS.findall(info)
    if "rust" in words:
        return True
    return all(w in _RUST_ATTRIBUTES or _RUST_ATTRIBUTE.fullmatch(w) for w in words)


def shown(line: str) -> str | None:
    """`line` of a Rust example as rustdoc shows it, or None when rustdoc hides it."""
    bare = line.strip()
    if bare.startswith("##"):
        return line.replace("##", "#", 1)
    if bare == "#" or bare.startswith(("# ", "#\t")):
        return None
    return line


class RustExamples:
    """Fed a doc comment's lines with whether each is fenced code (`Fences.feed`), the
    open fence's run before and after it, and whether `Fences` found it indented four or
    more past its container: which lines rustdoc shows, and as what. rustdoc tests (and
    hides the lines of) every Rust example pulldown-cmark finds, wherever it sits: a
    fence in a list item or a block quote (`> ```` … `> # use regex::Regex;`), and an
    indented code block (no info string: Rust), a fence indented four past its list
    item's text among them. The fences `Fences` tracks are read from it; a block quote's
    (which the chunker does not need) and indented code are followed here."""

    def __init__(self) -> None:
        self.rust = False  # the open fence holds a Rust example
        self.quoted = ""  # the run of a fence open inside a block quote
        self.quoted_rust = False
        self.indented = False  # the last line that was not blank was indented code
        self.after_blank = True  # the last line was blank (or there was none)

    def line(
        self, line: str, fenced: bool, run_before: str, run_after: str, deep: bool = False
    ) -> str | None:
        blank = not line.strip()
        shown_line = self._shown(line, fenced, run_before, run_after, deep, blank)
        self.after_blank = blank
        return shown_line

    def _shown(
        self, line: str, fenced: bool, run_before: str, run_after: str, deep: bool, blank: bool
    ) -> str | None:
        if fenced:
            self.indented = False
            if not run_before and run_after:  # an opener: its info string decides
                self.rust = is_rust_info(line[line.find(run_after) + len(run_after) :])
                return line
            if run_before and run_after == run_before and self.rust:
                return shown(line)  # a line inside a Rust example
            return line
        quote = _QUOTED.match(line)
        if self.quoted and quote is None:
            self.quoted = ""  # a line out of the quote ends it, and its fence
        if quote is not None:
            self.indented = False
            return self._quoted(line, quote.end())
        if deep and (self.after_blank or self.indented):
            self.indented = True  # indented code: a Rust example with no info string
            return shown(line)
        if not blank:
            self.indented = False
        return line

    def _quoted(self, line: str, at: int) -> str | None:
        """A line of a block quote (its text from `at`): a fence's, or one inside it."""
        rest = line[at:]
        fence = _FENCE.match(rest)
        if not self.quoted:
            info = rest[fence.end() :] if fence else ""
            if fence is not None and (fence.group(1)[0] == "~" or "`" not in info):
                self.quoted = fence.group(1)
                self.quoted_rust = is_rust_info(info)
            return line
        run = self.quoted
        closer = fence and fence.group(1)[0] == run[0] and len(fence.group(1)) >= len(run)
        if closer and fence and not rest[fence.end() :].strip():
            self.quoted = ""
            return line
        if not self.quoted_rust:
            return line
        text = shown(rest)
        return None if text is None else line[:at] + text
