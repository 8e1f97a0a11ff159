"""Chunks → the texts the encoder actually sees (pure).

MiniLM reads at most 256 word pieces and silently drops the rest; a 500-token chunk is
≈ 520 pieces, so embedding it whole would hide its second half from dense search. Each
chunk is therefore embedded as one or more *windows* — the heading path (headings are
content: a version or an id may appear only there) followed by whole paragraphs, or
sentences of an oversized paragraph, packed up to the encoder's limit. Dense search
scores a chunk by its best window.

Windows are cut at paragraph boundaries, so editing one paragraph changes only the
window that holds it; the others hit the embedding cache.
"""

from __future__ import annotations

from collections.abc import Callable

from ragd.ingest.chunking import is_anchor, split_blocks, split_sentences

SPECIAL_TOKENS = 2  # [CLS] and [SEP]


def make_windows(
    heading: str, text: str, count_tokens: Callable[[str], int], max_tokens: int = 256
) -> list[str]:
    prefix = f"{heading}\n"
    whole = prefix + text
    budget = max_tokens - SPECIAL_TOKENS
    if count_tokens(whole) <= budget:
        return [whole]
    room = max(32, budget - count_tokens(prefix))
    units: list[tuple[str, int]] = []
    for block in split_blocks(text):
        size = count_tokens(block)
        if size <= room:
            units.append((block, size))
            continue
        for sentence in split_sentences(block) if "\n" not in block else block.split("\n"):
            units.extend(_cut_words(sentence, count_tokens, room))
    windows: list[str] = []
    current: list[str] = []
    used = 0
    for unit, size in units:
        if current and used + size + 1 > room:
            windows.append(prefix + "\n".join(current))
            current, used = [], 0
        current.append(unit)
        used += size + 1
        if used >= room // 2 and is_anchor(unit):  # content-defined cut, as in chunking
            windows.append(prefix + "\n".join(current))
            current, used = [], 0
    if current:
        windows.append(prefix + "\n".join(current))
    return windows


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
