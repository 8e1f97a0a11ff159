"""When a server URL may be used: the one rule for every server ragd talks to over HTTP.

A server on loopback is reached only from this machine. Anywhere else, what is sent (the
index for a vector store, the user's documents for an answer server) crosses a network,
so it must go over TLS, and a caller may require more (the vector store: an auth header,
because ChromaDB does not enforce its tokens). Each setting has its own explicit opt-in
for a network the user trusts (`allow_insecure_vector_store`, `allow_insecure_openai`).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

TLS = "TLS (https://)"
AUTH_HEADER = "an auth header"


class BadServerUrl(ValueError):
    """Not an http(s)://host… URL."""


def missing_protection(url: str, has_auth_header: bool | None = None) -> list[str]:
    """What `url` lacks to be used across a network: [] on loopback, else TLS if it is
    plain http, and an auth header when `has_auth_header` is False (None: not required)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadServerUrl(f"not an http(s)://host URL: {url!r}")
    if is_loopback(parts.hostname):
        return []
    missing = [] if parts.scheme == "https" else [TLS]
    return missing + ([AUTH_HEADER] if has_auth_header is False else [])


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
