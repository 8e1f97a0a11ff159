"""Every op the daemon answers, declared once: its name, its lane and its handler.

    loop     cheap, answered inline on the server loop (reads committed state, never a
             file: the loop must not wait on the file system; bounded whatever the
             index's size: nothing per file)
    search   computes (encodes a question) or touches the file system or the database
             (reads a file, stats a path the client names: `ingest`; stores the watched
             roots: `forget`): one reply, on the search pool
    ask      streams an answer delta by delta, on its own pool
    check    waits for the index writer to be idle (`ragd check`), on a pool of one of its
             own: a search worker held for minutes is every search held, two checks
             at once on two cores

`owner_only` ops change which folders ragd reads: only the daemon's own user may send
them (ragd/serve/server.py says how that is known). To add an op: write its handler (it takes
the components it needs from `Startup.require()`) and add one row here.
"""

from __future__ import annotations

from ragd.serve.ask import AskService
from ragd.serve.handlers import Handlers
from ragd.serve.running_asks import RunningAsks
from ragd.serve.server import Route


def table(handlers: Handlers, asker: AskService, running: RunningAsks) -> list[Route]:
    return [
        Route("ping", "loop", handlers.ping),
        Route("status", "loop", handlers.status),
        # Every file's row, sorted: 0.5 s and 1.4 MB at 20,000 files, which held every
        # other request while it ran on the loop (attack48b: a search waited 14 s).
        Route("stats", "search", handlers.stats),
        Route("ingest", "search", handlers.ingest, owner_only=True, check=handlers.ingest_path),
        Route("forget", "search", handlers.forget, owner_only=True, check=handlers.forget_name),
        Route("documents", "search", handlers.documents),
        Route("get", "search", handlers.get),
        Route("chat_reset", "loop", asker.chat_reset),
        Route("search", "search", handlers.search),
        Route("check", "check", handlers.check),
        Route("ask", "ask", asker.ask),
        # A client giving up on its ask (Ctrl-C; an MCP host's cancel): on the loop, so it
        # is read in order after the ask it names (serve/running_asks.py).
        Route("cancel", "loop", running.cancel_request),
    ]
