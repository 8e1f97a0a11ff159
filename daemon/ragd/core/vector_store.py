"""Where the vectors live: ChromaDB embedded in the daemon, or a ChromaDB server.

`vector_store = "embedded"` (the default) keeps a PersistentClient under the data dir.
A URL (`http://127.0.0.1:8000`) reaches a server started with `chroma run` through
`chromadb.HttpClient`: the same collection API, so everything above the store works the
same. The URL may carry `?tenant=…&database=…&collection=…`; `vector_store_headers` adds
headers (an authenticating proxy's token). Several daemons can share one server: each
uses its own collection, `<collection>-chunks`, where `collection` defaults to an id drawn
once per data dir (`ragd-3f9c…`), so two daemons never write into each other's vectors.

ChromaDB's server does not enforce its auth tokens (a client without a token could create
collections; a cross-origin request got 200), so whoever reaches the port reads and
writes every collection. A server is therefore accepted on loopback, or elsewhere only
over TLS *and* with an auth header for an authenticating proxy in front of it;
`allow_insecure_vector_store = true` overrides that for a network the user trusts.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ragd.core.network_policy import BadServerUrl, missing_protection

EMBEDDED = "embedded"
HTTP_TIMEOUT_S = 60.0  # one request: far above a large upsert's time (docs/performance.md)
CONNECT_TIMEOUT_S = 5.0
OPEN_DEADLINE_S = 10.0  # start-up's wait for a server's open (ten requests; server_store)
# For tests and operators, not a settings key: start-up's wait for a server's open, in
# seconds, instead of OPEN_DEADLINE_S. A test of a server slower than that deadline waits
# it out in a fraction of the time; an operator whose server opens slowly can let start-up
# wait longer. Checked when the settings are loaded, read at each open.
OPEN_DEADLINE_ENV = "RAG_VECTOR_STORE_OPEN_S"
MAX_OPEN_DEADLINE_S = 3600.0
AUTH_HEADERS = ("authorization", "x-chroma-token", "proxy-authorization", "x-api-key")


class VectorStoreConfigError(ValueError):
    pass


@dataclass(frozen=True)
class VectorStore:
    """Where and under which name the dense index lives."""

    url: str = EMBEDDED
    collection_prefix: str = "ragd"  # "" on a server: Stores.open derives one per data dir
    tenant: str = ""
    database: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    # On a server: the id of the data dir whose vectors these are (drawn once, `Stores`),
    # written into the collection's metadata when it is created and checked at each open.
    owner: str = ""

    @property
    def embedded(self) -> bool:
        return self.url == EMBEDDED

    @property
    def collection(self) -> str:
        return f"{self.collection_prefix}-chunks"

    def with_prefix(self, prefix: str) -> VectorStore:
        return dataclasses.replace(self, collection_prefix=prefix)

    def owned_by(self, owner: str) -> VectorStore:
        return dataclasses.replace(self, owner=owner)

    def identity(self) -> str:
        """Which vectors these are: the server, tenant, database and collection (no header
        values), or the data dir's own embedded store. Kept in the manifest, so a start
        against another store than the last one compares every id (`Stores`)."""
        if self.embedded:
            return f"{EMBEDDED} {self.collection}"
        return f"{self.url} {self.tenant}/{self.database}/{self.collection}"

    def describe(self) -> str:
        """For status and stats: where, never the header values."""
        if self.embedded:
            return f"embedded ({self.collection})"
        where = "/".join(p for p in (self.tenant, self.database) if p)
        auth = f", headers: {', '.join(sorted(self.headers))}" if self.headers else ""
        return f"{self.url} ({where + '/' if where else ''}{self.collection}{auth})"


def open_deadline_s(environ: Mapping[str, str] | None = None) -> float:
    """How long start-up waits for a server's open: OPEN_DEADLINE_S unless
    RAG_VECTOR_STORE_OPEN_S says otherwise (VectorStoreConfigError when it is no number of
    seconds in (0, an hour])."""
    env = os.environ if environ is None else environ
    text = env.get(OPEN_DEADLINE_ENV, "").strip()
    if not text:
        return OPEN_DEADLINE_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= MAX_OPEN_DEADLINE_S:  # nan fails too
        raise VectorStoreConfigError(
            f"environment variable {OPEN_DEADLINE_ENV} must be a number of seconds greater "
            f"than 0 and at most {MAX_OPEN_DEADLINE_S:g}, got {text!r}"
        )
    return seconds


def from_settings(url: str, header_items: tuple[str, ...], allow_insecure: bool) -> VectorStore:
    """The configured store, or VectorStoreConfigError saying what is wrong with it."""
    headers = parse_headers(header_items)
    if url == EMBEDDED:
        if headers:
            raise VectorStoreConfigError("headers only apply to a ChromaDB server URL")
        return VectorStore()
    reason = insecure_reason(url, headers)
    if reason and not allow_insecure:
        raise VectorStoreConfigError(reason)
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    unknown = set(query) - {"tenant", "database", "collection"}
    if unknown:
        raise VectorStoreConfigError(f"unknown URL parameter(s): {', '.join(sorted(unknown))}")
    if parts.path.strip("/"):
        raise VectorStoreConfigError("the URL must be scheme://host:port (no path)")
    if parts.username is not None or parts.password is not None:
        # (Said without the URL: it holds the secret.)
        raise VectorStoreConfigError(
            "a user name or password in the URL is never sent (ChromaDB's client takes the "
            "host and port) and would be shown wherever the URL is (`rag status`, the "
            "log): give credentials as a header, vector_store_headers = "
            '["Authorization: Bearer …"]'
        )
    collection = query.get("collection", "")
    if collection and not _collection_name(collection):
        raise VectorStoreConfigError(
            f"collection={collection!r} is not a ChromaDB collection name: letters, digits, "
            "'.', '_' and '-', starting with a letter or digit, no '..', at most "
            f"{MAX_COLLECTION_CHARS} characters"
        )
    return VectorStore(
        url=f"{parts.scheme}://{parts.netloc}",
        collection_prefix=query.get("collection", ""),
        tenant=query.get("tenant", ""),
        database=query.get("database", ""),
        headers=headers,
    )


# ChromaDB's rule for a collection's name (3-512 characters of [a-zA-Z0-9._-], starting
# and ending with a letter or digit, no ".."), for `<collection>-chunks`: a name it
# refuses was taken at start, and the daemon then called the server "unreachable" and
# waited to index for ever (attack48b: `?collection=my%20notes`).
MAX_COLLECTION_CHARS = 500
_COLLECTION_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def _collection_name(name: str) -> bool:
    return (
        len(name) <= MAX_COLLECTION_CHARS
        and name[0].isascii()
        and name[0].isalnum()
        and set(name) <= _COLLECTION_CHARS
        and ".." not in name
    )


def parse_headers(items: tuple[str, ...]) -> dict[str, str]:
    """["Authorization: Bearer x"] → {"Authorization": "Bearer x"}."""
    headers: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":")
        if not sep or not name.strip() or not value.strip():
            raise VectorStoreConfigError(f"a header must look like 'Name: value', got {name!r}…")
        headers[name.strip()] = value.strip()
    return headers


def insecure_reason(url: str, headers: dict[str, str]) -> str | None:
    """Why this server address would expose the index, or None if it is acceptable."""
    has_auth = any(name.lower() in AUTH_HEADERS for name in headers)
    try:
        missing = missing_protection(url, has_auth_header=has_auth)
    except BadServerUrl:
        raise VectorStoreConfigError(
            f"must be 'embedded' or an http(s)://host:port URL: {url!r}"
        ) from None
    if not missing:
        return None
    return (
        f"{urlsplit(url).hostname} is not loopback and lacks {' and '.join(missing)}: "
        "ChromaDB does not enforce its tokens, so anyone who reaches it reads and writes the "
        "index. Put an authenticating TLS proxy in front, or set "
        "allow_insecure_vector_store = true"
    )


def connect(store: VectorStore, path: Path, timeout_s: float = HTTP_TIMEOUT_S) -> Any:
    """A chromadb client: persistent at `path` when embedded, else an HTTP client whose
    requests time out after `timeout_s` (the constructor's own requests have no timeout:
    see index/server_probe.py)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    # Telemetry off: documents and queries never leave the machine (or the chosen server).
    settings = ChromaSettings(anonymized_telemetry=False, allow_reset=True)
    if store.embedded:
        return chromadb.PersistentClient(path=str(path), settings=settings)
    parts = urlsplit(store.url)
    https = parts.scheme == "https"
    kwargs: dict[str, Any] = {}
    if store.tenant:
        kwargs["tenant"] = store.tenant
    if store.database:
        kwargs["database"] = store.database
    client = chromadb.HttpClient(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or (443 if https else 8000),
        ssl=https,
        headers=store.headers or None,
        settings=settings,
        **kwargs,
    )
    # chromadb's HTTP session never times out: a hung server would hang the writer and
    # every search. Bound each request instead (a failure is then reported and retried).
    session = getattr(getattr(client, "_server", None), "_session", None)
    if session is not None:
        import httpx

        session.timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S))
    return client
