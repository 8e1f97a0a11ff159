"""Unit tests: no model, no daemon, no store; each file runs in seconds."""
