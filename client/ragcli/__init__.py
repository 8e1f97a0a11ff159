"""rag — the thin client. Imports only the standard library, pyzmq and ragproto."""
