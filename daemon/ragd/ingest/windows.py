"""Chunks → the texts the encoder actually sees (pure).

MiniLM reads at most 256 word pieces and silently drops the rest; a 500-token chunk is
≈ 520 pieces, so embedding it whole would hide its second half from dense search. Each
chunk is therefore embedded as one or more *windows*, and dense search scores a chunk by
its best window.

A window is the heading path (headings are content: a version or an id may appear only
there) followed by **one block** — a paragraph, list, table or code block — or, for a
block larger than the encoder's limit, a run of its sentences (lines, for code). A
window never spans two blocks, so its text does not depend on where the chunker put the
chunk boundaries: when an edit makes a paragraph move to the next chunk, every window
keeps its text and hits the embedding cache. An edit to one paragraph therefore computes
one embedding (a few for a paragraph larger than a window), wherever the chunks fall.
(Version 3 packed several paragraphs per window; a paragraph that crossed a chunk
boundary then changed two chunks' windows — four embeddings for a one-sentence edit.)

One block per window costs one embedding per block, however small the block: a file of
one-word paragraphs (or one-line list items, release headings over one line each) made a
window every 8 characters — 21,030 embeddings for 256 KB, 34× a prose file's and 5× its
writer time (attack63). A file is planned with more blocks than its `window_budget` (one
per WINDOW_BUDGET_CHARS characters of the text it embeds, plus WINDOW_BUDGET_BASE; none
of 1,496 /usr/share/doc files has more than three quarters of its budget) only with its
blocks *shared*: consecutive blocks packed into windows of up to the encoder's limit, cut
after an anchor once half full.
"""

from __future__ import annotations

from collections.abc import Callable

from ragd.index.embedder import MAX_TOKENS
from ragd.ingest.chunking import is_anchor, is_code, split_blocks, split_sentences

SPECIAL_TOKENS = 2  # [CLS] and [SEP]
MIN_ROOM = 32  # word pieces left for text even under an absurdly long heading path
WINDOW_BUDGET_BASE = 64  # blocks any file may have a window each
WINDOW_BUDGET_CHARS = 40  # ... and one more per this many characters of the text it embeds
BLOCK_JOINER = "\n\n"


def window_budget(text_chars: int) -> int:
    """How many blocks a file whose chunks embed `text_chars` characters may window one
    by one; a file with more shares windows between its blocks (`make_windows`)."""
    return WINDOW_BUDGET_BASE + text_chars // WINDOW_BUDGET_CHARS


def blocks_in(text: str) -> int:
    """How many blocks `make_windows` windows `text` by: at least one window each."""
    return len(split_blocks(text))


def make_windows(
    heading: str,
    text: str,
    count_tokens: Callable[[str], int],
    max_tokens: int = MAX_TOKENS,
    shared: bool = False,
) -> list[str]:
    """The windows of a chunk with heading path `heading` embedding `text`: one block
    each (or a block's pieces), or, `shared`, consecutive blocks packed together."""
    prefix = f"{heading}\n"
    room = max(MIN_ROOM, max_tokens - SPECIAL_TOKENS - count_tokens(prefix))
    parts: list[str] = []
    if shared:
        sized = [one for block in split_blocks(text) for one in _sized(block, count_tokens, room)]
        parts = _pack(sized, BLOCK_JOINER, room)
    else:
        for block in split_blocks(text):
            parts.extend(_fit(block, count_tokens, room))
    return [prefix + part for part in parts] or [prefix + text]


def _sized(block: str, count_tokens: Callable[[str], int], room: int) -> list[tuple[str, int]]:
    """`_fit`'s pieces of one block, each with its size (a block that fits: counted once)."""
    size = count_tokens(block)
    if size <= room:
        return [(block, size)]
    return [(part, count_tokens(part)) for part in _fit(block, count_tokens, room)]


def _fit(block: str, count_tokens: Callable[[str], int], room: int) -> list[str]:
    """One block as pieces of at most `room` word pieces: itself, or runs of its sentences."""
    if count_tokens(block) <= room:
        return [block]
    if is_code(block) or "\n" in block:  # code, tables, lists: whole lines
        units, joiner = block.split("\n"), "\n"
    else:
        units, joiner = split_sentences(block), " "
    sized: list[tuple[str, int]] = []
    for unit in units:
        sized.extend(_cut_words(unit, count_tokens, room))
    return _pack(sized, joiner, room)


def _pack(sized: list[tuple[str, int]], joiner: str, room: int) -> list[str]:
    """Units (with their sizes) packed in order, cutting at the limit or at a
    content-defined anchor once half full, so an edit inside a long paragraph (or a file's
    run of shared blocks) re-synchronises at the next anchor."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for unit, size in sized:
        if current and used + size + 1 > room:
            pieces.append(joiner.join(current))
            current, used = [], 0
        current.append(unit)
        used += size + 1
        if used >= room // 2 and is_anchor(unit):
            pieces.append(joiner.join(current))
            current, used = [], 0
    if current:
        pieces.append(joiner.join(current))
    return pieces


def _cut_words(
    sentence: str, count_tokens: Callable[[str], int], room: int
) -> list[tuple[str, int]]:
    size = count_tokens(sentence)
    if size <= room:
        return [(sentence, size)] if sentence.strip() else []
    # No sentence boundary inside the limit (a long line, a URL list, minified text):
    # fall back to whole words, estimating pieces per word from this sentence.
    words = sentence.split()
    per_word = max(1.0, size / max(1, len(words)))
    step = max(1, int(room / per_word * 0.9))
    out = []
    for start in range(0, len(words), step):
        piece = " ".join(words[start : start + step])
        out.append((piece, count_tokens(piece)))
    return out
