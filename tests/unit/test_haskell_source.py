"""Haskell modules, and the pages of Haddock's hyperlinked source that show them (split
0.2.3.5's `html/src/` in Debian's libghc-split-doc; held out as nu63b). `.hs` had not been
read at all, and each source page was one `(untitled)` run holding the types of its
names' tooltips, which the page shows only under the pointer (newuser63)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats.code_literals import lines_in_code
from ragd.ingest.loaders import parse as load
from tests.support.growth import growth_ratio

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


def _paths(source: str) -> dict[str, str]:
    return {c.heading_path: c.text for c in chunk_document(load("Trace.hs", source.encode()))}


def test_a_haddock_block_comment_documents_the_signature_below_it() -> None:
    # base's Debug.Trace documents each function in a `{-| … -}` block after a pragma:
    # read as lines, every block had gone to the section above, `trace`'s manual cited as
    # `putTraceMsg` (review66).
    source = """-- | Deprecated.
putTraceMsg :: String -> IO ()
putTraceMsg = traceIO

{-# NOINLINE trace #-}
{-|
The 'trace' function outputs the trace message
before returning its second argument.
-}
trace :: String -> a -> a
trace string expr = expr

{- | Like 'trace', {- nested -} returning the message. -}
traceId :: String -> String
traceId a = trace a a
"""
    by_path = _paths(source)
    assert list(by_path) == ["putTraceMsg", "trace", "traceId"]
    assert "outputs the trace message" in by_path["trace"]
    assert "NOINLINE trace" in by_path["trace"]
    assert "outputs the trace message" not in by_path["putTraceMsg"]
    assert "returning the message" in by_path["traceId"]


def test_a_block_comment_or_string_hides_its_lines_and_an_operator_opens_no_comment() -> None:
    # A commented-out `{- old :: Int -}` (nested) and a string run over lines by its gap
    # held lines that open as signatures, each a section of its own; `-->` is an operator
    # and `--` in a string no comment, so neither hides the `{-` after it (review66).
    lines = [
        "{- retired {- twice -}",
        "old :: Int",
        "-}",
        'banner = "a -- b {- c \\',
        '   \\data Fake = Fake"',
        "a --> b = b {- then",
        "gone :: Int -}",
        "x = '\"' -- a comment {- opens nothing",
        "kept :: Int",
    ]
    in_code = [True, False, False, True, False, True, False, True, True]
    assert lines_in_code(lines, "haskell") == in_code
    paths = list(_paths("\n".join(lines)))
    assert paths == ["(untitled)", "kept"]


def test_the_haskell_lexer_is_linear_in_the_file() -> None:
    # Block comments, strings and gaps opened and never closed: 4x the input costs about
    # 4x the time (8x allowed), not 16x.
    shapes = ['"', "{-", "--", "-->", '"\\', "\\ ", "'\"'", "{-#", "-}", '"\\ \\"']

    def lines(size: int) -> list[str]:
        return ("".join(shape * size for shape in shapes) + "\nf :: Int\n").split("\n")

    small, large = lines(4_000), lines(16_000)
    assert growth_ratio(lambda code: lines_in_code(code, "haskell"), small, large) < 8


def test_a_classs_methods_are_its_members_and_a_signature_may_name_several() -> None:
    # base's `class Foldable` documents its 17 methods one by one, each had been cited as
    # `class Foldable`; a signature naming several (`(==), (/=) :: …`, Cabal's
    # `copyOrdinaryFile, copyExecutableFile :: …`) had been no definition at all, read
    # into the section above. A function's `where` signatures stay its own (review66).
    source = """class Tidal t where
  -- | The hour of the next high water.
  nextHigh :: t -> Int

  -- | Equal and unequal tables.
  (~=), (/~=) :: t -> t -> Bool
  a /~= b = not (a ~= b)

-- | Two readers of one table.
readTable, readChart :: FilePath -> IO Int
readTable = undefined
readChart = undefined

-- | Hours to the next low water.
hoursLeft :: Int -> Int
hoursLeft x = go x
  where
    go :: Int -> Int
    go = id
"""
    by_path = _paths(source)
    methods = [f"class Tidal > {name}" for name in ("nextHigh", "(~=), (/~=)")]
    assert list(by_path) == ["class Tidal", *methods, "readTable, readChart", "hoursLeft"]
    assert "next high water" in by_path["class Tidal > nextHigh"]
    assert "Equal and unequal" in by_path["class Tidal > (~=), (/~=)"]
    assert "Two readers" in by_path["readTable, readChart"]
    assert "go :: Int -> Int" in by_path["hoursLeft"]
