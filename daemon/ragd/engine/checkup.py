"""The checks behind `ragd check`: is a data dir sound? They never write, and are safe beside a
running daemon. `ragd.cli.checking` decides which of the two runs:

    a daemon holds the data dir   ask it to check itself over its socket (the `check` op):
                                  it has the stores open and checks while its writer is idle
    nobody holds it               hold the data-dir lock for the duration (through a
                                  read-only descriptor, so a daemon cannot start mid-check),
                                  open the manifest and tantivy read-only, and probe a copy
                                  of ChromaDB in a child process (a damaged graph file can
                                  crash the reader)

Exit status: 0 consistent · 1 something to repair, which the next `ragd serve` does (the
report says what) · 2 damaged beyond that: the one line printed names the file and the
command that fixes it · 3 the daemon holding the data dir did not answer, or was
indexing throughout (no quiet moment to compare in).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragd.core.exit_codes import CheckExit
from ragd.core.layout import DataDir
from ragd.core.roots import Roots
from ragd.index.consistency import DiskReport, IndexReport, check_disk, compare_ids
from ragd.index.dense import METADATA_VERSION, StoreBusy
from ragd.index.dense_probe import ProbeResult, Reader, not_chroma_files, probe
from ragd.index.embedder import MODEL_ID
from ragd.index.manifest import Manifest
from ragd.index.shared_vectors import misscoped
from ragd.index.verify import DataDamaged, dense_problem, open_manifest, remembered_roots
from ragd.ingest.filters import PathFilter
from ragd.ingest.walking import walk

if TYPE_CHECKING:
    from ragd.core.config import Settings
    from ragd.engine.components import Components
    from ragd.index.store import Stores
    from ragd.ingest.work_queue import WorkQueue

QUIET_TIMEOUT_S = 120.0


class WriterNeverIdle(Exception):
    """The daemon's writer never went idle long enough to compare the stores."""


def report(index: IndexReport, disk: DiskReport, problems: list[str]) -> dict[str, Any]:
    ok = index.consistent and disk.consistent and not problems
    return {
        "ok": ok,
        "exit": CheckExit.CONSISTENT if ok else CheckExit.REPAIRABLE,
        "problems": problems,
        "manifest_chunks": index.manifest_chunks,
        "dense_vectors": index.dense_vectors,
        "lexical_docs": index.lexical_docs,
        "dense_orphans": len(index.dense_orphans),
        "dense_missing": len(index.dense_missing),
        "dense_misscoped": len(index.dense_misscoped),
        "lexical_orphans": len(index.lexical_orphans),
        "lexical_missing": len(index.lexical_missing),
        "files_on_disk": disk.files_on_disk,
        "files_indexed": disk.files_indexed,
        "not_indexed": disk.not_indexed[:20],
        "stale": disk.stale[:20],
        "vanished": disk.vanished[:20],
        "file_chunk_mismatch": disk.file_chunk_mismatch[:20],
    }


def damaged(line: str) -> dict[str, Any]:
    return {"ok": False, "exit": CheckExit.DAMAGED, "problems": [line]}


def files_on_disk(
    roots: list[str], path_filter: PathFilter, follow_symlinks: bool
) -> dict[str, list[str]]:
    return {
        root: [rel for rel, _ in walk(Path(root), root, path_filter, follow_symlinks)]
        for root in roots
        if Path(root).is_dir()
    }


def live_check(components: Components) -> dict[str, Any]:
    """The `check` op: the running daemon checks its own stores while its writer is idle."""
    stores = components.stores
    line = stores.manifest.integrity_problem()
    if line:
        return damaged(f"the manifest is damaged ({line}); stop ragd, then `ragd reset`")
    problems = [f"{name}: {why}" for name, why in stores.problems()]
    try:
        dense = live_dense_problem(stores)
    except StoreBusy as exc:  # nothing wrong with it, and nothing to compare it with now
        line = f"vector index: {exc}; could not check it: rerun `ragd check` once it is let go"
        return {"ok": False, "exit": CheckExit.UNANSWERED, "problems": [line]}
    if dense:
        problems.append(f"vector index: {dense}")
    roots = list(components.roots)
    follow_symlinks = components.indexer.follow_symlinks
    index, disk = _quietly(
        components.queue,
        lambda: (
            _compare_readable(stores, readable=not dense),
            check_disk(
                stores.manifest,
                roots,
                files_on_disk(roots, components.filter, follow_symlinks),
            ),
        ),
    )
    return report(index, disk, problems)


def live_dense_problem(stores: Stores) -> str | None:
    """Why the live vector index cannot be trusted, with the fix; None when it reads back.
    StoreBusy when the embedded store is locked by another process (the one seen holding
    it named) or does not answer a read in time: not damage, and restarting cannot help."""
    fix = "ragd recreates it once the server answers" if stores.on_server else "restart ragd"
    locked = stores.dense.unavailable()
    if locked and not stores.on_server:
        raise StoreBusy(locked)
    try:
        sample = stores.dense.sample(32)
        problem = dense_problem(stores.manifest, ProbeResult(sample=sample), MODEL_ID)
        misses = stores.dense.unfindable(sample)
    except StoreBusy:
        raise
    except Exception as exc:  # whatever the store raises, `check` reports it as its answer
        return f"its stored vectors cannot be read ({exc}); {fix}"
    if misses * 10 > len(sample):
        problem = problem or f"searching does not find {misses} of {len(sample)} sampled vectors"
    return f"{problem} ({fix} to rebuild it)" if problem else None


def _compare_readable(stores: Stores, readable: bool) -> IndexReport:
    """`compare`, counting an unreadable vector index as holding nothing (its problem line
    already says why) instead of failing the whole check."""
    dense_ids: set[str] = set()
    misscoped: set[str] = set()
    if readable:
        with contextlib.suppress(Exception):  # it may fail between the probe and now
            dense_ids = stores.dense.all_ids()
            misscoped = scoped_otherwise(stores.manifest, dense_ids, stores.dense.scopes)
    lexical = stores.lexical
    return compare_ids(stores.manifest, dense_ids, lexical.all_ids(), lexical.num_docs(), misscoped)


def scoped_otherwise(
    manifest: Manifest,
    dense_ids: set[str],
    stored_scopes: Callable[[list[str]], dict[str, list[str]]],
) -> set[str]:
    """The texts held in both whose stored scope is not the one their holders give them
    (a vector server put back to an older copy: a file that gained a text since is missed
    by a `--in` of it); the next `ragd serve` relabels them (`VectorPlacer.rescope`)."""
    held = sorted(manifest.window_hashes() & dense_ids)
    return {h for part in misscoped(manifest, held, stored_scopes) for h in part}


def _quietly(queue: WorkQueue, work: Callable[[], Any]) -> Any:
    """Run `work` at a moment the writer is idle throughout (retried until one is found)."""
    import time

    deadline = time.monotonic() + QUIET_TIMEOUT_S
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not queue.wait_idle(left):
            raise WriterNeverIdle(
                "the daemon was indexing all along; rerun when `rag status` says idle"
            )
        burst = queue.progress
        done = burst.done
        result = work()
        if queue.pending() == 0 and queue.progress is burst and burst.done == done:
            return result


# -- no daemon ------------------------------------------------------------------------
def offline_check(settings: Settings, reader: Reader | None = None) -> dict[str, Any]:
    """Check a data dir no daemon holds, writing nothing to it; the vector index is probed
    in `reader` when given (a probe child started ahead: `ragd.cli.checking`)."""
    from ragd.index.lexical import LexicalUnreadable, TantivyIndex

    data_dir = settings.data_path
    try:
        manifest = open_manifest(data_dir, read_only=True)
    except DataDamaged as exc:
        return damaged(str(exc))
    roots, note = remembered_roots(manifest)
    problems = [f"{note}; the next `ragd serve` stores them again"] if note else []
    if older := built_by_an_older_ragd(manifest):
        problems.append(older)
    try:
        lexical = TantivyIndex(DataDir(data_dir).lexical, read_only=True)
        lexical_ids, lexical_docs = lexical.all_ids(), lexical.num_docs()
    except LexicalUnreadable as exc:
        problems.append(f"lexical index: {exc}; the next `ragd serve` rebuilds it")
        lexical_ids, lexical_docs = set(), 0
    if settings.vector_target.embedded:
        vectors = DataDir(data_dir).vectors
        dense_scopes, problem = _probe_copy(vectors, manifest, reader)
        if problem:
            problems.append(
                f"vector index: {vectors} is damaged ({problem}); "
                "the next `ragd serve` rebuilds it from the embedding cache"
            )
    else:
        dense_scopes, problem = _server_scopes(settings, manifest)
        if problem:
            problems.append(problem)
    dense_ids = set(dense_scopes)
    misscoped = scoped_otherwise(
        manifest, dense_ids, lambda ids: {i: dense_scopes[i] for i in ids if i in dense_scopes}
    )
    index = compare_ids(manifest, dense_ids, lexical_ids, lexical_docs, misscoped)
    path_filter = PathFilter.from_settings(settings, Roots(roots))
    disk = check_disk(manifest, roots, files_on_disk(roots, path_filter, settings.follow_symlinks))
    return report(index, disk, problems)


def built_by_an_older_ragd(manifest: Manifest) -> str | None:
    """Why the vector index cannot match this ragd's ids, when it was built with vectors
    of another kind (one per window, before one per distinct text): not damage, the next
    start rebuilds it; None when it is of this kind or cannot be told."""
    try:
        stored = json.loads(manifest.get_meta("fingerprint") or "{}")
    except ValueError:
        return None
    kind = stored.get("dense_metadata") if isinstance(stored, dict) else None
    if kind is None or kind == METADATA_VERSION:
        return None
    return (
        "the index was built by an older ragd (its vectors are of another kind); the next "
        "`ragd serve` rebuilds it from the documents, reusing every cached embedding"
    )


def _server_scopes(
    settings: Settings, manifest: Manifest
) -> tuple[dict[str, list[str]], str | None]:
    """The vector ids (window text hashes) in this data dir's collection on the server,
    each with its scope keys."""
    from ragd.index.server_store import ServerStore, VectorStoreUnavailable

    prefix = manifest.get_meta("vector_store_prefix")
    where = settings.vector_target
    if not where.collection_prefix:
        if prefix is None:
            return {}, None  # nothing was ever stored on a server
        where = where.with_prefix(prefix)
    store = ServerStore(DataDir(settings.data_path).vectors, where)
    try:
        return store.scopes(sorted(store.all_ids())), None
    except VectorStoreUnavailable as exc:
        return {}, str(exc)
    finally:
        store.close()


def _probe_copy(
    path: Path, manifest: Manifest, reader: Reader | None = None
) -> tuple[dict[str, list[str]], str | None]:
    """Probe a private copy of the ChromaDB folder (opening it may write, the original
    must not change): its vector ids, each with its scope keys."""
    if not path.exists():
        return {}, None
    foreign = not_chroma_files(path)  # before copying: a link to /dev/zero has no end
    if foreign:
        return {}, foreign
    with tempfile.TemporaryDirectory(prefix="ragd-check-") as tmp:
        copy = DataDir(Path(tmp)).vectors
        try:
            shutil.copytree(path, copy)
        except OSError as exc:
            return {}, f"could not copy it to {tmp} to probe it: {exc}"
        result = probe(copy, want_ids=True, reader=reader)
        return result.scopes, dense_problem(manifest, result, MODEL_ID)
