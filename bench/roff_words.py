"""How many of a groff document's words reach the index, against what groff prints.

Usage: python bench/roff_words.py [-v] [--tmac DIR] MACROS:FILE [...]

MACROS is the package the document is written in (`e` for -me, `s` for -ms, `om` for
mom), FILE the document (`op.me`; not gzipped). Each is rendered by groff as a terminal
shows it (`groff -m MACROS -k -t -e -p -Tutf8 -P-cbou`: preconv, tbl, eqn, pic, no
overstrikes), a word broken by hyphenation at a line's end joined again, and its words
compared with those of the chunks the daemon makes of the file (`bench/words_kept.chunk_words`:
`loaders.parse` + `chunk_document`, overlap and repeated headings not counted): kept = Σ over
words of min(count printed, count in chunks) / Σ count printed, as bench/man_words.py does
for man pages. What groff generates is counted as printed, so it shows as lost: running
headers and footers on every page, section and page numbers, a table of contents.
Debian's groff-base has no -me or -ms macros: give `--tmac` the `tmac` folder of the groff
package unpacked (`dpkg-deb -x groff_*.deb DIR`: `DIR/usr/share/groff/*/tmac`).
Words are runs of letters and digits, lower-cased, compared as multisets.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from words_kept import chunk_words, words

HYPHENATED = re.compile(r"(\w)[\u2010-]\n[ \t]*(\w)")  # `recollec‐` / `tion` at a line break


def printed_words(path: Path, macros: str, tmac: str | None) -> Counter[str]:
    where = ["-M", tmac] if tmac else []
    done = subprocess.run(
        ["groff", *where, f"-m{macros}", "-k", "-t", "-e", "-p", "-Tutf8", "-P-cbou", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return words(HYPHENATED.sub(r"\1\2", done.stdout))


def main() -> None:
    args = sys.argv[1:]
    verbose = "-v" in args
    tmac = args[args.index("--tmac") + 1] if "--tmac" in args else None
    documents = [a for a in args if ":" in a]
    total = kept = 0
    for document in documents:
        macros, _, name = document.partition(":")
        path = Path(name)
        shown, got = printed_words(path, macros, tmac), chunk_words(path)
        here = sum(min(n, got[w]) for w, n in shown.items())
        count = sum(shown.values())
        extra = sum(max(0, n - shown[w]) for w, n in got.items())
        total, kept = total + count, kept + here
        print(f"{path.name}: {here} of {count} ({here / max(count, 1):.2%}); {extra} not printed")
        if verbose:
            lost = {w: n - got[w] for w, n in shown.items() if got[w] < n}
            print(f"  lost {dict(sorted(lost.items(), key=lambda kv: -kv[1])[:20])}")
    print(f"pooled: {kept} of {total} words groff prints kept ({kept / max(total, 1):.2%})")


if __name__ == "__main__":
    main()
