"""A Markdown heading path reads as the rendered title (ingest.heading_text): entities
decoded, backslash escapes and emphasis markers gone, links their text, code spans kept
with their backticks as chunk text shows code."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse

README = """# Anyhow&ensp;¯\\\\\\_(°ペ)\\_/¯

This library provides `anyhow::Error`.

## Details &mdash; **bold**, *emphasis* &amp; [a link](https://example.org/x)

Text under the details.

## The `__init__` of `snake_case` and ~~old~~ new

Text under the code spans.

## Kept: a_b_c, 2 * 3 * 4, \\`not code\\`, and ![logo](logo.png)

Text under the literals.

```text
# &amp; a **comment** in a fence
```
"""


def _paths(name: str, text: str) -> list[str]:
    paths: list[str] = []
    for chunk in chunk_document(parse(name, text.encode())):
        if chunk.heading_path not in paths:
            paths.append(chunk.heading_path)
    return paths


def test_markdown_heading_paths_read_as_the_rendered_titles() -> None:
    assert _paths("README.md", README) == [
        "Anyhow ¯\\_(°ペ)_/¯",
        "Anyhow ¯\\_(°ペ)_/¯ > Details — bold, emphasis & a link",
        "Anyhow ¯\\_(°ペ)_/¯ > The `__init__` of `snake_case` and old new",
        "Anyhow ¯\\_(°ペ)_/¯ > Kept: a_b_c, 2 * 3 * 4, `not code`, and logo",
    ]
    fenced = [c.text for c in chunk_document(parse("README.md", README.encode()))]
    assert any("# &amp; a **comment** in a fence" in text for text in fenced)


def test_a_rust_doc_heading_reads_as_its_rendered_title() -> None:
    source = b"""//! Errors.
//!
//! # Details &mdash; the `Error` **type**
//!
//! It boxes any error.

pub struct Error;
"""
    paths = _paths("src/lib.rs", source.decode())
    assert "Details — the `Error` type" in paths


def test_a_badge_in_a_heading_reads_as_its_alt_text() -> None:
    """An image inside a link (threadpoolctl's README title) is read link by link."""
    badge = "# Thread-pool Controls [![Build Status](https://ci.example/b.svg?x=1)](https://ci.example)\n\nText.\n"
    assert _paths("threadpoolctl.md", badge) == ["Thread-pool Controls Build Status"]


def test_a_heading_s_attribute_list_is_not_part_of_its_title() -> None:
    """An attribute list (`attr_list` in MkDocs and Python-Markdown, kramdown's `{: …}`,
    Pandoc's `{#id .class}`) sets the heading's id or class; the page shows none of it.
    pymdown-extensions 10.12's release notes were cited `8.0 Migration Notes {: #\\8.0}`
    (newuser60)."""
    page = (
        "# 8.0 Migration Notes {: #\\8.0}\n\nIntro.\n\n"
        "## Become a Sponsor :octicons-heart-fill-16:{: .heart-throb}\n\nText.\n\n"
        "## Install {#install .wide data-x=1}\n\nText.\n\n"
        "## Using {name} and `{: #kept}`\n\nText.\n"
    )
    assert _paths("8.0.md", page) == [
        "8.0 Migration Notes",
        "8.0 Migration Notes > Become a Sponsor :octicons-heart-fill-16:",
        "8.0 Migration Notes > Install",
        "8.0 Migration Notes > Using {name} and `{: #kept}`",
    ]
