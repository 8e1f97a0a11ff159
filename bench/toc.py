"""Tables of contents of the evaluation corpora, for people who write questions about them
without reading them (issue 19: paraphrased questions come from someone who has seen only
the table of contents).

Per file: its path and the distinct heading paths the daemon's chunker produces for it,
indented by depth, in document order — and nothing of the body text. A long table is
shortened by dropping its deepest levels first until it fits the cap.
Usage: python bench/toc.py OUT_DIR [CORPUS ...]   (writes OUT_DIR/<corpus>.md)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpora import CORPORA, CorpusUnavailable, documents  # noqa: E402

BUILD = ROOT / "bench" / "out" / "eval" / "corpora"
CAP = 380  # heading lines per table: about 300, room for one class/def level of code
SIBLINGS = 12  # headings listed under one parent
UNTITLED = "(untitled)"  # the chunker's name for text before a file's first heading


def heading_paths(folder: Path) -> dict[str, tuple[int, list[tuple[str, ...]]]]:
    """Every file the indexer reads → its chunk count and distinct heading paths, split
    into levels."""
    from ragd.ingest.chunking import chunk_document

    out: dict[str, tuple[int, list[tuple[str, ...]]]] = {}
    for rel, document in documents(folder):
        chunks = chunk_document(document)
        paths = dict.fromkeys(chunk.heading_path for chunk in chunks)
        out[rel] = (len(chunks), [tuple(p.split(" > ")) for p in paths if p and p != UNTITLED])
    return out


Tree = dict[str, "Tree"]


def tree(paths: list[tuple[str, ...]]) -> Tree:
    """Heading paths as nested dicts in document order; a level a path skips (a file that
    starts at H2) appears once as its parent."""
    root: Tree = {}
    for path in paths:
        node = root
        for part in path:
            node = node.setdefault(part, {})
    return root


def outline(node: Tree, depth: int, siblings: int, level: int = 0) -> list[str]:
    """Indented heading lines down to `depth` levels; past `siblings` headings under one
    parent (a change log's versions) the rest are counted, not listed."""
    lines: list[str] = []
    if level >= depth:
        return lines
    for number, (title, children) in enumerate(node.items()):
        if number == siblings and len(node) > siblings + 1:
            lines.append(f"{'  ' * level}- … and {len(node) - siblings} more headings here")
            break
        lines.append(f"{'  ' * level}- {title}")
        lines += outline(children, depth, siblings, level + 1)
    return lines


def table(name: str, files: dict[str, tuple[int, list[tuple[str, ...]]]], cap: int = CAP) -> str:
    trees = {rel: tree(paths) for rel, (_, paths) in files.items()}
    deepest = max((len(p) for _, paths in files.values() for p in paths), default=1)
    depth = deepest
    while depth > 1 and sum(len(outline(t, depth, SIBLINGS)) for t in trees.values()) > cap:
        depth -= 1
    chunks = sum(count for count, _ in files.values())
    head = [f"# {name}: table of contents", ""]
    head.append(f"{len(files)} files, {chunks} chunks. Headings as the indexer's chunker sees them")
    if depth < deepest:
        head[-1] += f" (shortened: {depth} of {deepest} levels shown)"
    head[-1] += "."
    body = []
    for rel, (count, _) in files.items():
        body += ["", f"## {rel} ({count} chunks)", ""]
        empty = "(no headings)" if count else "(no text: the reader keeps nothing of this file)"
        body += outline(trees[rel], depth, SIBLINGS) or [empty]
    return "\n".join(head + body) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    out, names = Path(argv[0]), argv[1:]
    out.mkdir(parents=True, exist_ok=True)
    for corpus in CORPORA:
        if names and corpus.name not in names:
            continue
        try:
            folder = corpus.build(BUILD)
        except CorpusUnavailable as exc:
            print(f"{corpus.name}: unavailable — {exc}")
            continue
        files = heading_paths(folder)
        (out / f"{corpus.name}.md").write_text(table(corpus.name, files), encoding="utf-8")
        chunks = sum(count for count, _ in files.values())
        print(f"{corpus.name}: {len(files)} files, {chunks} chunks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
