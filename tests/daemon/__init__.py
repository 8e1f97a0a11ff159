"""Daemon tests: real processes (ragd serve, rag, chroma run, subprocess checks)."""
