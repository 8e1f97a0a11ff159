"""Java, C#, C and C++ files split at their definitions: sections, words kept, time.

Usage: python bench/brace_sections.py FOLDER [FOLDER ...] [--sample N] [--seed S]

For every `.java`, `.cs`, `.c`, `.h`, `.cc`, `.cpp`, `.hpp` file under the folders,
reports per language: files; heading paths (sections) before — the reader as it was,
one `(untitled)` section a file, by taking these languages out of `formats.code.BRACED`
for the run — and after; the share of the file's words that reach its chunks
(`bench/words_kept.py`: each heading once, no overlap, words compared as multisets);
the slowest file's read-and-chunk CPU time against reading its bytes and decoding them
(best of 3, `process_time`); and, with `--sample N`, N random headings of the language
with the line each starts at, to check by eye against the source.
"""

from __future__ import annotations

import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "daemon"), str(ROOT / "shared"), str(ROOT / "bench")]

from ragd.ingest.formats import code  # noqa: E402
from words_kept import chunk_words, chunks_of, file_source_words  # noqa: E402

SUFFIXES = {".java": "java", ".cs": "csharp", ".c": "c", ".h": "c (.h)"}
SUFFIXES |= {".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp"}


def _best(run: object, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    args = sys.argv[1:]
    sample = int(args[args.index("--sample") + 1]) if "--sample" in args else 0
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 41
    folders = [Path(a) for a in args if not a.startswith("--") and not a.isdigit()]
    files: dict[str, list[Path]] = defaultdict(list)
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                files[SUFFIXES[path.suffix]].append(path)
    braced = code.BRACED
    for language, paths in sorted(files.items()):
        before = after = kept = total = 0
        slowest = (0.0, 0.0, paths[0])
        headings: list[tuple[Path, int | None, str]] = []
        for path in paths:
            code.BRACED = frozenset()
            before += len({c.heading_path for c in chunks_of(path)})
            code.BRACED = braced
            chunks = chunks_of(path)
            after += len({c.heading_path for c in chunks})
            source, got = file_source_words(path), chunk_words(path, chunks)
            total += sum(source.values())
            kept += sum(min(n, got[w]) for w, n in source.items())
            seen = set()
            for chunk in chunks:
                if chunk.heading_path not in seen and chunk.heading_path != "(untitled)":
                    seen.add(chunk.heading_path)
                    headings.append(
                        (path, chunk.lines[0] if chunk.lines else None, chunk.heading_path)
                    )
            chunking = _best(lambda p=path: chunks_of(p))
            if chunking > slowest[0]:
                reading = _best(lambda p=path: p.read_bytes().decode("utf-8", "replace"))
                slowest = (chunking, reading, path)
        seconds, reading, path = slowest
        print(
            f"{language}: {len(paths)} files, sections {before} -> {after}, "
            f"words kept {kept}/{total} ({kept / max(total, 1):.2%}); slowest "
            f"{path.name} ({path.stat().st_size:,} bytes): {seconds * 1000:.1f} ms to read "
            f"and chunk, {reading * 1000:.2f} ms to read ({seconds / max(reading, 1e-9):.0f}x)"
        )
        for path, line, heading in random.Random(seed).sample(headings, min(sample, len(headings))):
            print(f"    {path}:{line}  {heading}")


if __name__ == "__main__":
    main()
