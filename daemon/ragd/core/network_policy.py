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
        raise BadServerUrl(f"not an http(s)://host URL: {without_credentials(url)!r}")
    # urlsplit accepts what no request can carry: the error belongs here, at load time,
    # not in every later request (a pasted newline or space, a port past 65535).
    if any(char.isspace() or not char.isprintable() for char in url):
        raise BadServerUrl(
            f"a URL has no spaces or control characters: {without_credentials(url)!r}"
        )
    try:
        parts.port  # noqa: B018 — raises for a port that is not a number up to 65535
    except ValueError as exc:
        raise BadServerUrl(f"{exc}: {without_credentials(url)!r}") from None
    if is_loopback(parts.hostname):
        return []
    missing = [] if parts.scheme == "https" else [TLS]
    return missing + ([AUTH_HEADER] if has_auth_header is False else [])


def without_credentials(url: str) -> str:
    """`url` as it may be shown (status, errors, logs): without a `user:password@` part,
    which some servers' URLs carry and which is a secret like any key."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
