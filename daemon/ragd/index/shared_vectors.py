"""One vector per distinct window text: which chunks a vector stands for, and its scope.

Why: ChromaDB's HNSW graph breaks on exact duplicates. Its neighbour selection keeps a
candidate unless one already kept is strictly nearer to it than the new point is, and
between identical vectors every distance is 0, so each copy links only to other copies:
the copies close into a clique and searches that enter it cannot leave. 1,500 `.py`
files sharing one licence header, or 3,000 identical notes, made vector search miss the
passage that answered 14 (44) of 140 questions (attack48b). With the sample corpus's own
vectors and questions, recall@10 is 0.329 beside 3,000 copies of one window against 1.000
with one (`bench/duplicate_windows.py`); jittering the copies brought synthetic vectors
back only from 0.589 to 0.87 (docs/performance.md).

So a vector's id is its window's text hash (the embedding cache's key). The manifest's
`windows` table says which chunks hold each text (`Manifest.window_holders`); a search
maps each hit to its holders. A vector's scope metadata (`chunk_paths.scope_keys`) is
the union of its holders' keys, so a `--in` search finds it from any of their folders;
past MAX_SCOPE_KEYS, their folders' keys (`scope_of`); in more files than that (a
boilerplate text in dozens of files) or folders, it is the wildcard WIDE,
which every scoped search asks for in a query of its own (`ChromaStore.query_many`), and
the holders outside the scope are left out when the hit is mapped (in SQL, with at most
`candidates` holders per text: `Manifest.window_holders`).

The writer keeps the store in step (`VectorPlacer`): a text's vector is added with its
first holder, relabelled when its holders' scopes change (widened before the manifest
names a new holder, narrowed after it drops one), and deleted with its last holder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragd.index.chunk_paths import parent_key, scope_keys
from ragd.index.dense import IN_FOLDER, WIDE
from ragd.index.manifest import ChunkRow, Manifest

if TYPE_CHECKING:
    from ragd.index.store import Stores

MAX_SCOPE_KEYS = 64  # past this many keys a text is scoped by its folders (`scope_of`)
RESCOPE_SLICE = 4000  # texts read and relabelled at a time by `VectorPlacer.rescope`

# A holder of a window text: (chunk id, window position, root, relpath).
Holder = tuple[str, int, str, str]


def scope_of(files: Iterable[tuple[str, str]]) -> list[str]:
    """The scope metadata of a vector held in these files (root, relpath): their scope
    keys; past MAX_SCOPE_KEYS, their folders' keys and, for each folder holding one of the
    files directly, that folder's key + IN_FOLDER (twice as many allowed: a folder and
    its IN_FOLDER key come in pairs), which a `--in` of a file asks for
    (`in_folder_key`: 20 files of a deep source tree sharing a header, one text in 33
    folders); past that too, or in more than MAX_SCOPE_KEYS files (the writer reads no
    more), WIDE."""
    held = set(files)
    if len(held) > MAX_SCOPE_KEYS:
        return [WIDE]
    keys = {key for root, relpath in held for key in scope_keys(root, relpath)}
    if len(keys) <= MAX_SCOPE_KEYS:
        return sorted(keys)
    folders: set[str] = set()
    for root, relpath in held:
        above = scope_keys(root, relpath)[:-1]  # its root and folders, its own folder last
        folders.update(above)
        folders.add(_files_in(above[-1]))
    return sorted(folders) if len(folders) <= 2 * MAX_SCOPE_KEYS else [WIDE]


def in_folder_key(file_key: str) -> str | None:
    """What a `--in` of a file also asks the vector index for: the texts scoped by their
    files' folders (`scope_of`) held directly in its folder (None for a root's key)."""
    folder = parent_key(file_key)
    return None if folder is None else _files_in(folder)


def _files_in(folder_key: str) -> str:
    """The key standing for the files directly in a folder (`scope_of`)."""
    return f"{folder_key}{IN_FOLDER}"


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


def text_groups(
    hits: Sequence[tuple[str, float]], holders: dict[str, list[Holder]]
) -> list[tuple[str, list[str]]]:
    """Each hit text, nearest first, with the chunks holding it (in chunk id order)."""
    groups = []
    for text_hash, _ in sorted(hits, key=lambda h: (-h[1], h[0])):
        chunk_ids = [h[0] for h in holders.get(text_hash, ())]
        if chunk_ids:
            groups.append((text_hash, chunk_ids))
    return groups


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


Files = AbstractSet[tuple[str, str]]  # (root, relpath)


def files_of(rows: Iterable[ChunkRow]) -> dict[str, Files]:
    """Each window text of these chunks → the files holding it among them."""
    files: dict[str, set[tuple[str, str]]] = {}
    for row in rows:
        for text_hash in row.windows:
            files.setdefault(text_hash, set()).add((row.root, row.relpath))
    return dict(files)


def files_holding(
    manifest: Manifest, hashes: Sequence[str], leaving: Files = frozenset()
) -> dict[str, Files]:
    """Each text's holding files per the manifest, without the files `leaving`; up to
    MAX_SCOPE_KEYS + 1 of them, which make it WIDE whichever they are."""
    most = MAX_SCOPE_KEYS + 1
    files: dict[str, Files] = {}
    for text_hash, holders in manifest.holding_files(hashes, most + len(leaving)).items():
        kept = set(sorted(holders - leaving)[:most])
        if kept:
            files[text_hash] = kept
    return files


def misscoped(
    manifest: Manifest,
    hashes: Sequence[str],
    stored_scopes: Callable[[list[str]], dict[str, list[str]]],
) -> Iterator[dict[str, list[str]]]:
    """Of these texts, those the vector store holds with another scope than their holders
    give them (text hash → the scope they give), a slice of RESCOPE_SLICE texts at a time.
    `stored_scopes` reads the store's scopes of the texts it holds among those asked."""
    for start in range(0, len(hashes), RESCOPE_SLICE):
        held = files_holding(manifest, hashes[start : start + RESCOPE_SLICE])
        stored = stored_scopes(list(held))
        wanted = {h: scope_of(held[h]) for h in stored}
        yield {h: s for h, s in wanted.items() if sorted(stored[h]) != s}


@dataclass
class VectorPlacer:
    """Keeps the vector store's texts and scopes in step with the manifest's chunks.

    The order keeps every scope at least as wide as its holders' keys whatever step a
    crash stops at (a scope too wide costs a hit filtered out by holder; one too narrow,
    a `--in` search that misses a file until the next start relabels it, `rescope`):
    a scope widens before the manifest names a new holder (`add`) and narrows only after
    the manifest stopped naming one (`narrow`); a text is deleted once nothing else
    holds it (`drop_unheld`)."""

    stores: Stores  # (its `dense` is replaced when the embedded store opens late)

    def _files(self, hashes: Sequence[str], leaving: Files = frozenset()) -> dict[str, Files]:
        return files_holding(self.stores.manifest, hashes, leaving)

    def add(self, rows: Sequence[ChunkRow], vectors: dict[str, np.ndarray]) -> None:
        """Before the manifest names `rows`: store each text none held, and widen the
        scope of a text held elsewhere to take in the new files (or store it, if the
        store lost it)."""
        adding = files_of(rows)
        held = self._files(list(adding))
        new = [h for h in adding if h not in held]
        absent = self._relabel(
            {h: (held[h], held[h] | files) for h, files in adding.items() if h in held}
        )
        put = new + absent
        if put:
            scopes = [scope_of(held.get(h, set()) | adding[h]) for h in put]
            self.stores.dense.upsert(put, np.stack([vectors[h] for h in put]), scopes)

    def drop_unheld(self, rows: Sequence[ChunkRow], leaving: bool = False) -> None:
        """`rows` no longer hold their texts: delete the texts no other file holds.
        `leaving`: the manifest still names the rows' files, which are being removed
        whole (the indexes go first); else the manifest has dropped the rows already."""
        hashes = distinct_windows(rows)
        gone: Files = {(row.root, row.relpath) for row in rows} if leaving else set()
        self._drop(hashes, self._files(hashes, gone))

    def narrow(self, rows: Sequence[ChunkRow]) -> None:
        """After the manifest stopped naming `rows`: the texts still held elsewhere lose
        the scope keys only the rows' files gave them."""
        before = files_of(rows)
        self._narrow(before, self._files(list(before)))

    def release(self, rows: Sequence[ChunkRow]) -> None:
        """After the manifest stopped naming `rows` (an apply's stale chunks): both of
        the above, from one reading of the texts' holders."""
        before = files_of(rows)
        held = self._files(list(before))
        self._drop(list(before), held)
        self._narrow(before, held)

    def _drop(self, hashes: Sequence[str], held: dict[str, Files]) -> None:
        self.stores.dense.delete([h for h in hashes if h not in held])

    def _narrow(self, before: dict[str, Files], held: dict[str, Files]) -> None:
        self._relabel({h: (held[h] | files, held[h]) for h, files in before.items() if h in held})

    def _relabel(self, files: dict[str, tuple[Files, Files]]) -> list[str]:
        """Give each text (hash → its files before, after) its new scope where it
        changed: metadata only, the vector stays where the graph put it. Returns the
        texts the store lacks."""
        changed: dict[str, list[str]] = {}
        for text_hash, (was, now) in files.items():
            if was != now and (scope := scope_of(now)) != scope_of(was):
                changed[text_hash] = scope
        if not changed:
            return []
        return self.stores.dense.relabel(list(changed), list(changed.values()))

    def rescope(self, hashes: Sequence[str], stop: Callable[[], bool] = lambda: False) -> int:
        """Give each of these texts the scope its holders give it where the store holds
        another; returns the texts relabelled. Why: a vector server put back to an older
        copy of its data holds its texts with the scopes they had then, and the repair
        compares ids only: a text a file gained since (its id in both) was missed by a
        `--in` of that file for as long as its holders stayed the same (attack51)."""
        relabelled = 0
        for changed in misscoped(self.stores.manifest, hashes, self.stores.dense.scopes):
            if stop():  # shutdown: what is left is compared again at the next start
                break
            if changed:
                self.stores.dense.relabel(list(changed), list(changed.values()))
            relabelled += len(changed)
        return relabelled

    def restore(self, hashes: Sequence[str], vectors: dict[str, np.ndarray]) -> None:
        """Put these texts' vectors back (start-up repair), scoped by their holders."""
        held = self._files(hashes)
        ids = [h for h in hashes if h in held and h in vectors]
        if ids:
            self.stores.dense.upsert(
                ids, np.stack([vectors[h] for h in ids]), [scope_of(held[h]) for h in ids]
            )
