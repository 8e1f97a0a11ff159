"""Java, C and C# files indexed by the daemon's own writer (the default include patterns,
the parse workers, the chunker, MiniLM, ChromaDB and tantivy), then searched: a passage
inside a method comes back under its type and member (`class BerthManager >
findBerth()`), not `(untitled)` as each such file was before chunker version 73."""

from __future__ import annotations

from pathlib import Path

from tests.component.test_markup_index import searched
from tests.unit.test_code_brace_languages import BACKEND_C, MANAGER_JAVA, RUNTIME_CS


def test_code_passages_are_found_under_their_type_and_member(
    tmp_path: Path,
    embedder,  # type: ignore[no-untyped-def]
) -> None:
    files = {
        "BerthManager.java": MANAGER_JAVA.decode(),
        "backend.c": BACKEND_C.decode(),
        "Runtime.cs": RUNTIME_CS.decode(),
    }
    with searched(tmp_path, embedder, files) as retriever:
        found = retriever.search("find a free berth for a vessel", top_k=3).chunks[0]
        assert (found.source, found.heading) == (
            "BerthManager.java",
            "class BerthManager > findBerth()",
        )
        assert "Finds a free berth for a vessel." in found.text
        counted = retriever.search("counts the berths, how many there are", top_k=3).chunks[0]
        assert (counted.source, counted.heading) == ("backend.c", "count_berths()")
        started = retriever.search("starts the runtime", top_k=3).chunks[0]
        assert (started.source, started.heading) == ("Runtime.cs", "class Runtime > Initialize()")
