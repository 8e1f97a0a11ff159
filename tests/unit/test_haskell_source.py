"""Haskell modules, and the pages of Haddock's hyperlinked source that show them (split
0.2.3.5's `html/src/` in Debian's libghc-split-doc; held out as nu63b). `.hs` had not been
read at all, and each source page was one `(untitled)` run holding the types of its
names' tooltips, which the page shows only under the pointer (newuser63)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse as load

# Written here in a Haskell module's shape: the module line, a data type, documented
# signatures with their equations, an instance.
MODULE = """module Harbour.Tides (nextHigh, Table) where

-- | A table of soundings.
data Table = Table [Int]

-- | The hour of the next high water at a quay.
nextHigh :: String -> Int
nextHigh quay = length quay

instance Show Table where
  show (Table xs) = show xs
"""

NAMES = ["module Harbour.Tides", "data Table", "nextHigh", "instance Show"]


def test_haskell_modules_are_indexed_by_default_and_split_at_their_declarations() -> None:
    assert PathFilter(DEFAULT_INCLUDE).includes("src/Harbour/Tides.hs")
    chunks = chunk_document(load("src/Harbour/Tides.hs", MODULE.encode()))
    assert [chunk.heading_path for chunk in chunks] == NAMES
    high = next(chunk.text for chunk in chunks if chunk.heading_path == "nextHigh")
    assert "next high water" in high and "nextHigh quay = length quay" in high


def _span(token: str, tooltip: str = "") -> str:
    if not tooltip:
        return f'<span class="hs-identifier">{token}</span>'
    return f'<span class="annot"><span class="annottext">{tooltip}</span>{token}</span>'


def test_a_haddock_source_page_is_read_as_the_module_it_shows_without_tooltips() -> None:
    shown = MODULE.replace(
        "nextHigh quay", _span("nextHigh", "hover :: String -&gt; Int") + " quay"
    )
    shown = shown.replace("module", '<span class="hs-keyword">module</span>', 1)
    page = (
        '<html><head><link rel="stylesheet" href="style.css"/></head><body><pre>'
        f"{shown}</pre></body></html>"
    )
    chunks = chunk_document(load("src/Harbour.Tides.html", page.encode()))
    assert [chunk.heading_path for chunk in chunks] == NAMES
    text = " ".join(chunk.text for chunk in chunks)
    assert "nextHigh quay = length quay" in text and "hover ::" not in text
