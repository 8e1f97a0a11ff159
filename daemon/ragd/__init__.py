"""ragd — the daemon: watches folders, keeps a dense and a lexical index warm, answers."""

__version__ = "0.1.0"
