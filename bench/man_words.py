"""How many of a man page's words reach the index, against what `man` shows.

Usage: python bench/man_words.py [-v] PAGE_OR_FOLDER [...]

For every man page given (a folder: every page under it whose name the daemon reads as a
man page), counts the words of `man -P cat -l PAGE` (groff's own rendering, its header and
footer lines left out: the page name and date repeated on every page) and the words of
the chunks the daemon makes of the page (`bench/words_kept.chunk_words`: `loaders.parse`
+ `chunk_document`, overlap and repeated headings not counted), and reports per page and
pooled: kept = Σ over words of min(count shown by man, count in chunks) / Σ count shown,
and the words indexed that man does not show (Σ of count in chunks − count shown, where
positive: a page's title heading, text the reader should have dropped).
Words are runs of letters and digits, lower-cased, compared as multisets.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import run_man
from ragd.ingest.formats.man import is_man_page
from words_kept import chunk_words, words


def shown_words(page: Path) -> Counter[str]:
    lines = run_man(page, width=200).splitlines()
    return words("\n".join(lines[1:-1]))  # the header and footer lines: name and date


def pages(args: list[str]) -> list[Path]:
    found = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and is_man_page(p.name))
        else:
            found.append(path)
    return found


def main() -> None:
    verbose = "-v" in sys.argv
    total = kept = added = made = 0
    for page in pages([a for a in sys.argv[1:] if a != "-v"]):
        shown, got = shown_words(page), chunk_words(page)
        page_kept = sum(min(n, got[w]) for w, n in shown.items())
        page_total = sum(shown.values())
        total, kept = total + page_total, kept + page_kept
        extra = sum(max(0, n - shown[w]) for w, n in got.items())
        added, made = added + extra, made + sum(got.values())
        print(
            f"{page.name}: {page_kept} of {page_total} ({page_kept / max(page_total, 1):.2%}); "
            f"{extra} words man does not show"
        )
        lost = {w: n - got[w] for w, n in shown.items() if got[w] < n}
        if verbose and lost:
            print(f"  lost {dict(sorted(lost.items(), key=lambda kv: -kv[1])[:15])}")
    print(f"pooled: {kept} of {total} words man shows kept ({kept / max(total, 1):.2%})")
    share = added / max(made, 1)
    print(f"added: {added} of the {made} words indexed are not shown by man ({share:.2%})")


if __name__ == "__main__":
    main()
