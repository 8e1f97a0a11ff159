"""R Markdown and R are read as the rendered vignette shows them.

dplyr 1.0.10's vignettes as Debian 12 ships them (r-cran-dplyr, `doc/*.Rmd` and the `.R`
code knitr tangled out of them) were not indexed at all: `*.Rmd` and `*.R` were in no
default pattern (newuser65). Read as plain Markdown, each `.Rmd` opened with its YAML
header as text (`output: rmarkdown::html_vignette`, `%\\VignetteIndexEntry{…}`) under
`(untitled)`; now its title heads the text above its first section, the shown keys are
text, knitr's own are dropped, and a chunk's header `{r, echo = FALSE}` is a plain fence."""

from __future__ import annotations

from fnmatch import fnmatch

import pytest

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse
from ragd.ingest.r_markdown import r_markdown_shown
from tests.support.code_sections import assert_every_line_kept, sections_of

VIGNETTE_RMD = b"""---
title: "Two-table verbs"
description: >
  Most dplyr verbs work with a single data set.
output: rmarkdown::html_vignette
vignette: >
  %\\VignetteIndexEntry{Two-table verbs}
  %\\VignetteEngine{knitr::rmarkdown}
  \\usepackage[utf8]{inputenc}
---

```{r, echo = FALSE, message = FALSE}
library(dplyr)
```

It's rare that a data analysis involves only a single table.

## Mutating joins

```{r}
# Drop unimportant variables
flights2 %>% left_join(airlines)
```
"""

RESCALE_R = b"""library(dplyr)

#' Rescale a vector to 0..1
#' @param x a numeric vector
rescale01 <- function(x) {
  rng <- range(x, na.rm = TRUE)
  (x - rng[1]) / (rng[2] - rng[1])
}

`%+%` = function(a, b) paste(a, b)
"""


def test_a_vignette_s_header_is_its_title_and_shown_text_not_knitr_s_settings() -> None:
    sections = sections_of("doc/two-table.Rmd", VIGNETTE_RMD)
    intro = sections["Two-table verbs"]
    assert "Most dplyr verbs work with a single data set." in intro
    assert "only a single table" in intro
    assert "```r\nlibrary(dplyr)" in intro  # the chunk's header a plain R fence
    text = "".join(sections.values())
    for chrome in ("html_vignette", "VignetteIndexEntry", "usepackage", "echo = FALSE"):
        assert chrome not in text
    joins = sections["Two-table verbs > Mutating joins"]
    assert "# Drop unimportant variables" in joins  # an R comment, no heading
    assert not any("Drop unimportant" in path for path in sections)


def test_a_header_that_is_not_yaml_stays_text() -> None:
    text = "---\ntitle: [unclosed\n---\nBody.\n"
    assert r_markdown_shown(text) == text


def test_an_r_function_is_a_section_with_its_roxygen_comment() -> None:
    sections = sections_of("R/rescale.R", RESCALE_R)
    assert "#' Rescale a vector to 0..1" in sections["function rescale01"]
    assert "paste(a, b)" in sections["function `%+%`"]
    assert_every_line_kept("R/rescale.R", RESCALE_R)


def test_r_markdown_and_r_are_included_by_default() -> None:
    for name in ("two-table.Rmd", "two-table.R", "rescale.r"):  # patterns match in any case
        assert any(fnmatch(name.lower(), p.lower()) for p in DEFAULT_INCLUDE), name


def test_sections_at_level_one_go_under_the_title_but_chunk_comments_stay_code() -> None:
    """base.Rmd's `# Overview` had been the title's sibling, its sections' paths without
    `dplyr <-> base R`; its chunks' `# to front` comments are R, left as written."""
    text = (
        '---\ntitle: "dplyr <-> base R"\n---\n\n# Overview\n\nText.\n\n```{r}\n# to front\nx\n```\n'
    )
    shown = r_markdown_shown(text)
    assert "## Overview" in shown and "\n# to front\n" in shown
    sections = sections_of("doc/base.Rmd", text.encode())
    assert "Text." in sections["dplyr <-> base R > Overview"]


def _alias_bomb(levels: int) -> str:
    """A header whose `author` names, through YAML anchors and aliases, 10**levels copies
    of one word in a dozen lines: a parser that builds the tree expands every alias."""
    lines = ["---", 'a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, levels)]
    return "\n".join([*lines, f"author: *a{levels - 1}", "title: Bomb", "---", "", "Some text."])


def test_a_header_with_aliases_stays_text_and_costs_its_own_size() -> None:
    # Anchors and aliases are no vignette's front matter, and expanded they multiply a
    # dozen lines into millions of words (six levels: 3 MB; nine would not finish). The
    # header is left as the text it is, which is what the file says.
    text = _alias_bomb(6)
    shown = r_markdown_shown(text)
    assert len(shown) <= len(text) + 100
    assert "*a5" in shown and "Some text." in shown


def test_a_header_over_its_size_stays_text() -> None:
    text = "---\ntitle: " + "word " * 40_000 + "\n---\n\nSome text."
    shown = r_markdown_shown(text)
    assert not shown.startswith("# word")
    assert "Some text." in shown


# A Quarto page as great_tables 1.1.0's user guide writes them (`user_guide/*.qmd`): a
# callout, a layout grid and a folded figure chunk with its options.
GUIDE_QMD = b"""---
title: Formatting Values
jupyter: python3
---

Raw data values in a table are rarely in their ideal presentation form.

## Formatting Cells

::: {.callout-note}
The example below requires the Pandas library to be installed.
:::

:::{.callout-tip title="Picking a formatter"}
Use `fmt_number()` for decimals.
:::

::::: {.grid}
:::{.g-col-lg-6 .g-col-12}
```{python}
#| code-fold: true
#| code-summary: "Show the code"

gt_ex = GT(exibble)
#| not an option: the chunk's code has begun
```
:::
:::::
"""


def test_quarto_is_included_and_read_as_the_page_shows_it() -> None:
    assert any(fnmatch("formatting.qmd", p.lower()) for p in DEFAULT_INCLUDE)
    sections = sections_of("user_guide/07-formatting-values.qmd", GUIDE_QMD)
    assert "rarely in their ideal presentation form" in sections["Formatting Values"]
    cells = sections["Formatting Values > Formatting Cells"]
    # a callout shows its title (its kind when it has none); layout fences show nothing
    assert "**Note**\nThe example below requires the Pandas library" in cells
    assert "**Picking a formatter**\nUse `fmt_number()`" in cells
    assert ":::" not in cells and "g-col" not in cells and "callout" not in cells
    # the chunk's options are Quarto's instructions; the code, and a `#|` line in it, stay
    assert "code-fold" not in cells and "Show the code" not in cells
    assert "gt_ex = GT(exibble)" in cells and "#| not an option" in cells


def test_r_markdown_reads_fenced_divs_too_and_keeps_each_chunk_on_its_lines() -> None:
    text = b'---\ntitle: "Joins"\n---\n\n::: {.callout-warning}\nKeys must match.\n:::\n'
    sections = sections_of("doc/joins.Rmd", text)
    assert sections["Joins"].strip() == "**Warning**\nKeys must match."


def test_every_chunk_keeps_the_file_lines_it_came_from() -> None:
    # The shown header takes the header's own lines (it had taken two, so every chunk
    # below a five-line header had named lines three too early), and a blanked fence or
    # option line keeps its place.
    lines = GUIDE_QMD.decode().split("\n")
    shown = r_markdown_shown(GUIDE_QMD.decode()).split("\n")
    assert len(shown) == len(lines)
    chunks = chunk_document(parse("user_guide/07-formatting-values.qmd", GUIDE_QMD))
    assert len(chunks) >= 2
    for chunk in chunks:
        assert chunk.lines is not None
        first, last = chunk.lines
        assert shown[first - 1].strip() and shown[first - 1].strip() in chunk.text, chunk
        assert shown[last - 1].strip() and shown[last - 1].strip() in chunk.text, chunk
    cells = next(c for c in chunks if c.heading[-1] == "Formatting Cells")
    assert cells.lines is not None
    assert lines[cells.lines[0] - 1] == "::: {.callout-note}"  # shown as its title


@pytest.mark.parametrize(
    ("header", "shown"),
    [
        ("date: 2024-02-30", "2024-02-30"),  # a typo: no such day
        ("date: 2024-13-01", "2024-13-01"),
        ("date: 2023-01-05T10:00:00Z", "2023-01-05T10:00:00Z"),
        ("author: " + "1" * 5_000, "1" * 5_000),  # past int()'s 4,300 digits
        ("subtitle: 007", "007"),  # as written, not the number 7
        ("author: ~", None),  # null: no words
    ],
)
def test_a_header_s_values_are_shown_as_written_and_never_fail_the_file(
    header: str, shown: str | None
) -> None:
    """A header is text the page shows, each value as written: read as YAML's types, a
    date that is no day (`2024-02-30`, a typo) or a number past int()'s 4,300 digits had
    raised ValueError, and the whole vignette was 'unreadable'; `007` had shown as 7."""
    text = f"---\ntitle: Report\n{header}\n---\n\nSome text.\n"
    document = parse("doc/report.Rmd", text.encode())
    assert document.text.startswith("# Report\n")
    assert "Some text." in document.text
    if shown is None:
        assert "~" not in document.text
    else:
        assert f"\n{shown}\n" in document.text


def test_a_header_nested_past_the_parser_s_depth_stays_text() -> None:
    """`title: [[[[…` 5,000 deep had raised RecursionError in the YAML composer: the whole
    file unreadable. It is no front matter: the text it is."""
    text = "---\ntitle: " + "[" * 5_000 + "\n---\n\nSome text.\n"
    document = parse("doc/deep.Rmd", text.encode())
    assert "Some text." in document.text and "[[[[" in document.text


# Written here in the shapes of great_tables 1.1.0's and quartodoc 0.11.1's pages (their
# sdists' `docs/`): an include of another page, a video under a heading, an embedded
# notebook cell, a page break over a rule, a variable inline, keys to press, an escaped
# shortcode in prose, and one inside a code block, which Quarto fills in too.
SHORTCODES = b"""---
title: Rendering tables
---

{{< include get-started/overview.qmd >}}

## Interactive tables

The team released a video showcasing the widgets.

{{< video https://youtu.be/09ByveIiXGY >}}

{{< embed sports-earnings/index.ipynb#table-output >}}

{{< pagebreak >}}
---

Version {{< var version >}} is out: press {{< kbd Shift-Ctrl-P >}} to render.
Write {{{< var version >}}} to show the shortcode itself.

```yaml
{{< include /api/_sidebar.yml >}}
```
"""


def test_a_quarto_shortcode_is_no_prose_and_no_heading() -> None:
    """A shortcode is replaced when the page renders by what it names (a file, a player,
    a notebook's output, a break); read as text, each had been a line of prose
    (`include get-started/overview.qmd`), and `{{< pagebreak >}}` over a `---` rule the
    heading of what follows (readers73)."""
    chunks = chunk_document(parse("tables.qmd", SHORTCODES))
    paths = [chunk.heading_path for chunk in chunks]
    assert all("{{" not in path and "pagebreak" not in path for path in paths), paths
    text = "\n".join(chunk.text for chunk in chunks)
    for gone in (
        "include get-started",
        "video https",
        "embed sports",
        "pagebreak",
        "var version >",
    ):
        assert gone not in text.replace("{{< var version >}} to show", ""), gone
    assert "press Shift-Ctrl-P to render" in text  # keys are shown
    assert "Write {{< var version >}} to show" in text  # escaped: shown as written
    assert "{{< include /api/_sidebar.yml >}}" in text  # code is code
    assert "showcasing the widgets" in text
