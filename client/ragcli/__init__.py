"""rag — the thin client. Imports only the standard library and ragproto (it speaks ZMTP itself)."""
