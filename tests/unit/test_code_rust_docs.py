"""Rust read as rustdoc shows it (formats.rust_docs): module docs (`//!`, `/*! */`) are
Markdown whose headings head the file's sections, an item's docs (`///`, `/** */`) are
its description under its signature with their own headings below it, and code inside a
doc comment is never taken for one of the file's definitions."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.rust_lexer import lex_lines
from ragd.ingest.loaders import parse
from tests.support.growth import growth_ratio

LIB = b"""// Copyright the pump authors.

//! Pumps water between tanks.
//!
//! # Usage
//!
//! Add `pumps` to your `Cargo.toml`.
//!
//! # Syntax
//!
//! ## Grouping and flags
//!
//! The `i` flag makes a match case-insensitive.

#![deny(missing_docs)]
use std::io;

/// Makes a pump that moves `rate` litres a minute.
///
/// # Examples
///
/// ```
/// let pump = Pump::new(3);
/// ```
///
/// # Panics
///
/// When `rate` is zero.
#[inline]
pub fn new(rate: u32) -> Pump {
    // A rate of zero would never fill a tank.
    assert!(rate > 0);
    Pump { rate }
}

// Not documentation: an ordinary comment.
pub struct Pump {
    rate: u32,
}
"""


def _sections(data: bytes, name: str = "src/lib.rs") -> dict[str, str]:
    """Heading path → the text of its chunks, joined."""
    sections: dict[str, str] = {}
    for chunk in chunk_document(parse(name, data)):
        sections[chunk.heading_path] = sections.get(chunk.heading_path, "") + chunk.text
    return sections


def test_module_doc_headings_are_the_files_heading_paths() -> None:
    sections = _sections(LIB)
    assert list(sections) == [
        "(untitled)",
        "Usage",
        "Syntax > Grouping and flags",
        "module code (attributes, use)",
        "pub fn new",
        "pub fn new > Examples",
        "pub fn new > Panics",
        "pub struct Pump",
    ]
    assert sections["Syntax > Grouping and flags"] == (
        "The `i` flag makes a match case-insensitive."
    )
    assert "Pumps water between tanks." in sections["(untitled)"]
    assert "//!" not in "".join(sections.values())  # the markers are not text
    # The code after the docs is not read as their last section's.
    assert "#![deny(missing_docs)]\nuse std::io;" in sections["module code (attributes, use)"]


def test_an_items_docs_are_its_description_under_its_heading() -> None:
    sections = _sections(LIB)
    item = sections["pub fn new"]
    assert item.startswith("Makes a pump that moves `rate` litres a minute.")
    assert "#[inline]\npub fn new(rate: u32) -> Pump {" in item  # its code, under it
    assert "let pump = Pump::new(3);" in sections["pub fn new > Examples"]
    assert sections["pub fn new > Panics"] == "When `rate` is zero."
    assert "///" not in "".join(sections.values())


def test_an_ordinary_comment_stays_code() -> None:
    sections = _sections(LIB)
    assert "// A rate of zero would never fill a tank." in sections["pub fn new"]
    assert sections["pub struct Pump"].startswith(
        "```rust\n// Not documentation: an ordinary comment.\npub struct Pump {"
    )
    assert "// Copyright the pump authors." in sections["(untitled)"]


BLOCK_DOCS = b"""/*!
Matching in linear time.

# Example: find a date

```rust
use regex::Regex;

fn main() {
    let re = Regex::new(r"^\\d{4}$").unwrap();
}
```
*/

/**
 * A compiled pattern.
 *
 * # Errors
 *
 * When the pattern is too big.
 */
pub struct Regex;
"""


def test_block_doc_comments_and_their_examples() -> None:
    document = parse("src/lib.rs", BLOCK_DOCS)
    sections = _sections(BLOCK_DOCS)
    # `fn main` is the doc's example, not one of the file's definitions.
    assert list(sections) == [
        "(untitled)",
        "Example: find a date",
        "pub struct Regex",
        "pub struct Regex > Errors",
    ]
    assert "```rust\nuse regex::Regex;\n\nfn main() {" in sections["Example: find a date"]
    assert sections["pub struct Regex"].startswith("A compiled pattern.\n\n```rust\npub struct")
    assert sections["pub struct Regex > Errors"] == "When the pattern is too big."
    assert "/*!" not in document.text and " * " not in document.text


def test_doc_sections_keep_the_files_line_numbers() -> None:
    chunks = {c.heading_path: c for c in chunk_document(parse("src/lib.rs", LIB))}
    lines = LIB.decode().split("\n")
    assert chunks["Syntax > Grouping and flags"].lines == (13, 13)
    assert "case-insensitive" in lines[12]
    assert chunks["pub fn new > Panics"].lines == (28, 28)
    assert "When `rate` is zero." in lines[27]


def test_a_fence_a_doc_comment_leaves_open_ends_with_it() -> None:
    data = (
        b"/// Broken example:\n///\n/// ```\n/// let x = 1;\npub fn one() {}\n\npub fn two() {}\n"
    )
    sections = _sections(data)
    assert list(sections) == ["pub fn one", "pub fn two"]
    assert "pub fn one() {}" in sections["pub fn one"]


METHODS = b"""/// A water pump.
pub struct Pump;

/// Starting and stopping.
impl Pump {
    /// Starts the pump.
    ///
    /// # Errors
    ///
    /// When the tank is empty.
    pub fn start(&self) -> Result<(), Empty> {
        // Check the level first.
        self.check()
    }

    fn check(&self) -> Result<(), Empty> {
        Ok(())
    }
}
"""


def test_methods_in_an_impl_are_items_under_it() -> None:
    sections = _sections(METHODS)
    assert list(sections) == [
        "pub struct Pump",
        "impl Pump",
        "impl Pump > pub fn start",
        "impl Pump > pub fn start > Errors",
        "impl Pump > fn check",
    ]
    assert sections["impl Pump"] == "Starting and stopping.\n\n```rust\nimpl Pump {\n```"
    start = sections["impl Pump > pub fn start"]
    assert start.startswith("Starts the pump.\n\n```rust\n    pub fn start(&self)")
    assert "// Check the level first." in start
    assert sections["impl Pump > pub fn start > Errors"] == "When the tank is empty."


def test_a_fence_opened_by_a_doc_attribute_keeps_its_example_code() -> None:
    """clap opens an example's fence between two `///` runs with one `doc` attribute per
    feature; the example's hidden `# use` line is neither a heading nor shown (rustdoc
    hides it, as in any Rust example: test_hidden_lines_of_a_rust_example_are_left_out)."""
    data = b"""/// Sets the value name.
///
#[cfg_attr(not(feature = "help"), doc = " ```ignore")]
#[cfg_attr(feature = "help", doc = " ```")]
/// # use clap::{Command, Arg};
/// let m = Command::new("prog");
/// ```
pub fn value_name() {}
"""
    sections = _sections(data)
    assert list(sections) == ["pub fn value_name"]
    assert "```ignore\nlet m = Command::new" in sections["pub fn value_name"]


RAW_STRING = b"""/// The header a generated C file opens with.
pub fn header() -> &'static str {
    r#"
/** Generated by pumpgen: do not edit.
"#
}

/// Renders a pump's report.
///
/// # Examples
///
/// The report names the tank it fills.
pub fn report() -> String {
    String::new()
}
"""


def test_a_block_opener_inside_a_raw_string_leaves_the_later_docs_docs() -> None:
    """A `/**` at the start of a line inside `r#"…"#` (a generator's C header) is never
    closed: it is no comment, and the doc comments after it are still docs (before, the
    reader skipped to the file's end from it, and `report`'s docs were code)."""
    sections = _sections(RAW_STRING)
    assert list(sections) == ["pub fn header", "pub fn report", "pub fn report > Examples"]
    assert sections["pub fn report"].startswith("Renders a pump's report.\n\n```rust\n")
    assert sections["pub fn report > Examples"] == "The report names the tank it fills."
    assert "/** Generated by pumpgen: do not edit." in sections["pub fn header"]


HIDDEN = b"""/// Formats a gauge.
///
/// ```
/// # use std::fmt::{self, Debug, Display};
/// # fn main() -> anyhow::Result<()> {
/// let gauge = Gauge::new();
/// ## this line shows one hash
/// #
/// # Ok(())
/// # }
/// ```
///
/// ```text
/// # kept: not Rust
/// ```
///
/// ```no_run
///     # type T = ();
/// let t: T = ();
/// ```
pub fn gauge() {}
"""


def test_hidden_lines_of_a_rust_example_are_left_out() -> None:
    """rustdoc hides an example's `# ` lines and a lone `#`, and shows `##` as `#`; a
    ```text fence is not Rust and is shown as written."""
    text = _sections(HIDDEN)["pub fn gauge"]
    assert "let gauge = Gauge::new();" in text
    assert "# this line shows one hash" in text
    assert "## this line" not in text
    for hidden in ("use std::fmt", "fn main()", "Ok(())", "type T", "# }"):
        assert hidden not in text
    assert "# kept: not Rust" in text
    assert "let t: T = ();" in text


INCLUDED = b"""#![doc = include_str!("../README.md")]
//!
//! # Example
//!
//! ```rust
#![doc = include_str!("../examples/demo.rs")]
//! ```

#[doc = "Makes a pump.\\n\\nIts rate is in \\"litres\\" a minute."]
pub fn pump() {}
"""


def test_doc_attributes_are_docs_and_an_included_file_is_named() -> None:
    """rustdoc shows `#[doc = "\u2026"]` as it shows `///`, and an `include_str!`'d file's text
    where the attribute is: here a line naming that file from the folder's root (the file
    is not read, see formats.rust_attributes), inside the fence it fills."""
    sections = _sections(INCLUDED)
    reference = "(documentation included from README.md)"  # the page's lead: its title too
    assert list(sections) == [reference, "Example", "pub fn pump"]
    assert sections[reference] == reference
    assert sections["Example"] == ("```rust\n(documentation included from examples/demo.rs)\n```")
    assert sections["pub fn pump"].startswith(
        'Makes a pump.\n\nIts rate is in "litres" a minute.\n\n```rust\npub fn pump() {}'
    )
    assert "include_str" not in "".join(sections.values())


SHAPES = b"""/// Settings of a pump.
#[derive(Debug)]
pub struct Config {
    /// Litres a minute.
    ///
    /// # Examples
    ///
    /// A rate of 3 fills a tank in an hour.
    pub rate: u32,
    #[serde(default)]
    /// Where the water goes.
    pub(crate) tank: String,
    spare: bool,
}

/// What a pump does.
pub enum Mode {
    /// Fills the tank.
    Fill,
    /// Drains it, at a rate.
    Drain {
        /// Litres a minute.
        rate: u32,
    },
    Idle,
}
"""


def test_field_and_variant_docs_are_under_their_type() -> None:
    """rustdoc lists a struct's fields and an enum's variants under the type, each with
    its docs: they are sections a level down, as an impl's methods are."""
    sections = _sections(SHAPES)
    assert list(sections) == [
        "pub struct Config",
        "pub struct Config > field rate",
        "pub struct Config > field rate > Examples",
        "pub struct Config > field tank",
        "pub enum Mode",
        "pub enum Mode > variant Fill",
        "pub enum Mode > variant Drain",
        "pub enum Mode > variant Drain > field rate",
    ]
    assert sections["pub struct Config"] == (
        "Settings of a pump.\n\n```rust\n#[derive(Debug)]\npub struct Config {\n```"
    )
    assert sections["pub struct Config > field rate"] == (
        "Litres a minute.\n\n```rust\n    pub rate: u32,\n```"
    )
    tank = sections["pub struct Config > field tank"]
    assert tank.startswith("Where the water goes.\n\n```rust\n    #[serde(default)]\n```")
    assert "    pub(crate) tank: String,\n    spare: bool," in tank  # undocumented: code
    assert sections["pub enum Mode > variant Drain > field rate"].startswith("Litres a minute.")
    assert "Idle," in sections["pub enum Mode > variant Drain > field rate"]
    assert "///" not in "".join(sections.values())


STRINGS = b"""/// Expected output of the generator.
pub fn expected() -> &'static str {
    r#"
/// not a doc: the generated file's text
//! nor this
fn not_an_item() {}
"#
}

pub fn quotes<'a>(text: &'a str) -> (char, char, &'a str) {
    let escaped = "a \\" quote
/// still the string
";
    ('"', '\\'', escaped)
}

/* A comment /* nested */
/// not a doc either
fn commented_out() {}
*/

/// Renders a pump's report.
pub fn report() {}
"""


def test_doc_markers_inside_strings_and_comments_are_their_text() -> None:
    """`///` and `//!` inside a raw string, a string, or a (nested) block comment are
    not docs, and a definition there is no item; char literals (`'"'`, `'\\''`) and
    lifetimes (`'a`) open no string."""
    sections = _sections(STRINGS)
    assert list(sections) == ["pub fn expected", "pub fn quotes", "pub fn report"]
    assert "/// not a doc: the generated file's text\n//! nor this" in sections["pub fn expected"]
    assert "/// still the string" in sections["pub fn quotes"]
    assert "/// not a doc either\nfn commented_out() {}" in sections["pub fn quotes"]
    assert sections["pub fn report"].startswith("Renders a pump's report.\n\n```rust\n")


NESTED_EXAMPLES = b"""/// Steps:
///
/// 1. Build it:
///
///    - with a pattern:
///
///          ```
///          # use regex::Regex;
///          let re = Regex::new("a").unwrap();
///          ```
///
/// > ```
/// > # use regex::Regex;
/// > let quoted = 1;
/// > ```
///
/// An indented example:
///
///     # fn main() {
///     let indented = 2;
///     # }
pub fn steps() {}
"""


def test_hidden_lines_of_nested_and_indented_examples_are_left_out() -> None:
    """rustdoc hides an example's `# ` lines wherever pulldown-cmark finds the example:
    in a list item (a fence indented four past its item's text is indented code), in a
    block quote, as an indented code block."""
    text = _sections(NESTED_EXAMPLES)["pub fn steps"]
    for shown in ('let re = Regex::new("a").unwrap();', "> let quoted = 1;", "let indented = 2;"):
        assert shown in text
    for hidden in ("use regex::Regex", "fn main()", "# }"):
        assert hidden not in text


@pytest.mark.parametrize(
    "build",
    [
        lambda n: "/*" * n + "\nfn a() {}\n",  # nested block comments never closed
        lambda n: "/*\n" * n + "fn a() {}\n",
        lambda n: 'let s = r###"\n' * n + "/// doc\nfn a() {}\n",  # raw strings never closed
        lambda n: '"\n' * n,  # strings never closed
        # Many tokens on one line: each one's place in its line was copied (quadratic).
        lambda n: "'a'" * n,
        lambda n: "/**/" * n,
        lambda n: '""' * n,
        lambda n: " " * n + "/**/ " * n,  # (and far from the line's start)
    ],
)
def test_hostile_rust_is_lexed_in_time_linear_in_its_size(build: Callable[[int], str]) -> None:
    assert lex_lines(build(3).split("\n")).in_code  # (it is read)
    # CPU time, the collector off, measured again at the limit (tests/support/growth.py):
    # timed alone, best of two, a 4× input once measured 8.1× on a loaded machine.
    ratio = growth_ratio(lex_lines, build(20_000).split("\n"), build(80_000).split("\n"))
    assert ratio < 8  # 4× the input: 4× the time if linear, 16× if quadratic
