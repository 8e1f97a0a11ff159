"""Documents → chunks along headings (pure).

1. Split into *sections*: every chunk belongs to exactly one heading path
   (``H1 > H2 > H3``). Text before the first heading belongs to the document title.
2. Split each section into *blocks*: paragraphs, fenced code (atomic — a ``#`` inside a
   fence is code, not a heading), tables and lists stay whole.
3. *Pack* blocks into chunks of at most `target_tokens` (estimated as chars/4), cutting at
   the limit or at a content-defined anchor once a chunk is half full. A new chunk in the
   same section starts with ≈ `overlap_tokens` of whole trailing paragraphs from the
   previous one. A paragraph larger than a chunk is split at sentence boundaries.

Packing is per section, so an edit can only move chunk boundaries inside its own section:
the rest of the file keeps its chunk ids and needs no new embeddings.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ragd.ingest.loaders import Document

# 2: content-defined cut points; 3: overlap is not embedded twice; 4: one block per window
CHUNKER_VERSION = 4
CHARS_PER_TOKEN = 4
HEADING_SEPARATOR = " > "

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) and whitespace.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")


@dataclass(frozen=True)
class ChunkParams:
    target_tokens: int = 500
    overlap_tokens: int = 50

    @property
    def target_chars(self) -> int:
        return self.target_tokens * CHARS_PER_TOKEN

    @property
    def overlap_chars(self) -> int:
        return self.overlap_tokens * CHARS_PER_TOKEN

    def fingerprint(self) -> str:
        return f"v{CHUNKER_VERSION}:t{self.target_tokens}:o{self.overlap_tokens}"


@dataclass(frozen=True)
class Chunk:
    heading: tuple[str, ...]
    text: str
    page: int | None = None
    # `text` without the paragraphs carried over from the previous chunk. The overlap is
    # there for the answer's context; it is already embedded with the chunk it came from,
    # so only this part is embedded — an edit to a carried paragraph re-embeds one chunk.
    fresh: str = ""

    @property
    def embed_text(self) -> str:
        return self.fresh or self.text

    @property
    def heading_path(self) -> str:
        return HEADING_SEPARATOR.join(self.heading)


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def chunk_document(doc: Document, params: ChunkParams = ChunkParams()) -> list[Chunk]:
    if doc.kind == "pdf":
        chunks: list[Chunk] = []
        for page, text in doc.pages:
            for body, fresh in pack_with_overlap(split_blocks(text), params):
                chunks.append(Chunk((doc.title,), body, page, fresh))
        return chunks
    if doc.kind == "text":
        return [
            Chunk((doc.title,), body, None, fresh)
            for body, fresh in pack_with_overlap(split_blocks(doc.text), params)
        ]
    chunks = []
    for heading, lines in split_sections(doc.text, doc.title):
        for body, fresh in pack_with_overlap(split_blocks("\n".join(lines)), params):
            chunks.append(Chunk(heading, body, None, fresh))
    return chunks


def split_sections(text: str, fallback_title: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """Markdown → [(heading path, body lines)], honouring code fences."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first_h1 = _first_h1(lines)
    title = first_h1 or fallback_title
    stack: list[tuple[int, str]] = []
    sections: list[tuple[tuple[str, ...], list[str]]] = []
    current: list[str] = []
    fence: str | None = None

    def flush() -> None:
        path = tuple(h for _, h in stack) or (title,)
        if any(line.strip() for line in current):
            sections.append((path, list(current)))
        current.clear()

    for line in lines:
        fence_match = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
            ):
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            current.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _clean_heading(heading.group(2))))
            continue
        current.append(line)
    flush()
    return sections


def _first_h1(lines: list[str]) -> str | None:
    fence = False
    for line in lines:
        if _FENCE.match(line):
            fence = not fence
            continue
        if not fence:
            match = _HEADING.match(line)
            if match and len(match.group(1)) == 1:
                return _clean_heading(match.group(2))
    return None


def _clean_heading(text: str) -> str:
    # " > " separates levels; keep a literal ">" in a heading from faking a level.
    return re.sub(r"\s+", " ", text.replace(" > ", " › ")).strip()


def split_blocks(text: str) -> list[str]:
    """Paragraphs separated by blank lines; a fenced code block is one block."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        fence_match = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if fence_match and fence_match.group(1)[0] == fence[0]:
                fence = None
                blocks.append("\n".join(current))
                current = []
            continue
        if fence_match:
            if any(c.strip() for c in current):
                blocks.append("\n".join(current).strip("\n"))
            current = [line]
            fence = fence_match.group(1)
            continue
        if not line.strip():
            if any(c.strip() for c in current):
                blocks.append("\n".join(current).strip("\n"))
            current = []
            continue
        current.append(line.rstrip())
    if any(c.strip() for c in current):
        blocks.append("\n".join(current).strip("\n"))
    return blocks


def is_code(block: str) -> bool:
    return bool(_FENCE.match(block))


def split_sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    return [p for p in parts if p]


def _split_oversized(block: str, limit: int) -> list[str]:
    """Cut a block that is larger than a chunk into pieces of at most `limit` chars."""
    if is_code(block):
        units = block.split("\n")  # last resort for huge code: whole lines
        joiner = "\n"
    else:
        units = split_sentences(block)
        joiner = " "
    pieces: list[str] = []
    current = ""
    for unit in units:
        while len(unit) > limit:  # a "sentence" with no boundary (e.g. minified text)
            cut = unit.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            if current:
                pieces.append(current)
                current = ""
            pieces.append(unit[:cut].rstrip())
            unit = unit[cut:].lstrip()
        candidate = f"{current}{joiner}{unit}" if current else unit
        if len(candidate) > limit and current:
            pieces.append(current)
            current = unit
        else:
            current = candidate
    if current:
        pieces.append(current)
    return pieces


ANCHOR_PREFIX = 48


def is_anchor(unit: str) -> bool:
    """A content-defined cut point: about one paragraph in three, decided by its own hash.

    Cutting after anchors (once a chunk is at least half full) instead of purely greedily
    keeps chunk boundaries where they were when an earlier paragraph grows or shrinks:
    the boundaries re-synchronise at the next anchor, so an edit re-embeds only nearby
    chunks instead of every later one in the section.
    """
    # Only the paragraph's opening is hashed, so an edit further in keeps the cut point.
    digest = hashlib.blake2b(unit[:ANCHOR_PREFIX].encode("utf-8"), digest_size=2).digest()
    return int.from_bytes(digest, "big") % 3 == 0


def pack_with_overlap(blocks: list[str], params: ChunkParams) -> list[tuple[str, str]]:
    """Pack whole blocks into chunks: cut at the size limit, or at an anchor past half of it.

    Each new chunk starts with ≈ `overlap_tokens` of whole trailing paragraphs from the
    previous one.
    """
    limit = params.target_chars
    # Code stays atomic up to 3 chunks' worth; past that it is cut at line breaks.
    units: list[str] = []
    for block in blocks:
        cap = limit * 3 if is_code(block) else limit
        units.extend(_split_oversized(block, limit) if len(block) > cap else [block])
    chunks: list[tuple[list[str], int]] = []  # (blocks, how many lead blocks are overlap)
    current: list[str] = []
    size = 0
    fresh = 0  # blocks in `current` that are not overlap from the previous chunk

    def close() -> None:
        nonlocal current, size, fresh
        chunks.append((current, len(current) - fresh))
        current = _overlap(current, params.overlap_chars)
        size = sum(len(b) for b in current) + 2 * max(0, len(current) - 1)
        fresh = 0

    for unit in units:
        added = len(unit) + (2 if current else 0)
        if current and fresh and size + added > limit:
            close()
            added = len(unit) + (2 if current else 0)
            if size + added > limit:  # overlap would overflow: drop it
                current, size = [], 0
                added = len(unit)
        current.append(unit)
        size += added
        fresh += 1
        if size >= limit // 2 and is_anchor(unit):
            close()
    if current and fresh:
        chunks.append((current, len(current) - fresh))
    return [("\n\n".join(c), "\n\n".join(c[carried:])) for c, carried in chunks]


def _overlap(previous: list[str], budget: int) -> list[str]:
    """Trailing whole paragraphs (no code) of `previous` within ≈ `budget` chars."""
    carried: list[str] = []
    used = 0
    for block in reversed(previous[1:]):  # never carry the whole previous chunk
        if is_code(block) or used + len(block) > budget * 1.5:
            break
        carried.insert(0, block)
        used += len(block)
        if used >= budget:
            break
    return carried
