"""Asking a ChromaDB server whether it answers, in bounded time, and naming what is wrong.

`chromadb.HttpClient()` sends requests from its constructor with no timeout at all (its
HTTP session is made with ``timeout=None``), so a server that accepts TCP and never
replies would hold whoever creates the client forever. Hence, before a client is made:

- `heartbeat` asks ``/api/v2/heartbeat`` with the standard library and a short timeout,
  and says why not when the server does not answer like ChromaDB;
- `core/deadline.within` runs the client's creation on a thread with a deadline, for a
  server that answers the heartbeat and then hangs (the thread is left to the hung
  connection; what it makes after the deadline is closed, never used).

`describe` turns whatever a ChromaDB call raised into the words `rag status` shows.
"""

from __future__ import annotations

import http.client
import json
import ssl
from urllib.parse import urlsplit

from ragd.core import timings
from ragd.core.deadline import Late
from ragd.core.vector_store import VectorStore


def heartbeat(where: VectorStore, timeout_s: float | None = None) -> str | None:
    """None when the server answers its heartbeat as ChromaDB does, else why not; its
    connect and read wait `timeout_s`, else `probe_timeout_s` (core/timings.py)."""
    if timeout_s is None:
        timeout_s = timings.current().probe_timeout_s
    parts = urlsplit(where.url)
    host = parts.hostname or "127.0.0.1"
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 8000)
    conn: http.client.HTTPConnection
    if https:
        conn = http.client.HTTPSConnection(
            host, port, timeout=timeout_s, context=ssl.create_default_context()
        )
    else:
        conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        conn.request("GET", "/api/v2/heartbeat", headers=dict(where.headers))
        reply = conn.getresponse()
        body = reply.read(4096)
    except TimeoutError:
        return f"not answering (no reply within {timeout_s:g} s)"
    except ConnectionRefusedError:
        return "connection refused (no server on that port)"
    except (OSError, http.client.HTTPException) as exc:
        return f"connection failed ({type(exc).__name__}: {exc})"
    finally:
        conn.close()
    if reply.status != 200:
        return f"unexpected reply to its heartbeat (HTTP {reply.status})"
    try:
        beat = json.loads(body)
    except ValueError:
        return "unexpected reply to its heartbeat (not JSON: not a ChromaDB server?)"
    if not isinstance(beat, dict) or "nanosecond heartbeat" not in beat:
        return "unexpected reply to its heartbeat (not a ChromaDB server?)"
    return None


def describe(exc: BaseException, collection: str) -> tuple[str, bool]:
    """(what `rag status` says, whether the collection is gone) for a failed call."""
    import httpx
    from chromadb.errors import NotFoundError

    from ragd.index.dense import CollectionTaken

    if isinstance(exc, NotFoundError):
        return f"collection {collection} missing, recreating it", True
    if isinstance(exc, CollectionTaken):
        return str(exc), False  # said whole: what to do is at its end
    if isinstance(exc, Late):
        return str(exc), False
    if isinstance(exc, httpx.TimeoutException | TimeoutError):
        return "not answering (timeout)", False
    if isinstance(exc, httpx.ConnectError):
        return f"connection refused ({exc})", False
    if isinstance(exc, httpx.TransportError):
        return f"connection failed ({type(exc).__name__}: {exc})", False
    text = str(exc)
    text = text if len(text) <= 200 else text[:200] + "…"
    return f"unexpected reply ({type(exc).__name__}: {text})", False
