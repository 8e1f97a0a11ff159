"""One vector per distinct window text: which chunks a vector stands for, and its scope.

Why: ChromaDB's HNSW graph breaks on exact duplicates. Its neighbour selection keeps a
candidate unless one already kept is strictly nearer to it than the new point is, and
between identical vectors every distance is 0, so each copy links only to other copies:
the copies close into a clique and searches that enter it cannot leave. 1,500 `.py`
files sharing one licence header, or 3,000 identical notes, made vector search miss the
passage that answered 14 (44) of 140 questions (attack48b); with synthetic vectors,
recall@10 fell from 0.999 to 0.589 beside 3,000 copies of one vector, and jittering the
copies brought it back only to 0.87 (docs/performance.md).

So a vector's id is its window's text hash (the embedding cache's key). The manifest's
`windows` table says which chunks hold each text (`Manifest.window_holders`); a search
maps each hit to its holders. A vector's scope metadata (`chunk_paths.scope_keys`) is
the union of its holders' keys, so a `--in` search finds it from any of their folders;
past MAX_SCOPE_KEYS (a boilerplate text in hundreds of files) it is the wildcard WIDE,
which every scoped search also asks for, and the holders outside the scope are dropped
when the hit is mapped.

The writer keeps the store in step (`VectorPlacer`): a text's vector is added with its
first holder, relabelled when its holders' scopes change, and deleted with its last
holder.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragd.index.chunk_paths import scope_keys
from ragd.index.dense import WIDE
from ragd.index.manifest import ChunkRow

if TYPE_CHECKING:
    from ragd.index.store import Stores

MAX_SCOPE_KEYS = 64  # a text held in files with more scope keys than this is WIDE

# A holder of a window text: (chunk id, window position, root, relpath).
Holder = tuple[str, int, str, str]


def scope_of(files: Iterable[tuple[str, str]]) -> list[str]:
    """The scope metadata of a vector held in these files (root, relpath)."""
    keys: set[str] = set()
    for root, relpath in files:
        keys.update(scope_keys(root, relpath))
        if len(keys) > MAX_SCOPE_KEYS:
            return [WIDE]
    return sorted(keys)


def chunk_hits(
    hits: Sequence[tuple[str, float]], holders: dict[str, list[Holder]]
) -> dict[str, float]:
    """Each chunk's best cosine among `hits` (text hash, cosine), through the chunks that
    hold each text (`holders`: as the search may serve them, its scope applied)."""
    best: dict[str, float] = {}
    for text_hash, similarity in hits:
        for cid, _, _, _ in holders.get(text_hash, ()):
            if similarity > best.get(cid, -2.0):
                best[cid] = similarity
    return best


def ranked_chunks(
    hits: Sequence[tuple[str, float]], holders: dict[str, list[Holder]]
) -> dict[str, tuple[int, float]]:
    """Chunk id → (rank of its best hit, that cosine), best first: the chunks of a
    deeper look at the hits (bench/retrieval_variants.py, bench/retrieval_replay.py)."""
    out: dict[str, tuple[int, float]] = {}
    for rank, (text_hash, similarity) in enumerate(sorted(hits, key=lambda h: -h[1])):
        for cid, _, _, _ in holders.get(text_hash, ()):
            out.setdefault(cid, (rank, similarity))
    return out


def distinct_windows(rows: Iterable[ChunkRow]) -> list[str]:
    """The distinct window text hashes of these chunks, in order of first appearance."""
    return list(dict.fromkeys(h for row in rows for h in row.windows))


@dataclass
class VectorPlacer:
    """Keeps the vector store's texts and scopes in step with the manifest's chunks."""

    stores: Stores  # (its `dense` is replaced when the embedded store opens late)

    def _files(
        self, hashes: Sequence[str], leaving: frozenset[str] = frozenset()
    ) -> dict[str, set[tuple[str, str]]]:
        """Each text's holding files per the manifest, without chunks in `leaving`."""
        files: dict[str, set[tuple[str, str]]] = {}
        for text_hash, holders in self.stores.manifest.window_holders(hashes).items():
            kept = {(root, rel) for cid, _, root, rel in holders if cid not in leaving}
            if kept:
                files[text_hash] = kept
        return files

    def add(self, rows: Sequence[ChunkRow], vectors: dict[str, np.ndarray]) -> None:
        """Before the manifest names `rows`: store each text none held, and widen the
        scope of a text held elsewhere to take in the new files."""
        adding: dict[str, set[tuple[str, str]]] = {}
        for row in rows:
            for text_hash in row.windows:
                adding.setdefault(text_hash, set()).add((row.root, row.relpath))
        held = self._files(list(adding))
        new = [h for h in adding if h not in held]
        if new:
            self.stores.dense.upsert(
                new, np.stack([vectors[h] for h in new]), [scope_of(adding[h]) for h in new]
            )
        self._relabel({h: (held[h], held[h] | files) for h, files in adding.items() if h in held})

    def release(self, rows: Sequence[ChunkRow], leaving: bool = False) -> None:
        """`rows` no longer hold their texts: delete the texts nothing else holds, and
        narrow the scope of the others. `leaving`: the manifest still names the rows
        (a removal: the indexes go first); else it has dropped them already."""
        hashes = distinct_windows(rows)
        gone = frozenset(row.chunk_id for row in rows) if leaving else frozenset()
        held = self._files(hashes, gone)
        self.stores.dense.delete([h for h in hashes if h not in held])
        before: dict[str, set[tuple[str, str]]] = {}
        for row in rows:
            for text_hash in row.windows:
                before.setdefault(text_hash, set()).add((row.root, row.relpath))
        self._relabel({h: (held[h] | before[h], held[h]) for h in hashes if h in held})

    def _relabel(self, files: dict[str, tuple[set[tuple[str, str]], set[tuple[str, str]]]]) -> None:
        """Give each text (hash → its files before, after) its new scope where it
        changed: metadata only, the vector stays where the graph put it."""
        changed: dict[str, list[str]] = {}
        for text_hash, (was, now) in files.items():
            if was != now and (scope := scope_of(now)) != scope_of(was):
                changed[text_hash] = scope
        if changed:
            self.stores.dense.relabel(list(changed), list(changed.values()))

    def restore(self, hashes: Sequence[str], vectors: dict[str, np.ndarray]) -> None:
        """Put these texts' vectors back (start-up repair), scoped by their holders."""
        held = self._files(hashes)
        ids = [h for h in hashes if h in held and h in vectors]
        if ids:
            self.stores.dense.upsert(
                ids, np.stack([vectors[h] for h in ids]), [scope_of(held[h]) for h in ids]
            )
