"""rag — the thin client. Imports only the standard library and ragproto (it speaks ZMTP
itself); pyzmq only for tcp://, whose CURVE encryption needs a crypto library."""
