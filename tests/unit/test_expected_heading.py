"""An eval question names the section it expects as a reader sees it."""

from __future__ import annotations

from ragd.harness.evaluation import Expected


def test_a_section_matches_with_or_without_the_files_title_above_it() -> None:
    wanted = Expected("pyyaml/README.md", "Installation")
    assert wanted.matches("pyyaml/README.md", "Installation")
    assert wanted.matches("pyyaml/README.md", "Installation > From source")
    assert wanted.matches("pyyaml/README.md", "PyYAML > Installation")
    assert wanted.matches("pyyaml/README.md", "PyYAML > Installation > From source")


def test_other_sections_and_files_do_not_match() -> None:
    wanted = Expected("pyyaml/README.md", "Installation")
    assert not wanted.matches("pyyaml/README.md", "PyYAML > Testing")
    assert not wanted.matches("pyyaml/README.md", "Guide > Setup > Installation")
    assert not wanted.matches("pyyaml/README.md", "Installation notes")
    assert not wanted.matches("other/README.md", "Installation")
    assert not Expected("a.md", "Installation", "libyaml").matches("a.md", "Installation", "pip")


def test_a_label_written_from_a_raw_markdown_heading_names_the_rendered_one() -> None:
    """The frozen questions of pydocs name sse-starlette's title as the chunker wrote it
    before it rendered Markdown headings (link syntax and all); since chunker 59 the chunk
    says "Server-Sent Events for Starlette": the label must still name it, unchanged."""
    raw = "Server-Sent Events for [Starlette](https://github.com/encode/starlette)"
    label = Expected("sse-starlette.md", f"{raw} > Quick Start")
    assert label.matches("sse-starlette.md", "Server-Sent Events for Starlette > Quick Start")
    assert label.matches("sse-starlette.md", f"{raw} > Quick Start")  # as written still
    assert not label.matches("sse-starlette.md", "Server-Sent Events for Starlette > Usage")
    # a reST title is not Markdown: `__init__` is matched as written
    assert Expected("a.rst", "__init__ method").matches("a.rst", "__init__ method")
