"""A `vector_store` URL ragd cannot use as written is refused at start, in one line that
never repeats a secret (attack48b): a password in the URL was shown by `rag status`,
`rag stats`, the log and `ragd config`, and never sent (ChromaDB's client takes the host
and port); a collection name ChromaDB refuses was taken, and the daemon then called the
server "unreachable" and waited to index for ever."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragd.core.config import ConfigError, load_settings
from ragd.core.vector_store import MAX_COLLECTION_CHARS, VectorStoreConfigError, from_settings


@pytest.mark.parametrize(
    "url",
    ["http://alice:hunter2SECRET@127.0.0.1:18448", "http://alice@127.0.0.1:18448",
     "http://:hunter2SECRET@127.0.0.1:18448"],
)  # fmt: skip
def test_credentials_in_the_url_are_refused_without_being_repeated(
    tmp_path: Path, url: str
) -> None:
    with pytest.raises(VectorStoreConfigError, match="vector_store_headers"):
        from_settings(url, (), False)
    with pytest.raises(ConfigError) as refused:
        load_settings(None, None, {"HOME": str(tmp_path), "RAG_VECTOR_STORE": url})
    said = str(refused.value)
    assert "RAG_VECTOR_STORE" in said and "\n" not in said
    assert "hunter2SECRET" not in said and "alice" not in said


TOO_LONG = "x" * (MAX_COLLECTION_CHARS + 1)


@pytest.mark.parametrize("name", ["my%20notes", "..", "x/y", "a..b", "-lead", ".hidden", TOO_LONG])
def test_a_collection_name_chromadb_refuses_is_refused_at_start(name: str) -> None:
    with pytest.raises(VectorStoreConfigError, match="not a ChromaDB collection name"):
        from_settings(f"http://127.0.0.1:8000?collection={name}", (), False)


def test_a_collection_name_chromadb_takes_is_kept() -> None:
    for name in ("alice", "my_notes.v2", "A1-b", "x" * MAX_COLLECTION_CHARS):
        store = from_settings(f"http://127.0.0.1:8000?collection={name}", (), False)
        assert store.collection == f"{name}-chunks"
