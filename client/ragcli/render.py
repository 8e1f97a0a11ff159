"""Human-readable output for the client's commands (plain text, no dependencies).

Every string that reaches a terminal passes `shown` first. Document text, file names and
error reasons come from files anyone may have written: an escape sequence in them
(``\x1b]0;…\x07`` sets the window title, ``\x1b[2J`` clears the screen, a C1 ``\x9b``
starts a command on some terminals, ``\r`` overwrites the line, a newline in a file name
forges a line of the list) would act on the user's terminal. `shown` writes each such
character as a visible escape (``\x1b``) instead and keeps everything else, ordinary
Unicode included; body text keeps its newlines and tabs, which are its structure.
`--json` output is exact instead (`json_text`): JSON escapes what it must.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from ragproto.connection_drops import drops_said
from ragproto.lock_wait import clock, manifest_wait
from ragproto.protocol import citation
from ragproto.sizes import counted, file_size_limit_line, human_size

# C0 controls, DEL, C1 controls, marks that reorder displayed text (bidi overrides and
# isolates), line/paragraph separators, and lone surrogates (which cannot be printed).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE_IN_JSON = re.compile(  # what json.dumps(ensure_ascii=False) leaves raw
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
BODY_KEYS = frozenset({"text", "answer"})  # multi-line document or answer text


def _visible(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_SHOWN_ESCAPE = re.compile(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})")


def _decodes(match: re.Match[str]) -> str | None:
    """The character an escape `shown` writes stands for (None: not one of its spellings):
    a character it escapes, or a backslash that would otherwise begin one (`\\x5c`)."""
    char = chr(int(match[1] or match[2], 16))
    escaped = char == "\\" or _UNSAFE.fullmatch(char)
    return char if escaped and _visible(char) == match[0] else None


def unshown(text: str) -> str:
    """The string that `shown` printed as `text`: a name a user copies from the output
    (`evil\\x0aname.md`) back to the name itself. Only escapes `shown` writes are read (a
    character it would escape, in its spelling), so other backslashes stay as they are."""
    return _SHOWN_ESCAPE.sub(lambda m: _decodes(m) or m[0], text)


def _one_line(text: str) -> str:
    # A backslash that begins one of our spellings is written `\x5c` first, so a name
    # with its own `\x0a` prints apart from one holding a newline and reads back as itself.
    text = _SHOWN_ESCAPE.sub(lambda m: "\\x5c" + m[0][1:] if _decodes(m) else m[0], text)
    return _UNSAFE.sub(lambda m: _visible(m[0]), text)


def message(text: str) -> str:
    """An error line, terminal-safe with its backslashes as written: the daemon names what
    it refuses through `repr` (escaped already), and the `\\x5c` rule is for names a user
    copies back, not for messages."""
    return _UNSAFE.sub(lambda m: _visible(m[0]), text)


def shown(value: Any, body: bool = False) -> Any:
    """`value` with every string made terminal-safe; dicts and lists are walked.

    `body` keeps newlines and tabs (and turns CRLF into a newline); inside a dict, the
    values of BODY_KEYS are body text, every other string is one line.
    """
    if isinstance(value, str):
        if body:
            value = value.replace("\r\n", "\n")
            return _UNSAFE.sub(lambda m: m[0] if m[0] in "\n\t" else _visible(m[0]), value)
        return _one_line(value)
    if isinstance(value, dict):
        return {shown(k): shown(v, body or k in BODY_KEYS) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [shown(v, body) for v in value]
    return value


def json_text(value: Any, indent: int | None = None) -> str:
    """Exact JSON, with the characters a terminal would act on written as \\u escapes."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def snippet(text: str, width: int = 300) -> str:
    """A chunk's first words on one line. A code chunk is written as a Markdown code block:
    its fence lines (```` ```sh ````, ```` ``` ````) are the index's markup, not the file's
    words, and each preview of a script began "```sh #!/bin/sh" (newuser44)."""
    lines = (line for line in text.splitlines() if not line.lstrip().startswith(("```", "~~~")))
    flat = " ".join(" ".join(lines).split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def ranks(result: dict[str, Any]) -> str:
    parts = []
    if result.get("vector_rank"):
        parts.append(f"vector #{result['vector_rank']}")
    if result.get("bm25_rank"):
        parts.append(f"bm25 #{result['bm25_rank']}")
    return ", ".join(parts) or "—"


def _span(one: str, many: str, span: list[int]) -> str:
    return f"{one} {span[0]}" if span[0] == span[1] else f"{many} {span[0]}–{span[1]}"


def location(result: dict[str, Any]) -> str:
    """Where a result is in its file: "page 3", "lines 12–30", "cell 4", "slide 2",
    "rows 1–40" (or "")."""
    parts = []
    if result.get("page"):
        parts.append(f"page {result['page']}")
    if result.get("lines"):
        parts.append(_span("line", "lines", result["lines"]))
    if result.get("cells"):
        parts.append(_span("cell", "cells", result["cells"]))
    if result.get("slides"):
        parts.append(_span("slide", "slides", result["slides"]))
    if result.get("rows"):
        parts.append(_span("row", "rows", result["rows"]))
    return ", ".join(parts)


def search(data: dict[str, Any]) -> str:
    data = shown(data)
    lines = []
    gate = data["gate"]
    results = data["results"]
    scope = data.get("scope")
    if not results:
        where = f" under {', '.join(scope)}" if scope else ""
        lines.append(f"no results{where} (is anything indexed? try `rag status`)")
    for r in results:
        where = f" ({location(r)})" if location(r) else ""
        lines.append(f"{r['rank']}. {r['source']}{where} — {r['heading']}")
        lines.append(f"   support {r['score']:.3f} · fused {r['fused']:.4f} · {ranks(r)}")
        lines.extend(
            textwrap.wrap(
                snippet(r["text"]), width=88, initial_indent="   ", subsequent_indent="   "
            )
        )
    index = data["index"]
    lines.append(
        f"\n{gate_line(gate)} · "
        f"{counted(index['files'], 'file')}, {counted(index['chunks'], 'chunk')} indexed, "
        f"{index['pending']} pending"
    )
    if scope:
        lines.append(f"searched only in: {', '.join(scope)}")
    if data.get("note"):
        lines.append(f"note: {data['note']}")
    return "\n".join(lines)


# What each number is about (docs/calibration.md). The gate's p reads the retrieval: do the
# documents cover what the question is about? A quoted answer's confidence reads the quotes
# picked: do they hold what was asked? Both had been worded as "answer the question", and
# `Confidence: low` with "may not answer" beside `pass (p 0.86)` read as one number
# contradicting the other (newuser43): a subject the documents cover, a quote that misses.
GATE_CHANCE_OF = "that the documents cover what the question is about"
QUOTES_CHANCE_OF = "that these quotes hold what you asked"


def confidence_line(final: dict[str, Any]) -> str:
    """`Confidence: low (that these quotes hold what you asked)` under a quoted answer; the bare
    label under a refusal (nothing quoted) or a model's answer (the model's own judgement)."""
    line = f"Confidence: {shown(final['confidence'])}"
    if final.get("mode") == "extractive" and not final.get("refused"):
        line += f" ({QUOTES_CHANCE_OF})"
    return line


def gate_line(gate: dict[str, Any]) -> str:
    """ "gate: best support 0.663 passes the 0.387 floor (learned: …)", the gate's verdict
    and chance when it has them, and any refusal reason."""
    side = "passes" if gate["support"] >= gate["floor"] else "below"
    origin = gate.get("floor_origin", "")
    detail = gate.get("floor_detail", "")
    source = f" ({origin}: {detail})" if origin and detail else f" ({origin})" if origin else ""
    line = f"gate: best support {gate['support']:.3f} {side} the {gate['floor']:.3f} floor{source}"
    if gate.get("rescue"):  # under the floor, and yet not refused: say what let it through
        line += f", not refused: {gate['rescue']}"
    if gate.get("verdict") and gate.get("probability") is not None:
        # Said in words: beside a keyless `Confidence: low`, a bare "pass (p 0.92)" read
        # as a contradiction; the two are chances of different things (confidence_line).
        line += f"; {gate['verdict']} (p {gate['probability']:.2f} {GATE_CHANCE_OF})"
    if not gate["passed"] and gate.get("reason") and gate["reason"] != "below the floor":
        line += f"; refused: the question {gate['reason']}"
    return line


def status(data: dict[str, Any]) -> str:
    data = shown(data)
    roots = ", ".join(
        f"{r['name']} ({counted(r['files'], 'file')}, {counted(r['chunks'], 'chunk')})"
        for r in data["roots"]
    )
    emb = data["embeddings"]
    # Before READY the daemon has not opened its index: its roots and counts are unknown,
    # not none (a user told "none" re-adds a root ragd is about to serve).
    starting = data["state"] == "starting"
    unknown = "not known until ragd is ready (loading the model and the index)"
    rows = [
        ("state", data["state"]),
        ("roots", roots or (unknown if starting else "none (add one with `rag ingest FOLDER`)")),
        # Counts grouped in thousands, as the roots row above them says "2,708 chunks".
        ("files", "—" if starting else f"{data['files']:,}"),
        ("chunks", "—" if starting else f"{data['chunks']:,}"),
        ("ignored", _ignored(data.get("ignored") or {}, data.get("ignored_folders") or [])),
        ("pending", f"{data['pending']:,}"),
        ("embeddings", f"{emb['computed']:,} computed, {emb['reused']:,} reused since start"),
        ("model", data["model"]),
        ("vectors", data.get("vector_store", "embedded")),
        ("answers", _answers(data)),
        ("version", data["version"]),
        ("uptime", f"{data['uptime_s']:.0f} s"),
        ("socket", data["socket"]),
    ]
    progress = data.get("progress")
    if progress and data["pending"]:
        rows.insert(1, ("progress", progress_line(progress)))
    if locked := data.get("manifest_locked"):
        rows.insert(1, ("waiting", manifest_wait(locked)))
    if dropped := data.get("connections_dropped"):  # the guard's, within the hour
        rows.insert(1, ("dropped", drops_said(dropped)))
    floor = data.get("floor") or {}
    if floor_stale(floor):
        rows.insert(1, ("gate floor", floor_pending(floor, idle=data["state"] == "idle")))
    if (limit := data.get("file_size_limit")) is not None:
        rows.append(("file size", file_size_limit_line(limit)))
    skipped = data.get("skipped_types") or {}
    if skipped:
        counts = ", ".join(f"{n:,} {suffix}" for suffix, n in skipped.items())
        rows.append(("skipped", f"{counts} (file types not indexed; see `include`)"))
    out = [f"{k:<11}{v}" for k, v in rows]
    for item in reversed((progress or {}).get("in_progress") or []):
        out.insert(2, f"  {item['source']}: {_in_progress(item)}")
    after_roots = next(i for i, line in enumerate(out) if line.startswith("roots ")) + 1
    out[after_roots:after_roots] = away_lines(data["roots"])
    out.extend(_no_text_lines(data))
    out.extend(_not_followed_lines(data))
    errors = data.get("errors") or []
    out.append(f"{'errors':<11}{error_count(data) if errors else 'none'}")
    for e in errors[:ERRORS_SHOWN]:
        held = " (not retried until it changes)" if e.get("quarantined") else ""
        out.append(f"  {e['source']}: {e['reason']}{held}")
    return "\n".join(out)


ERRORS_SHOWN = 20  # error lines under `errors` (the daemon sends 100, --json shows them)


def error_count(data: dict[str, Any]) -> str:
    """`errors`' figure: every error, the files past the 100 listed counted too
    (`error_files`), and how many are shown when that is fewer."""
    errors = data.get("errors") or []
    listed = sum(1 for e in errors if "quarantined" in e)  # (a file's, not the store's)
    total = len(errors) - listed + int(data.get("error_files", listed))
    if total <= ERRORS_SHOWN:
        return str(total)
    return f"{total:,} ({ERRORS_SHOWN} shown; `rag status --json` lists {len(errors)})"


# What `rag status` says of a root whose folder is away, by the daemon's `why`.
_AWAY = {
    "gone": "folder gone since {at}; its documents are kept until it returns",
    "unmounted": (
        "its file system was unmounted at {at}; its documents are kept until it is mounted again"
    ),
    "not mounted": (
        "its folder is empty with nothing mounted on it since {at} (a drive not mounted yet?); "
        "its documents are kept until it is mounted"
    ),
}


def away_lines(roots: list[dict[str, Any]], now: float | None = None) -> list[str]:
    """One line per root whose folder is away (gone, or its drive not mounted): its
    documents are kept and answer, which `errors none` and the counts alone hid."""
    lines = []
    for r in roots:
        if away := r.get("away"):
            said = _AWAY.get(away.get("why"), "away since {at}; its documents are kept")
            lines.append(f"  {r['name']}: {said.format(at=clock(away['since'], now))}")
    return lines


def _no_text_lines(data: dict[str, Any]) -> list[str]:
    """Files skipped for having no text (an empty `__init__.py`): a count and a few
    names, apart from the errors — there is nothing wrong with them."""
    count = data.get("no_text_files") or 0
    head = f"{counted(count, 'file')} skipped: nothing to index"
    return _listed_apart("no text", head, data.get("no_text"), count)


def _not_followed_lines(data: dict[str, Any]) -> list[str]:
    """Symbolic links left unread because `follow_symlinks` is off (the default): a count
    and a few names, apart from the errors — skipping them is the setting, not a failure."""
    count = data.get("not_followed_files") or 0
    them = "it" if count == 1 else "them"
    head = f"{count:,} not followed (follow_symlinks = true reads {them})"
    return _listed_apart("links", head, data.get("not_followed"), count)


def _listed_apart(row: str, head: str, items: list[dict[str, Any]] | None, count: int) -> list[str]:
    """A status row of files not indexed for no fault (`row`, then `head`), and the first
    SKIPPED_SHOWN of their names."""
    if not count:
        return []
    lines = [f"{row:<11}{head}"]
    lines += [f"  {item['source']}" for item in (items or [])[:SKIPPED_SHOWN]]
    if count > SKIPPED_SHOWN:
        lines.append(f"  … and {count - SKIPPED_SHOWN:,} more (`rag status --json` lists them)")
    return lines


def floor_stale(floor: dict[str, Any]) -> bool:
    """The gate floor in force was not learned for the index as it is now (a configured
    floor is never learned); an older daemon sends no `floor`."""
    return bool(floor) and floor.get("origin") != "configured" and not floor.get("current", True)


def floor_pending(floor: dict[str, Any], idle: bool = False) -> str:
    """The gate floor while it is not yet learned for the index as it is now. Idle, the
    daemon is learning it (seconds): "until indexing settles" beside `state idle` read as
    never, while a question asked meanwhile is judged by another floor."""
    if floor.get("waiting_for_vectors"):
        until, again = "until the vector store answers", "once the vector store answers"
    elif idle:
        waits = "(`rag status --wait` waits for it)"
        until, again = f"until it is, in a moment {waits}", f"now {waits}"
    else:
        until, again = "until indexing settles", "once indexing settles"
    if floor.get("origin") == "default":
        return (
            f"not learned yet for this index: questions are judged by the default "
            f"{floor['value']:.3f} {until}"
        )
    return f"{floor['value']:.3f}, learned before the latest changes; re-learning {again}"


def progress_line(progress: dict[str, Any]) -> str:
    """ "641/653 files, 3.1 MB of 48 MB, 8.1 chunks/s, ETA 310 s": the bytes say how much work
    is left when a few large files remain (an older daemon sends no bytes)."""
    eta = f", ETA {progress['eta_s']:.0f} s" if progress.get("eta_s") is not None else ""
    size = ""
    if progress.get("bytes_total"):
        size = f", {bytes_done(progress.get('bytes_done', 0), progress['bytes_total'])}"
    return (
        f"{progress.get('done', 0)}/{progress.get('total', 0)} files{size}, "
        f"{progress.get('chunks_per_s', 0):.1f} chunks/s{eta}"
    )


def share_done(progress: dict[str, Any]) -> float:
    """How full `rag ingest`'s bar is: by bytes, like the ETA (by files it would look
    nearly full with the largest file still to embed); by files from an older daemon."""
    if progress.get("bytes_total"):
        done, total = progress.get("bytes_done", 0), progress["bytes_total"]
    else:
        done, total = progress.get("done", 0), progress.get("total", 0)
    return min(done, total) / max(total, 1)


def bytes_done(done: int, total: int) -> str:
    """ "3.1 MB of 48 MB", each in the unit that suits it (a small ingest: "2 KB of 10 KB")."""
    return f"{human_size(done)} of {human_size(total)}"


# What a file set aside waits for, by the daemon's `next` (an older daemon sends none).
_QUEUED = {
    "parsing": "queued for a parse worker",
    "chunking": "queued to be chunked",
    "embedding": "queued to embed {total:,} windows after another file",
}


def _in_progress(item: dict[str, Any]) -> str:
    """One slow file, with the seconds of the step it is on: "parsing for 12 s",
    "parsing: OCR 3/12 pages (12 s)", "embedding 512/4,096 windows (40 s)", "queued for a
    parse worker (30 s)" or "keeps changing: its next version in 9 s"."""
    if item.get("stage") == "changing":  # a file written non-stop, just indexed
        return f"keeps changing: its next version in {item.get('wait_s', 0):.0f} s"
    if item.get("stage") == "queued" and item.get("next") in _QUEUED:
        said = _QUEUED[item["next"]].format(total=item.get("total", 0))
        return f"{said} ({item.get('elapsed_s', 0):.0f} s)"
    if item.get("stage") == "embedding":
        return f"embedding {item['done']:,}/{item['total']:,} windows ({item['elapsed_s']:.0f} s)"
    if item.get("unit") == "pages":
        return f"parsing: OCR {item['done']:,}/{item['total']:,} pages ({item['elapsed_s']:.0f} s)"
    return f"{item.get('stage', 'working')} for {item.get('elapsed_s', 0):.0f} s"


def _ignored(counts: dict[str, int], named: list[str]) -> str:
    """One line: "3 files, 1 folder (…why): docs/tutorials/", or "nothing". The folders the
    daemon names (the shallowest few) follow, so a user missing documents sees where they
    are; `rag ingest` of one says which rule leaves it out."""
    files, folders = counts.get("files", 0), counts.get("folders", 0)
    if not files and not folders:
        return "nothing"
    what = f"{counted(files, 'file')}, {counted(folders, 'folder')}"
    line = f"{what} (ignore files, exclude, hidden names, skip_folders)"
    if named:
        more = folders - len(named)
        line += ": " + ", ".join(f"{shown(name)}/" for name in named)
        line += f" and {more:,} more" if more > 0 else ""
    return line


def root_summary(data: dict[str, Any], root: str) -> str:
    """`rag ingest`'s last line: what the root it added (or re-read) now holds."""
    data = shown(data)
    roots = data.get("roots") or []
    mine = next((r for r in roots if r["name"] == shown(root)), None)
    if mine is None:  # an older daemon, or the root was forgotten meanwhile
        held = f"{counted(data['files'], 'file')}, {counted(data['chunks'], 'chunk')}"
        return f"indexed: {held} in all roots"
    prefix = "" if len(roots) == 1 else f"{mine['name']}/"  # one root: labels have no prefix
    errors = [e for e in skipped(data) if e["source"].startswith(prefix)]
    return (
        f"indexed {mine['name']}: {counted(mine['files'], 'file')}, "
        f"{counted(mine['chunks'], 'chunk')} "
        f"({len(errors):,} skipped{types_left_out(mine.get('skipped_types') or {})})"
    )


TYPES_SHOWN = 3  # `rag status` counts each


def types_left_out(types: dict[str, int]) -> str:
    """The clause `rag ingest`'s summary adds for files no `include` pattern matches
    (`; 1 file of a type not indexed: .numbers`): the count of skipped files named only
    those with errors, and such a file was mentioned nowhere but in `rag status`."""
    if not types:
        return ""
    kinds = "a type" if len(types) == 1 else "types"
    names = ", ".join(list(types)[:TYPES_SHOWN]) + (", …" if len(types) > TYPES_SHOWN else "")
    return f"; {counted(sum(types.values()), 'file')} of {kinds} not indexed: {names}"


SKIPPED_SHOWN = 5  # `rag status` lists them all


def skipped(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every file a status names as not indexed: for a problem, for having no text, or
    a link not followed."""
    return [
        *(data.get("errors") or []),
        *(data.get("no_text") or []),
        *(data.get("not_followed") or []),
    ]


def reread_outcome(
    path: str, is_file: bool, before: dict[str, Any] | None, after: dict[str, Any]
) -> str | None:
    """What `rag ingest` of a path already watched came to, from the daemon's `activity`
    counts before and after (other changes applied meanwhile count too); None from a
    daemon whose ingest reply has no counts before (older than the client). A file's bytes
    are read and compared whatever its stat says; unchanged, nothing is indexed again: its
    chunks would be the same. A folder's files are compared by size and time, as every
    scan does (reading all of a large folder again would cost minutes for nothing)."""
    if before is None:
        return None
    indexed = after.get("files_indexed", 0) - before.get("files_indexed", 0)
    removed = after.get("files_removed", 0) - before.get("files_removed", 0)
    if indexed <= 0 and removed <= 0:
        if is_file:
            return f"{path}: unchanged since it was indexed (its bytes compared): nothing to do"
        return (
            f"{path}: nothing changed since it was indexed (each file's size and time "
            "as indexed): nothing to do"
        )
    if is_file:
        return f"{path}: {'indexed again' if indexed > 0 else 'removed'}"
    done = [f"{counted(indexed, 'file')} indexed again"] if indexed > 0 else []
    done += [f"{counted(removed, 'file')} removed"] if removed > 0 else []
    return f"{path}: {', '.join(done)}"


def skipped_lines(data: dict[str, Any], root: str, path: str) -> list[str]:
    """`rag ingest`'s lines after its summary: why the file it was asked to read, or the
    files under the folder, were skipped (a FIFO, an empty or damaged file), so the user
    who asked sees the reason, not only a count."""
    whole_root = path == root
    if whole_root:  # with one root, sources carry no root name
        path = "" if len(data.get("roots") or []) <= 1 else root
    errors = [
        e
        for e in skipped(data)
        if not path or e["source"] == path or e["source"].startswith(path + "/")
    ]
    lines = [f"skipped {shown(e['source'])}: {shown(e['reason'])}" for e in errors]
    if len(lines) > SKIPPED_SHOWN:
        more = len(lines) - SKIPPED_SHOWN
        lines = [*lines[:SKIPPED_SHOWN], f"… and {more} more (`rag status` lists them)"]
    return lines


def _answers(data: dict[str, Any]) -> str:
    kind, model = data.get("answers"), data.get("answer_model")
    problem = f" — {data['answers_problem']}" if data.get("answers_problem") else ""
    if kind == "claude":
        return f"Claude ({model}){problem}"
    if kind == "openai":
        return f"openai-compatible ({model} at {data.get('answer_url')}){problem}"
    return (
        "extractive (set ANTHROPIC_API_KEY, or openai_base_url for a local model, for "
        "the daemon to write answers)"
    )


def _precision(embedding: dict[str, Any]) -> str:
    chosen = embedding["precision"]
    if embedding.get("precision_setting") == "auto":
        return f"{chosen} (auto: {embedding.get('precision_reason', '')})"
    return f"{chosen} ({embedding.get('precision_reason') or 'configured'})"


def stats(data: dict[str, Any]) -> str:
    data = shown(data)
    out = [
        f"collection   {data['collection']} ({_collection_settings(data)})",
        f"vectors in   {data.get('vector_store', 'embedded')}",
        f"chunks       {data['chunks']} ({_vector_count(data)})",
        f"lexical      {data['lexical']['docs']} docs, {data['lexical']['terms']} terms, "
        f"tokenizer {data['lexical']['tokenizer']}, BM25 k1={data['lexical']['bm25']['k1']} "
        f"b={data['lexical']['bm25']['b']}",
        f"embedding    {data['embedding']['model']} ({data['embedding']['dimension']} dims, "
        f"{data['embedding']['max_tokens']} word pieces, {data['embedding']['precision']})",
        f"precision    {_precision(data['embedding'])}",
        f"chunking     ≈{data['chunking']['target_tokens']} tokens, "
        f"{data['chunking']['overlap_tokens']} overlap; {data['chunking']['windows']}",
        f"retrieval    {data['retrieval']['candidates']} candidates per retriever, "
        f"{data['retrieval']['fusion']}, top {data['retrieval']['top_k']}, "
        f"support floor {_floor(data['retrieval'])}",
        f"files        {len(data['files'])}",
    ]
    dropped = (data.get("log") or {}).get("dropped_lines", 0)
    if dropped:
        out.insert(-1, f"log          {dropped} lines dropped: ragd's stderr was not being read")
    out.extend(f"  {f['chunks']:>5}  {f['source']}" for f in data["files"])
    return "\n".join(out)


def _collection_settings(data: dict[str, Any]) -> str:
    if data.get("distance") is None:  # the store cannot be read now (`vectors_unavailable`)
        return "distance and HNSW settings not readable now"
    hnsw = data["hnsw"]
    return (
        f"distance: {data['distance']}, HNSW M={hnsw.get('max_neighbors')}, "
        f"ef_construction={hnsw.get('ef_construction')}, ef_search={hnsw.get('ef_search')}"
    )


def _vector_count(data: dict[str, Any]) -> str:
    """ "2,708 vectors", or why the count is not known while files, chunks and the BM25
    side (the lines around it) are: "0 vectors" was said of a store locked by another
    process, all its vectors there."""
    if data.get("vectors") is None:
        why = data.get("vectors_unavailable") or "the vector store cannot be read now"
        return f"as the manifest says; the vector count is unavailable: {why}"
    return counted(data["vectors"], "vector")


def sources(final: dict[str, Any]) -> str:
    """The retrieved chunks under an answer, marked cited or not."""
    cited = {(c.get("source"), c.get("heading")) for c in final.get("citations") or []}
    gate = shown(final.get("gate"))
    lines = ["", gate_line(gate)] if gate else []
    lines += ["", "Sources:"]
    for r, raw in zip(shown(final.get("sources") or []), final.get("sources") or [], strict=True):
        mark = "cited" if (raw["source"], raw["heading"]) in cited else "not cited"
        where = f"{location(r)} · " if location(r) else ""
        # Written from the raw fields, then made terminal-safe: citation() escapes the
        # backslash of an escape `shown` wrote (`evil\\x0aname.md` for `evil\x0aname.md`).
        cited_as = shown(citation(raw["source"], raw["heading"]))
        lines.append(
            f"  {r['rank']}. {cited_as} {where}support {r['score']:.3f} · {ranks(r)} · {mark}"
        )
    return "\n".join(lines)


def _floor(retrieval: dict[str, Any]) -> str:
    floor = retrieval.get("floor")
    if not floor:
        return str(retrieval["support_floor"])
    return f"{floor['value']:.3f} ({floor['origin']}: {floor['detail']})"


def pending_note(pending: int) -> str:
    """Said with every answer and refusal while the index is still filling."""
    files = "1 file is" if pending == 1 else f"{pending} files are"
    return f"note: {files} still being indexed — ask again when rag status shows idle"
