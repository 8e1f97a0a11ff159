"""Request handlers: one method per op. The reading ops read committed state only;
`ingest` and `forget` queue work for the writer and change the watched roots.

Each op takes the loaded components from `Startup.require()` (a "starting" reply until
they exist) and what it reports from Health; ragd/serve/routes.py says which op runs where.
Nothing here waits for the index writer: search reads whatever the indexes hold now, and
every reply carries `pending` (files the writer still has to apply) so the client knows
how fresh it is.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ragd import __version__
from ragd.core import log_queue
from ragd.core.file_size_limit import file_size_limit
from ragd.core.names import as_on_disk, existing_path, shown
from ragd.core.no_text import LINK_NOT_FOLLOWED, is_no_text
from ragd.core.roots import Roots
from ragd.core.roots import refusal as roots_refusal
from ragd.engine.components import Startup
from ragd.engine.health import Health
from ragd.index import lexical
from ragd.index.dense import DenseIndexError
from ragd.index.embedder import MODEL_ID
from ragd.ingest.away_drives import NOT_MOUNTED
from ragd.ingest.filters import PathFilter
from ragd.ingest.work_queue import Job
from ragd.query import fusion
from ragd.query.answerers import choose_backend
from ragd.serve.arguments import arg_choice, arg_float, arg_int, arg_line_range, arg_str
from ragd.serve.disk_calls import Deadline, within_deadline
from ragd.serve.passages import Passage, PassageError, join_chunks, read_lines, section
from ragd.serve.scoping import resolve_scope
from ragd.serve.server import Request
from ragd.serve.views import result_json
from ragproto.errors import BadRequest, NotFound
from ragproto.file_names import name_of
from ragproto.protocol import (
    MAX_QUESTION_CHARS,
    MIN_SCORE_MAX,
    MIN_SCORE_MIN,
    TOP_K_MAX,
    TOP_K_MIN,
)

# The ignored folders `status` names (the shallowest first); the count says how many more.
IGNORED_FOLDERS_NAMED = 5

if TYPE_CHECKING:
    from ragd.core.config import LiveSettings
    from ragd.engine.components import Components
    from ragd.index.dense_store import DenseStore


class Handlers:
    def __init__(self, startup: Startup, health: Health, settings: LiveSettings) -> None:
        self.startup = startup
        self.health = health
        self.settings = settings  # read at use: a reload changes `top_k` and the backend

    def check(self, request: Request) -> dict[str, Any]:
        """`ragd check` beside this daemon: compare the stores while the writer is idle."""
        from ragd.core.exit_codes import CheckExit
        from ragd.engine.checkup import WriterNeverIdle, live_check

        components = self.startup.require()
        try:
            return live_check(components)
        except WriterNeverIdle as exc:
            return {"ok": False, "exit": CheckExit.UNANSWERED, "problems": [str(exc)]}

    def ping(self, request: Request) -> dict[str, Any]:
        # A client whose connection closed asks this to learn whether the daemon dropped
        # it (serve/connection_guard.py) or stopped (client/ragcli/transport.py).
        return {
            "version": __version__,
            "state": self.health.state(),
            "connections_dropped": self.health.drops.recent(),
        }

    def search(self, request: Request) -> dict[str, Any]:
        c = self.startup.require()
        query = arg_str(request.args, "query", max_len=MAX_QUESTION_CHARS)
        top_k = arg_int(request.args, "top_k", self.settings.current.top_k, TOP_K_MIN, TOP_K_MAX)
        mode = arg_choice(request.args, "mode", ("hybrid", "vector", "bm25"))
        floor = arg_float(request.args, "min_score", None, MIN_SCORE_MIN, MIN_SCORE_MAX)
        scope = resolve_scope(
            request.args, c.roots, c.stores.manifest, self.settings.current.disk_deadline_s
        )
        keys = scope.keys if scope else None
        result = c.retriever.search(query, top_k=top_k, mode=mode, floor=floor, scope=keys)
        reply: dict[str, Any] = {
            "query": query,
            "scope": scope.labels if scope else None,
            "gate": result.gate.as_json(),
            "results": [result_json(i, chunk) for i, chunk in enumerate(result.chunks, 1)],
            "index": index_summary(c),
        }
        if result.note:  # e.g. the vector store is unreachable: BM25 only
            reply["note"] = result.note
        return reply

    def status(self, request: Request) -> dict[str, Any]:
        health, basics = self.health, self.health.basics
        data: dict[str, Any] = {
            "state": health.state(),
            "version": __version__,
            "model": MODEL_ID,
            **choose_backend(self.settings.current).as_json(),
            "uptime_s": round(time.monotonic() - health.started, 1),
            "socket": self.settings.current.socket,
            "pending": basics.queue.pending_files(),
            "roots": [],
            "files": 0,
            "chunks": 0,
            "embeddings": {"computed": 0, "reused": 0},
            "ignored": {"files": 0, "folders": 0},
            "errors": [
                {"source": name, "reason": why}
                for name, why in health.store_problems(where="the data dir")
            ],
            "disk": {
                "free_bytes": basics.guard.free_bytes(),
                "needed_bytes": basics.guard.needed_bytes(),
            },
            "vector_store": health.vector_store_state(),
            "file_size_limit": file_size_limit(),  # bytes, or None: no index file is capped
            "connections_dropped": health.drops.recent(),  # None, or within the hour
        }
        c = self.startup.components
        if c is None:
            return data
        return data | self._loaded_status(c, data["errors"])

    def _loaded_status(self, c: Components, errors: list[dict[str, Any]]) -> dict[str, Any]:
        """The part of `status` that needs the components: roots, counts, activity."""
        data: dict[str, Any] = {}
        counts = c.stores.manifest.counts_by_root()
        names = c.roots.names()
        away = absent_roots(c)
        data["roots"] = [
            {
                "name": names[root],
                "files": counts.get(root, (0, 0))[0],
                "chunks": counts.get(root, (0, 0))[1],
                # Per root too: `rag ingest`'s summary names the types its root left out.
                "skipped_types": c.filter.tally.types([root]),
                "away": away.get(root),
            }
            for root in c.roots
        ]
        # Watched roots only: a forgotten root's rows may still be being pruned.
        data.update(
            files=sum(r["files"] for r in data["roots"]),
            chunks=sum(r["chunks"] for r in data["roots"]),
        )
        # Documents (by name) and folders the ignore rules left out, as the walks last saw.
        data["ignored"] = c.filter.tally.counts(c.roots)
        data["ignored_folders"] = [  # which ones, as source labels
            c.roots.label(root, rel)
            for root, rel in c.filter.tally.folders_named(
                c.roots, IGNORED_FOLDERS_NAMED, c.filter.skips_folder_name
            )
        ]
        n = c.indexer.counters
        data["embeddings"] = {"computed": n.embeddings_computed, "reused": n.embeddings_reused}
        data["activity"] = activity(c)
        data["errors"] = errors + self._problems(c, data)
        # Ignore files applied only in part (over a cap): the user must know some of
        # their rules are not in force.
        data["errors"] += [
            {"source": c.roots.label(root, rel), "reason": reason}
            for root, rel, reason in c.filter.rules.problems()[:100]
            if root in c.roots
        ]
        # Roots without a watch (no inotify watches left): their changes wait for a rescan.
        data["errors"] += [
            {"source": c.roots.label(root, ""), "reason": why}
            for root, why in c.watcher.problems()
            if root in c.roots
        ]
        # Another process's lock on the manifest (an sqlite3 shell, a backup): the
        # changes wait for it, which `idle` and `errors none` alone hid.
        data["manifest_locked"] = c.writer.busy.state()
        data["progress"] = self.health.progress()
        data["skipped_types"] = c.filter.tally.types(c.roots)
        data["progress"]["in_progress"] = c.indexer.in_progress()
        # Until the floor is learned for the index as it is now, questions are judged by
        # the default (or the previous index's) floor: `rag status` says so.
        # It is not measured while the vector store is down (BM25 alone gives a lower one).
        data["floor"] = c.floor_keeper.status()
        return data

    @staticmethod
    def _problems(c: Components, data: dict[str, Any]) -> list[dict[str, Any]]:
        """The files not indexed for a problem (at most 100, newest first). Two kinds are
        no problem and are listed apart (at most 100 each, with their counts): files with
        no text (an empty `__init__.py`: `no_text`, `no_text_files`) and links not
        followed while `follow_symlinks` is off (`not_followed`, `not_followed_files`)."""
        problems: list[dict[str, Any]] = []
        no_text: list[dict[str, Any]] = []
        not_followed: list[dict[str, Any]] = []
        for root, rel, reason, held in c.stores.manifest.problem_rows():
            if root not in c.roots:
                continue
            item = {"source": c.roots.label(root, rel), "reason": reason}
            if is_no_text(reason):
                no_text.append(item)
            elif reason == LINK_NOT_FOLLOWED:
                not_followed.append(item)
            else:
                problems.append(item | {"quarantined": held})
        data.update(no_text=no_text[:100], no_text_files=len(no_text))
        data.update(not_followed=not_followed[:100], not_followed_files=len(not_followed))
        # How many there are: the list is cut at 100, and `rag status` said `errors 100`
        # of 6,000 files (attack48).
        data["error_files"] = len(problems)
        return problems[:100]

    def stats(self, request: Request) -> dict[str, Any]:
        c = self.startup.require()
        files = [f for f in c.stores.manifest.files() if f.root in c.roots]
        dense = c.stores.dense
        return {
            "collection": dense.name,
            "vector_store": self.health.vector_store_state(),
            **vector_facts(dense),
            "chunks": sum(len(f.chunk_ids) for f in files),
            "files": sorted(
                (
                    {"source": c.roots.label(f.root, f.relpath), "chunks": len(f.chunk_ids)}
                    for f in files
                ),
                key=lambda f: f["source"],
            ),
            "lexical": {
                "docs": c.stores.lexical.num_docs(),
                "terms": c.stores.lexical.term_count(),
                **lexical.describe(),
            },
            "embedding": {
                "model": MODEL_ID,
                "dimension": c.embedder.dimension,
                "max_tokens": c.embedder.max_tokens,
                "precision": c.precision.precision,
                "precision_setting": self.settings.current.embed_precision,
                "precision_reason": c.precision.reason,
            },
            "chunking": {
                "target_tokens": c.params.target_tokens,
                "overlap_tokens": c.params.overlap_tokens,
                "windows": "heading path + one paragraph/block, "
                f"≤ {c.embedder.max_tokens} word pieces",
            },
            "retrieval": {
                "candidates": c.retriever.candidates,
                "fusion": fusion.describe(),
                "top_k": self.settings.current.top_k,
                "support_floor": c.retriever.floor().value,
                "floor": c.retriever.floor().as_json(),
            },
            # Lines lost while stderr was not read (journald backlogged, a parent that
            # never reads): the log cannot say so until it is read again.
            "log": {"dropped_lines": log_queue.dropped_lines()},
        }

    @staticmethod
    def ingest_path(request: Request) -> Path:
        """`ingest`'s argument, checked without touching the disk (also on the loop)."""
        path = Path(arg_str(request.args, "path", blank_ok=True))
        if not path.is_absolute():
            raise BadRequest("'path' must be absolute (the client resolves it)")
        return path

    def left_out_within(
        self, roots: Roots, root: str, rel: str, mode: int, spelled: Path, deadline: Deadline
    ) -> str | None:
        """Why the walk leaves `rel` of `root` out, within what is left of the ingest's
        disk deadline (it reads ignore files); None when it is indexed, or when that could
        not be told in time: the ingest is not refused for it."""
        try:
            return within_deadline(
                partial(self.left_out, roots, root, rel, stat.S_ISDIR(mode)),
                spelled.name or str(spelled),
                deadline,
            )
        except (BadRequest, OSError):
            return None

    def left_out(self, roots: Roots, root: str, rel: str, is_dir: bool) -> str | None:
        """Why the walk leaves `rel` of `root` out (PathFilter.left_out_because), decided
        by a filter of its own: the writer's holds caches only its thread may touch."""
        settings = self.settings.current
        path_filter = PathFilter.from_settings(settings, roots)
        relative = PurePosixPath(rel)
        return path_filter.left_out_because(
            root, relative, Path(root, rel), is_dir, settings.follow_symlinks
        )

    @staticmethod
    def forget_name(request: Request) -> str:
        """`forget`'s argument (also checked on the loop)."""
        return arg_str(request.args, "root", blank_ok=True)

    def ingest(self, request: Request) -> dict[str, Any]:
        c = self.startup.require()
        spelled = self.ingest_path(request)
        # The look-up stats the path: on a stalled mount that never returns, and it held
        # this search worker for as long as the mount hung (`serve/disk_calls.py`).
        deadline = Deadline(self.settings.current.disk_deadline_s)  # (one for both looks)
        target = within_deadline(
            partial(look_up_ingest, c.roots, spelled, self.settings.current.data_path),
            spelled.name or str(spelled),
            deadline,
        )
        before = activity(c)  # (before the job is queued: the writer may run it at once)
        if target.place is not None and not target.linked:
            root, rel = target.place
            left_out = self.left_out_within(c.roots, root, rel, target.mode, spelled, deadline)
            # force: a file skipped for a problem is tried again even though unchanged;
            # and its bytes are read even if its size and mtime are the indexed ones
            # (`ingest/rewrites.py`): "re-reading" said so, and it read nothing. Unchanged,
            # it is not indexed again, and `rag ingest` says so (render.reread_outcome).
            job = Job("sync", root, rel, force=True)
            if stat.S_ISREG(target.mode):
                c.queue.rewrites.mark((root, rel))
            size = target.size if stat.S_ISREG(target.mode) else 0
            c.queue.put(job, debounce=False, size=size, folder=stat.S_ISDIR(target.mode))
            # What it is and the counts before it, so `rag ingest` says what came of it.
            reply: dict[str, Any] = {
                "root": c.roots.names()[root],
                "added": False,
                "path": c.roots.label(root, rel),
                "file": stat.S_ISREG(target.mode),
                "activity": before,
            }
            if left_out is not None:
                reply["left_out"] = left_out
            return reply
        if target.place is not None:  # a folder of a root under another name: re-read it there
            root, rel = target.place
            c.queue.put(Job("sync", root, rel), debounce=False, folder=True)
            return {
                "root": c.roots.names()[root],
                "added": False,
                "path": c.roots.label(root, rel),
                "activity": before,
            }
        root = str(target.path.absolute())
        added = c.add_root(root)
        name = c.roots.names()[root]
        return {"root": name, "added": added, "path": name, "activity": before}

    def forget(self, request: Request) -> dict[str, Any]:
        c = self.startup.require()
        name = self.forget_name(request)
        root = c.roots.by_name(name) or c.roots.by_name(name_of(name))  # a key spells a name
        if root is None:
            # Say which names would work: a root is forgotten by the name `rag status`
            # shows, and a path typed from memory (or a typo) is the usual miss.
            inside = c.roots.locate(name) if os.path.isabs(name) else None
            if inside is not None and inside[1]:
                # A folder inside a root (`rag forget ~/notes/drafts`): only a whole root
                # can be forgotten, so say both ways out rather than only the root names.
                owner = c.roots.names()[inside[0]]
                raise NotFound(
                    f"{name!r} is inside the watched root {owner}, not a root itself: "
                    f"`rag forget {owner}` stops watching all of it; to leave out only this "
                    "folder, add it to `exclude` in config.toml or to a .ragignore"
                )
            watched = ", ".join(c.roots.names().values()) or "none"
            raise NotFound(f"no watched root named {name!r} (watched roots: {watched})")
        label = c.roots.names()[root]
        c.forget_root(root)
        return {"root": label, "forgotten": True}

    # -- reading back (rag mcp: resources and the `get` tool) ---------------------
    def documents(self, request: Request) -> dict[str, Any]:
        c = self.startup.require()
        files = [
            {"source": c.roots.label(f.root, f.relpath), "chunks": len(f.chunk_ids)}
            for f in c.stores.manifest.files()
            if f.root in c.roots
        ]
        return {"documents": sorted(files, key=lambda f: f["source"])}

    def get(self, request: Request) -> dict[str, Any]:
        """A document's indexed text, one section of it, or a range of its lines."""
        c = self.startup.require()
        source = arg_str(request.args, "source")
        heading = arg_str(request.args, "heading", required=False)
        lines = request.args.get("lines")
        if heading and lines is not None:
            raise BadRequest("give 'heading' or 'lines', not both")
        located = c.roots.resolve(source)
        if located is None or c.stores.manifest.file(*located) is None:
            raise NotFound(
                f"no indexed document {source!r} (use a source exactly as search results show it)"
            )
        root, relpath = located
        reply: dict[str, Any] = {"source": source}
        try:
            if lines is not None:
                start, end = arg_line_range(lines)
                read = partial(
                    read_lines,
                    root,
                    relpath,
                    start,
                    end,
                    c.indexer.max_file_bytes,
                    c.indexer.follow_symlinks,
                )
                # Read from the file itself: on a stalled mount the open never returned,
                # and it held this search worker until the mount did (`disk_calls`).
                passage = within_deadline(
                    read,
                    PurePosixPath(relpath).name,
                    Deadline(self.settings.current.disk_deadline_s),
                )
            elif heading:
                passage = section(c.stores.manifest.chunks_of(root, relpath), heading)
                reply["heading"] = " ".join(heading.split())
            else:
                passage = join_chunks(c.stores.manifest.chunks_of(root, relpath), True)
        except PassageError as exc:
            raise BadRequest(str(exc)) from None
        return reply | passage_json(passage)


@dataclass(frozen=True)
class IngestTarget:
    """What `rag ingest PATH` names, as the disk says: the path (as spelled on disk), its
    mode and size (of one stat: not of two files in a race), and the root and folder it
    re-reads (`linked`: reached through a link), or no place: a new root."""

    path: Path
    mode: int
    size: int
    place: tuple[str, str] | None
    linked: bool = False


def look_up_ingest(roots: Roots, spelled: Path, data_path: Path) -> IngestTarget:
    """Every disk look-up `ingest` makes before it changes anything (run with a deadline),
    or the one line saying why the path cannot be ingested."""
    # A key spells a name that is not UTF-8; a name typed in NFC finds its NFD spelling.
    path, st = stat_on_disk(Path(existing_path(str(spelled))))
    located = roots.locate(path)
    if located is not None and (located[1] or stat.S_ISREG(st.st_mode)):
        return IngestTarget(path, st.st_mode, st.st_size, located)
    if not stat.S_ISDIR(st.st_mode):
        if stat.S_ISREG(st.st_mode):  # a document outside every root: say what would work
            # (By name only: no reply carries an absolute path, test_security.)
            raise BadRequest(
                f"{shown(path.name)} is in no watched folder, and a new root must be a "
                "folder: ingest the folder that holds it"
            )
        raise BadRequest("a new root must be a folder")
    linked = linked_place(roots, path)
    if linked is not None:
        return IngestTarget(path, st.st_mode, st.st_size, linked, linked=True)
    if (why := roots_refusal(path)) is not None:
        raise BadRequest(why)
    if holds_index(path, data_path):
        raise BadRequest(f"{path.name} holds ragd's own index (the data dir): no documents")
    return IngestTarget(path, st.st_mode, st.st_size, None)


def absent_roots(c: Components) -> dict[str, dict[str, Any]]:
    """root → {why, since} for each root whose folder is away: gone or unmounted (the
    watcher's), or an empty folder with its drive not mounted since start-up (the
    scan's). Its documents are kept and answer; before, only the log said so, and
    `rag status` read `errors none`. `since`: seconds since the epoch."""
    away = {
        root: {"why": NOT_MOUNTED, "since": round(since)}
        for root, since in c.indexer.reconcile.mounted.away_now().items()
    }
    for root, (why, since) in c.watcher.absent().items():
        away[root] = {"why": why, "since": round(since)}  # the newer news
    return away


def index_summary(c: Components) -> dict[str, int]:
    files, chunks = c.stores.manifest.counts()
    return {"files": files, "chunks": chunks, "pending": c.queue.pending_files()}


def passage_json(passage: Passage) -> dict[str, Any]:
    data: dict[str, Any] = {"text": passage.text, "truncated": passage.truncated}
    if passage.lines is not None:
        data["lines"] = list(passage.lines)
    return data


def stat_on_disk(spelled: Path) -> tuple[Path, os.stat_result]:
    """`spelled` and what it names, from one stat when it exists (a second stat of a path
    on a hung mount never returns); only when nothing is there, the same name in another
    Unicode normal form (`as_on_disk`)."""
    try:
        return spelled, os.stat(spelled)
    except FileNotFoundError:
        path = Path(as_on_disk(str(spelled)))
        return path, path_stat(path)
    except OSError as exc:
        raise unreadable(spelled, exc) from None


def path_stat(path: Path) -> os.stat_result:
    """What `path` names (links followed), or the one line saying why there is nothing
    to read there: missing, or a name the system refuses (too long, a folder on the way
    that may not be searched, …) — never an internal error."""
    try:
        return os.stat(path)
    except OSError as exc:
        raise unreadable(path, exc) from None


def unreadable(path: Path, exc: OSError) -> NotFound | BadRequest:
    """The one line for a stat of `path` that failed with `exc`."""
    if isinstance(exc, FileNotFoundError):
        return NotFound(f"no such file or folder: {path.name}")
    return BadRequest(f"cannot read {path.name}: {exc.strerror or exc}")


def linked_place(roots: Roots, path: Path) -> tuple[str, str] | None:
    """The watched root, and the folder in it, that `path` is under another name (a
    symbolic link to a root or to a folder inside one, or a root named through one), if
    any. Added as a new root, that folder was watched twice: its walk found nothing
    through the link, but the watcher indexed every later save under both names."""
    if str(path.absolute()) in roots:
        return None  # the root itself, by its own name: added again is a no-op
    real = Path(os.path.realpath(path))
    for root in roots:
        base = Path(os.path.realpath(root))
        if real == base or base in real.parents:
            return root, real.relative_to(base).as_posix() if real != base else ""
    return None


def holds_index(path: Path, data_dir: Path) -> bool:
    """`path` is the data dir or a folder inside it: as a root it would be walked and
    watched while every index write changes it, and hold nothing the filter lets in."""
    real, data = Path(os.path.realpath(path)), Path(os.path.realpath(data_dir))
    return real == data or data in real.parents


def activity(c: Components) -> dict[str, int]:
    """The writer's counts of files since the start (`rag status`; `rag ingest` compares
    them before and after to say what came of re-reading a path)."""
    n = c.indexer.counters
    return {
        "files_read": n.files_read,
        "files_indexed": n.files_indexed,
        "files_removed": n.files_removed,
        "files_unchanged": n.files_unchanged,
    }


def vector_facts(dense: DenseStore) -> dict[str, Any]:
    """`stats`' distance, HNSW settings and vector count, or None for each with the reason
    (`vectors_unavailable`) while the store cannot be read: locked by another process,
    its server down, its worker restarting. They said "unknown (vector store
    unreachable)" and "0 vectors" (locked42: a locked store is reachable, and its vectors
    are all there); the manifest's files and chunks and the BM25 side are known all the
    same and stay in the reply."""
    why = dense.unavailable()
    try:
        space, hnsw = dense.space(), dense.hnsw_settings()
        vectors = None if why else dense.count()  # (a server's count asks it again)
    except DenseIndexError as exc:
        space, hnsw, vectors, why = None, {}, None, why or str(exc)
    return {"distance": space, "hnsw": hnsw, "vectors": vectors, "vectors_unavailable": why}
