"""`rag` — ask, search and manage a running ragd. Starts in tens of milliseconds.

Exit codes (ragproto.errors.ExitCode): 0 ok · 1 error · 2 usage · 3 daemon not running ·
4 timeout · 5 request rejected · 6 API key rejected · 7 model unavailable ·
8 model reply invalid (--json).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from typing import Any

from ragcli import render
from ragcli.transport import Connection
from ragproto.errors import ExitCode, RagError
from ragproto.protocol import REFUSAL_SENTENCE

ASK_TIMEOUT_S = 180.0  # silence allowed between frames of an answer (model retries included)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag", description="Ask questions about your documents (talks to ragd)."
    )
    parser.add_argument("--socket", help="daemon address (default: $RAG_SOCKET or the user socket)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ask = sub.add_parser("ask", help="answer a question from the documents, with citations")
    ask.add_argument("question", nargs="+")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.add_argument("--show-sources", action="store_true", help="list the retrieved chunks")
    ask.add_argument("--top-k", type=int, default=None, metavar="N")
    ask.add_argument("--min-score", type=float, default=None, metavar="F", help="support floor")
    ask.add_argument("--model", default=None, metavar="M", help="Claude model for this question")

    search = sub.add_parser("search", help="ranked chunks for a query, no answer")
    search.add_argument("query", nargs="+")
    search.add_argument("--top-k", type=int, default=5, metavar="N")
    search.add_argument("--json", action="store_true")
    search.add_argument("--mode", choices=("hybrid", "vector", "bm25"), default="hybrid")

    status = sub.add_parser("status", help="what the daemon is doing")
    status.add_argument("--json", action="store_true")
    status.add_argument("--wait", action="store_true", help="block until nothing is pending")
    status.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS")

    ingest = sub.add_parser("ingest", help="watch a folder (or re-read a file) and index it")
    ingest.add_argument("path")
    ingest.add_argument("--no-wait", action="store_true")
    ingest.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS")

    forget = sub.add_parser("forget", help="stop watching a root and drop its chunks")
    forget.add_argument("root", help="root name (as `rag status` shows it) or path")

    stats = sub.add_parser("stats", help="index summary")
    stats.add_argument("--json", action="store_true")

    sub.add_parser("chat", help="interactive questions with memory")
    sub.add_parser(
        "mcp",
        help="serve the Model Context Protocol on stdio (for Claude Code, Claude Desktop, …)",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        refuse_undecodable(args)
        code = COMMANDS[args.command](args)
    except RagError as exc:
        print(f"rag: {render.shown(str(exc))}", file=sys.stderr)
        code = int(exc.exit_code)
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    sys.exit(code)


class UsageError(RagError):
    exit_code = ExitCode.USAGE


def refuse_undecodable(args: argparse.Namespace) -> None:
    """One clear line for arguments that are not UTF-8 (Python keeps such bytes as lone
    surrogates, which the UTF-8 wire format cannot carry)."""
    for name, value in vars(args).items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and (problem := not_utf8(text, name.replace("_", " "))):
                raise UsageError(problem)


def not_utf8(text: str, what: str) -> str:
    """Why `text` cannot be sent ("" if it can)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        byte = text.encode("utf-8", "surrogateescape")[exc.start : exc.start + 1]
        return (
            f"the {what} is not valid UTF-8 text (byte 0x{byte.hex()}); ragd reads UTF-8 — "
            "check the terminal's or the file name's encoding"
        )
    return ""


def connect(args: argparse.Namespace) -> Connection:
    return Connection(args.socket)


def print_json(data: dict[str, Any]) -> None:
    data = {k: v for k, v in data.items() if not k.startswith("_")}
    print(render.json_text(data, indent=2))


# -- commands -----------------------------------------------------------------------------
def cmd_search(args: argparse.Namespace) -> int:
    data = connect(args).call(
        "search", {"query": " ".join(args.query), "top_k": args.top_k, "mode": args.mode}
    )
    if args.json:
        print_json(data)
    else:
        print(render.search(data))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    conn = connect(args)
    data = conn.call("status", {})
    if args.wait:
        deadline = time.monotonic() + args.timeout
        while data["state"] != "idle":
            if time.monotonic() > deadline:
                print(
                    f"rag: still {render.shown(data['state'])} after {args.timeout:g} s "
                    f"({data['pending']} pending)",
                    file=sys.stderr,
                )
                return int(ExitCode.TIMEOUT)
            time.sleep(0.1)
            data = conn.call("status", {})
    if args.json:
        print_json(data)
    else:
        print(render.status(data))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    data = connect(args).call("stats", {})
    if args.json:
        print_json(data)
    else:
        print(render.stats(data))
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    conn = connect(args)
    path = os.path.abspath(os.path.expanduser(args.path))
    data = conn.call("ingest", {"path": path})
    verb = "watching new root" if data.get("added") else "re-reading"
    print(f"{verb} {render.shown(data['path'])}", file=sys.stderr)
    if args.no_wait:
        return 0
    return follow_progress(conn, args.timeout)


def follow_progress(conn: Connection, timeout: float) -> int:
    """A live bar on a terminal, a plain line every few seconds when piped."""
    tty = sys.stderr.isatty()
    deadline = time.monotonic() + timeout
    last_line = 0.0
    while True:
        data = conn.call("status", {})
        p = data.get("progress") or {}
        done, total = p.get("done", 0), max(p.get("total", 0), 1)
        eta = f" ETA {p['eta_s']:.0f}s" if p.get("eta_s") is not None else ""
        text = f"{done}/{total} files · {p.get('chunks_per_s', 0):.1f} chunks/s{eta}"
        if data["state"] == "idle":
            if tty:
                sys.stderr.write("\r\033[K")
            print(
                f"indexed: {data['files']} files, {data['chunks']} chunks"
                f" ({len(data.get('errors') or [])} skipped)",
                file=sys.stderr,
            )
            return 0
        now = time.monotonic()
        if tty:
            filled = int(30 * done / total)
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {text}\033[K")
            sys.stderr.flush()
        elif now - last_line >= 2.0:
            print(f"indexing {text}", file=sys.stderr)
            last_line = now
        if now > deadline:
            print(f"\nrag: still indexing after {timeout:g} s", file=sys.stderr)
            return int(ExitCode.TIMEOUT)
        time.sleep(0.2)


def cmd_forget(args: argparse.Namespace) -> int:
    root = args.root
    if os.sep in root or root in (".", ".."):
        # A path is resolved here, against the user's working directory, not the daemon's.
        root = os.path.abspath(os.path.expanduser(root))
    data = connect(args).call("forget", {"root": root})
    print(f"forgot {render.shown(data['root'])}; its chunks are being removed from both indexes")
    return 0


# -- answers ------------------------------------------------------------------------------
def ask_once(
    conn: Connection, question: str, options: dict[str, Any], json_mode: bool, show_sources: bool
) -> dict[str, Any]:
    streamed = False
    final: dict[str, Any] = {}
    pending = 0
    for reply in conn.stream(
        "ask", {"question": question, "json": json_mode, **options}, ASK_TIMEOUT_S
    ):
        data = reply.get("data") or {}
        if reply.get("kind") == "delta" and not json_mode:
            sys.stdout.write(render.shown(str(data.get("text", "")), body=True))
            sys.stdout.flush()
            streamed = True
        elif reply.get("kind") == "final":
            final = data
            pending = int(reply.get("pending") or 0)  # files the index writer has yet to apply
    shown = render.shown(final)
    for warning in shown.get("warnings") or []:
        print(warning, file=sys.stderr)
    if json_mode:
        keys = ("answer", "citations", "confidence", "refused", "mode")
        print(render.json_text({k: final[k] for k in keys} | {"pending": pending}))
    else:
        if streamed:
            if not final.get("confidence_in_text"):
                sys.stdout.write(f"\n\nConfidence: {shown['confidence']}")
            sys.stdout.write("\n")
        else:
            print(f"{shown['answer']}\n\nConfidence: {shown['confidence']}")
        if show_sources:
            print(render.sources(final))
    if final.get("note"):
        print(f"note: {shown['note']}", file=sys.stderr)
    if pending:
        print(render.pending_note(pending), file=sys.stderr)
    return final


def cmd_ask(args: argparse.Namespace) -> int:
    options = {
        k: v
        for k, v in {"top_k": args.top_k, "min_score": args.min_score, "model": args.model}.items()
        if v is not None
    }
    ask_once(connect(args), " ".join(args.question), options, args.json, args.show_sources)
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    conn = connect(args)
    if isinstance(sys.stdin, io.TextIOWrapper):  # bytes that are not UTF-8: a line, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")
    session = os.urandom(8).hex()
    last: dict[str, Any] = {}
    print(
        "rag chat — ask away. /sources shows the last answer's sources, /reset forgets the "
        "conversation, /exit (or Ctrl-D) leaves.",
        file=sys.stderr,
    )
    while True:
        try:
            line = input("you> ").strip()
        except (EOFError, KeyboardInterrupt):
            print(file=sys.stderr)
            return 0
        if not line:
            continue
        if problem := not_utf8(line, "question"):
            print(f"rag: {problem}", file=sys.stderr)
            continue
        if line in ("/exit", "/quit"):
            return 0
        if line == "/reset":
            conn.call("chat_reset", {"session": session})
            print("(conversation forgotten)", file=sys.stderr)
            continue
        if line == "/sources":
            if last:
                print(render.sources(last))
            else:
                print("(no answer yet)", file=sys.stderr)
            continue
        try:
            last = ask_once(conn, line, {"session": session}, json_mode=False, show_sources=False)
        except KeyboardInterrupt:
            print("\n(interrupted)", file=sys.stderr)
            return 0
        except RagError as exc:
            print(f"rag: {render.shown(str(exc))}", file=sys.stderr)
            if exc.exit_code == ExitCode.NOT_RUNNING:
                return int(exc.exit_code)
        print()


def cmd_mcp(args: argparse.Namespace) -> int:
    # Imported here: the MCP SDK costs more start-up than the whole rest of the client.
    from ragcli import mcp_server

    return mcp_server.run(args.socket)


COMMANDS = {
    "ask": cmd_ask,
    "search": cmd_search,
    "status": cmd_status,
    "stats": cmd_stats,
    "ingest": cmd_ingest,
    "forget": cmd_forget,
    "chat": cmd_chat,
    "mcp": cmd_mcp,
}

__all__ = ["REFUSAL_SENTENCE", "main"]
