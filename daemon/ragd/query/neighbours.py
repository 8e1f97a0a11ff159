"""The chunks the keyless answer reads: the page, with the chunk right after its best one
when the retrievers found that one too.

A chunk boundary can fall between the passage that matches a question and the answer
that follows it: the regex crate's note that `\\b` is slow on non-ASCII text ends one
chunk and "(?-u:\\b)", the way round it, opens the next. The fused candidates often hold
that next chunk, ranked below the page. Only the best chunk's next one is added (issue
#19: "neighbouring units are considered"): giving the answerer every candidate past the
page, the neighbours of every page chunk, or the chunk before the best one too let their
units crowd out the page's (docs/answers.md, rounds keyless22 and keyless41). A model
answerer is shown the page alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ragd.query.types import RetrievedChunk

STEPS = (1,)  # the chunk right after the best one (places in its file, from it)


def around_the_best(
    page: Sequence[RetrievedChunk], candidates: Sequence[RetrievedChunk]
) -> list[RetrievedChunk]:
    """`page` with the candidates at STEPS from its first chunk in the same file put
    around it in the file's order (the answerer reads a unit's neighbours across a chunk
    boundary: a paragraph that goes on in the next chunk, a lead-in at the end of the one
    before). A chunk whose place in its file is unknown has no neighbours."""
    best = page[0] if page else None
    if best is None or best.ordinal is None:
        return list(page)
    place = best.ordinal
    shown = {c.chunk_id for c in page}
    beside: dict[int, RetrievedChunk] = {}
    for chunk in candidates:
        if chunk.source != best.source or chunk.ordinal is None or chunk.chunk_id in shown:
            continue
        step = chunk.ordinal - place
        if step in STEPS and step not in beside:
            beside[step] = chunk
    before = [beside[s] for s in sorted(beside) if s < 0]
    after = [beside[s] for s in sorted(beside) if s > 0]
    return [*before, best, *after, *page[1:]]


def listed(
    page: Sequence[RetrievedChunk],
    read: Sequence[RetrievedChunk],
    cited: Iterable[tuple[str, str]],
) -> list[RetrievedChunk]:
    """The sources an answer's reply lists: `page`, then each chunk read beside it whose
    section the answer cites and the page does not (the chunk after the best one may
    open the next section: its quote's `[ferry.md:Pets]` named no listed source)."""
    wanted = set(cited) - {(c.source, c.heading) for c in page}
    beside: list[RetrievedChunk] = []
    for chunk in read:
        if (chunk.source, chunk.heading) in wanted:
            wanted.discard((chunk.source, chunk.heading))
            beside.append(chunk)
    return [*page, *beside]
