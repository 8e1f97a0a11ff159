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
    """Fed a doc comment's lines with whether each is fenced code (`Fences.feed`), and
    the open fence's run before and after it: which lines rustdoc shows, and as what."""

    def __init__(self) -> None:
        self.rust = False  # the open fence holds a Rust example

    def line(self, line: str, fenced: bool, run_before: str, run_after: str) -> str | None:
        if fenced and not run_before and run_after:  # an opener: its info string decides
            self.rust = is_rust_info(line[line.find(run_after) + len(run_after) :])
            return line
        if fenced and run_before and run_after == run_before and self.rust:
            return shown(line)  # a line inside a Rust example
        return line
