"""Logging to stderr: one line per event; journald-friendly under systemd.

When $JOURNAL_STREAM is set (stderr is connected to the journal) lines carry no
timestamp (the journal adds one) and start with a syslog `<N>` priority so
`journalctl -p warning` filters by level.
"""

from __future__ import annotations

import logging
import os
import sys

_PRIORITY = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}


class JournalFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{_PRIORITY.get(record.levelno, 6)}>"
        text = super().format(record)
        return "\n".join(prefix + line for line in text.splitlines() or [""])


def setup_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("chromadb", "httpx", "httpcore", "sentence_transformers", "transformers",
                  "urllib3", "watchdog", "anthropic", "filelock"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
