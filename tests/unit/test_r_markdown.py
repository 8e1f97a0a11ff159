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
