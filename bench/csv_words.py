"""How many of a delimited file's words reach the index (`.csv`, `.tsv`, gzipped too).

Usage: python bench/csv_words.py FILE [FILE ...]   (SEP=, to name the separator)

The source's words are its fields' words as a spreadsheet program shows them: the file
read with Python's `csv` module (the separator among `,` `;` tab and a space that its
most of its first 20 lines hold, a run of spaces one; quotes taken off), each field split at
blanks (a `|` in a field counted as the `/` the table writes for it; a field of any
length). The chunks' words are the text of the chunks the daemon makes of the file
(`loaders.parse` + `chunk_document`, in process), split at blanks and the table's `|`.
Kept = Σ over words of min(count in source, count in chunks) / Σ count in source. It
shares no code with `formats.delimited`, so a reader that drops a field cannot hide it.
"""

import csv
import gzip
import io
import os
import pathlib
import re
import sys
from collections import Counter

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse as load

csv.field_size_limit(sys.maxsize)  # a long field is read (formats.delimited reads it)
k = t = 0
for p in sys.argv[1:]:
    p = pathlib.Path(p)
    data = p.read_bytes()
    raw = gzip.decompress(data) if p.suffix == ".gz" else data
    text = raw.decode("utf-8")
    lines = text.splitlines()[:20]
    # the separator most of the first lines hold (numpy's umath-validation-set files have
    # a `## +ve denormals ##` comment as their second line: its spaces were chosen)
    sep = os.environ.get("SEP") or max(
        [",", ";", "\t", " "], key=lambda s: (sum(s in ln for ln in lines), text.count(s))
    )
    src = Counter(
        w
        for row in csv.reader(io.StringIO(text), delimiter=sep, skipinitialspace=True)
        for f in row
        for w in f.replace("|", "/").split()
    )
    got = Counter(
        w for c in chunk_document(load(str(p), data)) for w in re.split(r"[\s|]+", c.text) if w
    )
    kept = sum(min(n, got[w]) for w, n in src.items())
    tot = sum(src.values())
    print(p.name, kept, tot)
    k += kept
    t += tot
print("all", k, t)
