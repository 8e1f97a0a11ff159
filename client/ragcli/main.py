"""`rag` — ask, search and manage a running ragd. Starts in tens of milliseconds.

Exit codes (ragproto.errors.ExitCode): 0 ok · 1 error · 2 usage · 3 daemon not running ·
4 timeout · 5 request rejected · 6 API key rejected · 7 model unavailable ·
8 model reply invalid (--json).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import signal
import sys
import time
from typing import Any, NoReturn

from ragcli import render
from ragcli.scope import absolute, named_whole, scope_paths
from ragcli.transport import Connection
from ragproto.errors import (
    DaemonNotRunning,
    ExitCode,
    NotFound,
    NotServing,
    OutsideRoots,
    ProtocolError,
    RagError,
    RequestTooLarge,
    Starting,
    UsageError,
)
from ragproto.file_names import name_key
from ragproto.protocol import (
    ASK_TIMEOUT_S,
    MAX_QUESTION_CHARS,
    MIN_SCORE_MAX,
    MIN_SCORE_MIN,
    TOP_K_MAX,
    TOP_K_MIN,
)
from ragproto.sizes import human_size
from ragproto.standard_streams import OUTPUT_FULL, hold_standard_descriptors, say_output_failed

DASH_HINT = 'a question or query that starts with "-" goes after "--": rag ask -- "--flag"'


class RagParser(argparse.ArgumentParser):
    """argparse with a hint when a question that starts with "-" was read as an option, or
    a choice misspelt; an option given without the one it needs is refused."""

    given: tuple[str, ...] = ()  # the words this parser was handed (a sub-command: its own)
    # Options that only mean something beside another: (its dest, its flag, the other's
    # flag, its value when the other is given without it). Its own default is None, so
    # "given" is known even for a value equal to the default.
    only_with: tuple[tuple[str, str, str, Any], ...] = ()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.given = tuple(sys.argv[1:] if args is None else args)
        parsed, extras = super().parse_known_args(args, namespace)
        for dest, flag, needed, default in self.only_with:
            if getattr(parsed, dest) is None:
                setattr(parsed, dest, default)
            elif not getattr(parsed, needed.lstrip("-").replace("-", "_")):
                # Dropped in silence before: `rag status --timeout 5` printed at once.
                self.error(f"{flag} applies only with {needed}")
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        dashed = "unrecognized arguments: -" in message or (
            "arguments are required" in message
            and ("question" in message or "query" in message)
            and self.unknown_option_given()
        )
        if dashed:
            message += f"\nhint: {DASH_HINT}"
        meant = choice_meant(message)
        if meant:
            message += f"\nhint: did you mean {meant!r}?"
        super().error(message)

    def unknown_option_given(self) -> bool:
        """Whether a word before any `--` starts with "-" and is none of our options: a bare
        `rag ask` misses its question too, and the hint about "-" only misled there."""
        words = list(self.given)
        words = words[: words.index("--")] if "--" in words else words
        known = list(self._option_string_actions)
        return any(
            word.startswith("-")
            and len(word) > 1
            and not any(option.startswith(word.split("=", 1)[0]) for option in known)
            for word in words
        )


def choice_meant(message: str) -> str | None:
    """The choice an "invalid choice: 'aks' (choose from 'ask', …)" error most likely
    meant, or None: argparse before Python 3.14 only lists them (`ragd serv` says "Did
    you mean 'serve'?")."""
    invalid = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if invalid is None:
        return None
    import difflib  # only on this error: the client's start-up stays lean

    choices = re.findall(r"'([^']*)'", invalid.group(2))
    close = difflib.get_close_matches(invalid.group(1), choices, n=1)
    return close[0] if close else None


class ShowVersion(argparse.Action):
    """`--version`, reading the installed package's metadata only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from ragcli.version import version_line

        print(version_line("rag"))
        parser.exit()


def bounded(kind: type, lo: float, hi: float | None, what: str) -> Any:
    """An argparse type: a number from `lo` to `hi`, else a usage error naming the range."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not (lo <= value and (hi is None or value <= hi)):  # also refuses NaN
            upper = f" to {hi:g}" if hi is not None else " or more"
            raise argparse.ArgumentTypeError(f"{text} is out of range: {what} from {lo:g}{upper}")
        return value

    return parse


TOP_K = bounded(int, TOP_K_MIN, TOP_K_MAX, "a whole number")
MIN_SCORE = bounded(float, MIN_SCORE_MIN, MIN_SCORE_MAX, "a number")
SECONDS = bounded(float, 0.0, None, "a number of seconds")


def model_name(text: str) -> str:
    """`--model`'s value: a name, not blank (`--model ""` reached the model's API and came
    back as its error, exit 5, where every other bad option is a usage error, exit 2)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a model name, not empty")
    return text


def add_json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as one JSON object")


SOCKET_HELP = "daemon address (default: $RAG_SOCKET or the user socket)"


def build_parser() -> argparse.ArgumentParser:
    parser = RagParser(
        prog="rag",
        description="Ask questions about your documents (talks to ragd).",
        epilog=DASH_HINT[0].upper() + DASH_HINT[1:] + ".",
    )
    parser.add_argument("--version", action=ShowVersion, help="print the client's version")
    parser.add_argument("--socket", help=SOCKET_HELP)
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        help="what to do (rag COMMAND -h: its options)",
    )
    add_ask(sub)
    add_search(sub)
    add_status(sub)

    ingest = add_command(sub, "ingest", "watch a folder (or re-read a file) and index it")
    ingest.add_argument("path", help="a folder to add as a root, or a file or folder inside one")
    ingest.add_argument(
        "--no-wait", action="store_true", help="return at once instead of showing progress"
    )
    ingest.add_argument(
        "--timeout", type=SECONDS, default=3600.0, metavar="S", help="stop waiting after S s (3600)"
    )

    forget = add_command(sub, "forget", "stop watching a root and drop its chunks")
    forget.add_argument("root", help="root name (as `rag status` shows it) or path")

    stats = add_command(sub, "stats", "index summary")
    add_json(stats, "the summary")

    chat = add_command(
        sub,
        "chat",
        "questions one after another (/help inside; follow-ups may say 'it')",
        "Questions one after another, with line editing and history. A follow-up that "
        'names no subject of its own ("and how do I fix it?") is searched with the last '
        "question that did, and says so. /help lists chat's commands; Ctrl-C stops an "
        "answer.",
    )
    add_scope(chat)
    add_command(
        sub, "mcp", "serve the Model Context Protocol on stdio (for Claude Code, Claude Desktop, …)"
    )
    return parser


def add_command(sub: Any, name: str, what: str, more: str = "") -> RagParser:
    """A sub-command listed by `rag -h` as `what`, and said to do so atop `rag NAME -h`
    (`more`: a fuller account there). Without a description, `rag chat -h` listed its
    options but never said what chat does."""
    parser: RagParser = sub.add_parser(
        name, help=what, description=more or f"{what[0].upper()}{what[1:]}."
    )
    # After the command too (`rag status --socket S`, as `ragd serve --socket S` takes it):
    # it was "unrecognized arguments" there, with a hint about questions starting with "-"
    # (newuser45). SUPPRESS: not given here, the one before the command stands.
    parser.add_argument("--socket", default=argparse.SUPPRESS, help=SOCKET_HELP)
    return parser


def add_scope(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--in",
        dest="scope",
        action="append",
        metavar="PATH",
        help="only documents under this folder or file (repeatable): a path, or a source "
        "as results show it",
    )


def add_ask(sub: Any) -> None:
    ask = add_command(sub, "ask", "answer a question from the documents, with citations")
    ask.add_argument(
        "question",
        nargs="+",
        help=f'the question, up to {MAX_QUESTION_CHARS} characters (after "--" if it starts '
        'with "-")',
    )
    add_json(ask, "the answer, citations and confidence")
    ask.add_argument(
        "--show-sources", action="store_true", help="list the retrieved chunks, cited or not"
    )
    ask.add_argument(
        "--top-k",
        type=TOP_K,
        metavar="N",
        help=f"chunks to retrieve, {TOP_K_MIN}-{TOP_K_MAX} (default: top_k; at most the "
        "candidates the two retrievers find, `candidates` each)",
    )
    ask.add_argument(
        "--min-score",
        type=MIN_SCORE,
        metavar="F",
        help="support floor for this question, 0-1: below it ragd refuses (default: support_floor)",
    )
    ask.add_argument(
        "--model",
        type=model_name,
        metavar="M",
        help="Claude model for this question (needs the daemon's API key)",
    )
    add_scope(ask)


def add_search(sub: Any) -> None:
    search = add_command(sub, "search", "ranked chunks for a query, no answer")
    search.add_argument(
        "query",
        nargs="+",
        help=f'the query, up to {MAX_QUESTION_CHARS} characters (after "--" if it starts with "-")',
    )
    search.add_argument(
        "--top-k",
        type=TOP_K,
        metavar="N",
        help=f"results, {TOP_K_MIN}-{TOP_K_MAX} (default: top_k; at most the candidates the "
        "two retrievers find, `candidates` each)",
    )
    add_json(search, "the results, scores and gate decision")
    search.add_argument(
        "--mode",
        choices=("hybrid", "vector", "bm25"),
        default="hybrid",
        help="retrievers to use: both fused (hybrid, the default), embeddings only, or BM25 only",
    )
    add_scope(search)


def add_status(sub: Any) -> None:
    status = add_command(sub, "status", "what the daemon is doing")
    add_json(status, "the status")
    status.add_argument(
        "--wait",
        action="store_true",
        help="wait until the daemon is up, nothing is pending and the gate floor is learned "
        "(also while it is starting)",
    )
    status.add_argument(
        "--timeout", type=SECONDS, default=None, metavar="S", help="give up --wait after S s (300)"
    )
    status.only_with = (("timeout", "--timeout", "--wait", 300.0),)


def main(argv: list[str] | None = None) -> None:
    hold_standard_descriptors()  # closed ones read as /dev/null: a chat ends, output goes nowhere
    args = build_parser().parse_args(argv)
    try:
        refuse_undecodable(args)
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # a write that fails fails here, not at exit
    except RagError as exc:
        if isinstance(exc, OutsideRoots) and getattr(args, "scope", None):
            exc = named_whole(exc, scope_paths(args.scope, printed=True))
        print(f"rag: {render.message(str(exc))}", file=sys.stderr)
        code = int(exc.exit_code)
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    except OSError as exc:
        if exc.errno not in OUTPUT_FULL:
            raise
        say_output_failed("rag", exc)  # what is still buffered would fail again at exit
        code = int(ExitCode.ERROR)
    sys.exit(code)


# Arguments that name files: a name that is not UTF-8 is a real file's, sent as its key
# (`ragproto.file_names`), the way the daemon prints it.
PATH_ARGUMENTS = frozenset({"path", "root", "scope"})


def refuse_undecodable(args: argparse.Namespace) -> None:
    """One clear line for arguments that are not UTF-8 (Python keeps such bytes as lone
    surrogates, which the UTF-8 wire format cannot carry), paths excepted."""
    for name, value in vars(args).items():
        if name in PATH_ARGUMENTS:
            continue
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


def asked(words: list[str], what: str) -> str:
    """The words of a question or query as one text, refused here when the daemon would."""
    text = " ".join(words)
    if not text.strip():
        raise UsageError(f"the {what} is empty")
    if problem := too_long(text, what):
        raise UsageError(problem)
    return text


def too_long(text: str, what: str) -> str:
    """Why `text` is longer than the daemon reads ("" if it is not): `rag ask`, `rag search`
    and each `rag chat` line are refused here, before anything is sent."""
    if len(text) <= MAX_QUESTION_CHARS:
        return ""
    return (
        f"the {what} is {len(text)} characters; ragd reads at most {MAX_QUESTION_CHARS} "
        "(its encoder sees the first ≈ 200 words): ask it in fewer words"
    )


def too_large(exc: RequestTooLarge, scope: dict[str, Any]) -> str:
    """`rag chat`'s line for a question whose request is over the daemon's frame limit."""
    made = "with this chat's --in paths it makes" if scope else "it makes"
    return (
        f"the question is too long for this ragd: {made} a {human_size(exc.size)} request, "
        f"over its max_message_bytes = {exc.limit}; ask it in fewer words"
    )


def scope_of(args: argparse.Namespace) -> dict[str, Any]:
    """The request's `in` from `--in`, an empty path refused here: `--in "$DIR"` with DIR
    unset reached the daemon, which answered "'in' must be a non-empty string" (exit 5,
    "request rejected"). A blank name (" ") may be a real folder's, so only "" is."""
    if "" in (args.scope or []):
        raise UsageError(
            "--in: the path is empty; name a folder or file (`--in .` for the one you are in)"
        )
    return scope_paths(args.scope, printed=True)


def print_json(data: dict[str, Any]) -> None:
    data = {k: v for k, v in data.items() if not k.startswith("_")}
    print(render.json_text(data, indent=2))


# -- commands -----------------------------------------------------------------------------
def cmd_search(args: argparse.Namespace) -> int:
    request = {"query": asked(args.query, "query"), "top_k": args.top_k, "mode": args.mode}
    request |= scope_of(args)
    data = connect(args).call("search", request)
    if args.json:
        print_json(data)
    else:
        print(render.search(data))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    data = wait_for_idle(args) if args.wait else connect(args).call("status", {})
    if data is None:
        return int(ExitCode.TIMEOUT)
    if args.json:
        print_json(data)
    else:
        print(render.status(data))
    return 0


def wait_for_idle(args: argparse.Namespace) -> dict[str, Any] | None:
    """The status once the daemon is idle and its gate floor learned for the index as it
    is (unless configured, or waiting for the vector store); None (after saying why) at
    the timeout.

    A daemon that is still starting may not have created its socket yet: "not running"
    is retried until the deadline, then raised as usual.
    """
    deadline = time.monotonic() + args.timeout
    conn: Connection | None = None
    while True:
        try:
            conn = conn or connect(args)
            data = conn.call("status", {})
        except DaemonNotRunning:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
            continue
        # Idle with the floor still being learned (seconds), a question is judged by
        # another floor than the one `rag status` will show a moment later.
        learning = render.floor_stale(data.get("floor") or {}) and not data["floor"].get(
            "waiting_for_vectors"
        )
        if data["state"] == "idle" and not learning:
            return data
        if time.monotonic() > deadline:
            doing = "learning the gate floor" if data["state"] == "idle" else data["state"]
            print(
                f"rag: still {render.shown(doing)} after {args.timeout:g} s "
                f"({data['pending']} pending)",
                file=sys.stderr,
            )
            return None
        time.sleep(0.1)


def cmd_stats(args: argparse.Namespace) -> int:
    data = connect(args).call("stats", {})
    if args.json:
        print_json(data)
    else:
        print(render.stats(data))
    return 0


MISSING_PATH = "no such file or folder"  # the daemon's words for a path not there


def cmd_ingest(args: argparse.Namespace) -> int:
    if args.path == "":
        # Made absolute, "" is the working folder: `rag ingest "$DIR"` with DIR unset
        # added whatever folder the script stood in (the home folder, say) as a root.
        raise UsageError(
            "the path is empty; name the folder (`rag ingest .` for the one you are in)"
        )
    conn = connect(args)
    path = name_key(absolute(os.path.expanduser(args.path)))
    deadline = time.monotonic() + args.timeout
    try:
        data = once_started(conn, "ingest", {"path": path}, deadline, "the folder was not added")
    except NotFound as exc:
        # The daemon names no absolute path in a reply (only the last name: "nonexist"),
        # which lost the folder it looked in; this client knows the path it sent.
        if str(exc).startswith(MISSING_PATH):
            raise NotFound(f"{MISSING_PATH}: {path}") from None
        raise
    verb = "watching new root" if data.get("added") else "checking for changes:"
    print(f"{verb} {render.shown(data['path'])}", file=sys.stderr)
    if args.no_wait:
        return 0
    root = str(data.get("root", ""))
    code = follow_progress(conn, max(deadline - time.monotonic(), 0.0), root)
    if code == 0:
        status = conn.call("status", {})
        lines = render.skipped_lines(status, root, str(data["path"]))
        if data.get("left_out"):  # (hidden, ignored, not a type indexed: never indexed)
            lines = [f"{render.shown(str(data['path']))}: not indexed: {data['left_out']}"]
        elif not data.get("added") and not lines:  # (a skip says what came of it)
            before, after = data.get("activity"), status.get("activity") or {}
            shown_path = render.shown(str(data["path"]))
            outcome = render.reread_outcome(shown_path, bool(data.get("file")), before, after)
            lines = [outcome] if outcome is not None else []
        for line in lines:
            print(line, file=sys.stderr)
    return code


def once_started(
    conn: Connection, op: str, params: dict[str, Any], deadline: float, undone: str
) -> Any:
    """The reply to `op`, sent again while the daemon answers that it is starting (the
    model loading), until `deadline`. The README's service recipe runs `rag ingest ~/notes`
    right after `systemctl --user enable --now ragd`: it exited 3, "ragd is starting
    (loading the embedding model)", and the folder was not added (newuser43: 20 s and
    more at a load of 12). Said once on stderr; a daemon not running fails at once. When
    the deadline passes first, the last line says so and what was `undone` (it repeated
    the daemon's line under "…; waiting for it", as if the wait went on)."""
    said = False
    while True:
        try:
            return conn.call(op, params)
        except Starting as exc:
            if time.monotonic() > deadline:
                raise Starting(
                    f"{exc}, still when --timeout ran out: {undone}; try again once "
                    "`rag status` answers"
                ) from None
            if not said:
                print(f"rag: {render.message(str(exc))}; waiting for it", file=sys.stderr)
                said = True
            time.sleep(0.25)


def follow_progress(conn: Connection, timeout: float, root: str) -> int:
    """A live bar on a terminal, a plain line every few seconds when piped; at the end,
    what the root that was ingested holds."""
    tty = sys.stderr.isatty()
    deadline = time.monotonic() + timeout
    last_line = 0.0
    while True:
        data = conn.call("status", {})
        p = data.get("progress") or {}
        done, total = p.get("done", 0), p.get("total", 0)
        size = (
            f" · {render.bytes_done(p['bytes_done'], p['bytes_total'])}"
            if p.get("bytes_total")
            else ""
        )
        eta = f" ETA {p['eta_s']:.0f}s" if p.get("eta_s") is not None else ""
        text = f"{done}/{total} files · {p.get('chunks_per_s', 0):.1f} chunks/s{size}{eta}"
        if not total:  # nothing queued yet: the folder is still being listed
            text += " (listing the folder)"
        elif p.get("underway"):  # done counts a batch once it is stored, all at once
            text += f" · {p['underway']} being read and stored together"
        if data["state"] == "idle":
            if tty:
                sys.stderr.write("\r\033[K")
            print(render.root_summary(data, root), file=sys.stderr)
            return 0
        now = time.monotonic()
        if tty:
            filled = int(30 * render.share_done(p))
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {text}\033[K")
            sys.stderr.flush()
        elif now - last_line >= 2.0:
            print(f"indexing {text}", file=sys.stderr)
            last_line = now
        if now > deadline:
            print(f"\nrag: still indexing after {timeout:g} s", file=sys.stderr)
            return int(ExitCode.TIMEOUT)
        time.sleep(0.2)


def unescaped_root_name(conn: Connection, given: str) -> str:
    """The root's own name when `given` is it as `rag status` prints it (control
    characters escaped: `new\\x0aline`), which is what a user copies; else `given`."""
    for item in conn.call("status", {}).get("roots") or []:
        name = item.get("name")
        if isinstance(name, str) and name != given and render.shown(name) == given:
            return name
    return given


def cmd_forget(args: argparse.Namespace) -> int:
    root = args.root
    if not root.strip():
        # `rag forget "$ROOT"` with ROOT unset: as `rag ingest ""`, a usage error before
        # the daemon is asked (it said "'root' must be a non-empty string", exit 5).
        raise UsageError("the root is empty; name one as `rag status` lists it")
    conn = connect(args)
    if "\\" in root:
        root = unescaped_root_name(conn, root)
    if os.sep in root or root in (".", ".."):
        # A path is resolved here, against the user's working directory, not the daemon's.
        root = absolute(os.path.expanduser(root))
    data = conn.call("forget", {"root": name_key(root)})
    print(
        f"forgot {render.shown(data['root'])}: answers no longer use it; "
        "its chunks are being removed from both indexes"
    )
    return 0


# -- answers ------------------------------------------------------------------------------
def ask_once(
    conn: Connection, question: str, options: dict[str, Any], json_mode: bool, show_sources: bool
) -> dict[str, Any]:
    streamed = False
    final: dict[str, Any] = {}
    pending = 0
    try:
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
                pending = int(reply.get("pending") or 0)  # files the writer has yet to apply
    except KeyboardInterrupt:
        # Ctrl-C: the daemon stops working on it (its model call ends, its worker is free
        # for the next question) instead of answering nobody until the call's deadline.
        conn.cancel()
        raise
    except Exception:
        if streamed:  # the error line must not continue the half-written answer
            print(flush=True)
        raise
    shown = render.shown(final)
    if json_mode:
        keys: tuple[str, ...] = ("answer", "citations", "confidence", "refused", "mode")
        keys += ("sources",) if show_sources else ()  # each with its location, as search has
        # `probability`: the calibrated chance the answer is right (docs/calibration.md);
        # `verdict` and `support`: the gate's, so a script can tell an answer flagged
        # "unsure" (the documents may not answer it) without parsing the warning
        gate = final.get("gate") or {}
        extra = {
            "probability": final.get("probability"),
            "verdict": gate.get("verdict"),
            "support": gate.get("support"),
            "pending": pending,
        }
        print(render.json_text({k: final[k] for k in keys} | extra))
    else:
        if streamed:
            if not final.get("confidence_in_text"):
                sys.stdout.write(f"\n\n{render.confidence_line(final)}")
            sys.stdout.write("\n")
        else:
            print(f"{shown['answer']}\n\n{render.confidence_line(final)}")
        if show_sources:
            print(render.sources(final))
    # After the answer, whose streamed last line is open until it is ended above: a
    # warning written to stderr before that continued the line on a terminal.
    sys.stdout.flush()
    for warning in shown.get("warnings") or []:
        print(warning, file=sys.stderr)
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
    options |= scope_of(args)
    question = asked(args.question, "question")
    ask_once(connect(args), question, options, args.json, args.show_sources)
    return 0


CHAT_HELP = """\
commands (handled here, never sent to the model):
  /help     this list
  /sources  the last answer's retrieved chunks, cited or not
  /reset    forget the conversation so far (ragd keeps a few turns of memory)
  /exit     leave (or Ctrl-D; /quit works too)
Up/Down recall earlier questions (kept in {history}); Ctrl-C stops an answer and keeps
the chat. Anything else is a question; a line like /etc/fstab (a path) is one too.
{own_words}"""

# What the chat's memory does (daemon: query/follow_up.py, serve/ask.py), said in /help.
OWN_WORDS = (
    'A follow-up that names no subject of its own ("and how do I fix it?") is searched '
    "together with the last question that did (a note says so); Claude or a local model "
    "also reads the earlier turns."
)


def chat_command(line: str) -> str | None:
    """The command a chat line names ("/help" → "help"), or None for a question.

    A first word like /etc/hosts (a path) is a question, not a command."""
    word = line.split(maxsplit=1)[0]
    if word.startswith("/") and word[1:].isalpha():
        return word[1:].lower()
    return None


def cmd_chat(args: argparse.Namespace) -> int:
    # Ctrl-C stops one answer, so chat needs SIGINT even when it was started with SIGINT
    # ignored: a program started in the background by a non-interactive shell (a script,
    # `make … &`, CI) inherits SIG_IGN, and Python then never raises KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    scope = scope_of(args)
    conn = connect(args)
    if isinstance(sys.stdin, io.TextIOWrapper):  # bytes that are not UTF-8: a line, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")
    from ragcli import chat_history  # readline: only chat needs line editing

    history = chat_history.enable()
    session = os.urandom(8).hex()
    options = {"session": session} | scope
    last: dict[str, Any] = {}
    turn = 0
    print("rag chat — ask away. /help lists the commands, /exit or Ctrl-D leaves.", file=sys.stderr)
    while True:
        try:
            line = input("you> ").strip()
        except EOFError:
            print(file=sys.stderr)
            return 0
        except KeyboardInterrupt:
            print("\n(/exit or Ctrl-D leaves)", file=sys.stderr)
            continue
        if not line:
            continue
        if problem := not_utf8(line, "question"):
            print(f"rag: {problem}", file=sys.stderr)
            continue
        if problem := too_long(line, "question"):
            # The client's own line, as `rag ask` gives it; the daemon's refusal of the
            # sent line was its argument error. Not kept in the history either: Up would
            # only bring back a line that is refused again.
            chat_history.forget_last_line()
            print(f"rag: {problem}", file=sys.stderr)
            continue
        chat_history.save(history)
        command = chat_command(line)
        if command in ("exit", "quit"):
            return 0
        if command is not None:
            chat_local(command, line, conn, session, last, history)
            turn = 0 if command == "reset" else turn
            continue
        try:
            # `turn`: how many questions this chat asked before, so a daemon that does not
            # know the session (it restarted meanwhile) says the earlier ones are forgotten.
            last = ask_once(
                conn, line, options | {"turn": turn}, json_mode=False, show_sources=False
            )
            turn += 1
        except KeyboardInterrupt:
            # The daemon may still send frames for this question: a fresh connection
            # leaves them behind instead of printing them under the next answer.
            print("\n(answer stopped)", file=sys.stderr)
            conn.close()
            conn = connect(args)
            continue
        except RequestTooLarge as exc:
            # Refused before it was sent: over the daemon's configured frame limit, its
            # socket drops the connection unread, which the chat took for ragd gone and
            # ended (exit 3). Kept out of the history, as a line over the client's limit is.
            chat_history.forget_last_line()
            chat_history.save(history)
            print(f"rag: {too_large(exc, scope)}", file=sys.stderr)
            continue
        except RagError as exc:
            if isinstance(exc, OutsideRoots):
                exc = named_whole(exc, scope)
            print(f"rag: {render.message(str(exc))}", file=sys.stderr)
            if isinstance(exc, DaemonNotRunning | NotServing | OutsideRoots):  # nor next time
                return int(exc.exit_code)
            if isinstance(exc, ProtocolError):
                # The daemon dropped this connection (a line over its frame limit: it
                # cannot even reply): the next question goes on a fresh one. On the old
                # one it met a broken pipe and the chat ended, exit 3.
                conn.close()
                conn = connect(args)
        print()


def chat_local(
    command: str, line: str, conn: Connection, session: str, last: dict[str, Any], history: Any
) -> None:
    """Answer a /command in the client."""
    if command == "help":
        print(
            CHAT_HELP.format(history=history or "memory only", own_words=OWN_WORDS), file=sys.stderr
        )
    elif command == "reset":
        conn.call("chat_reset", {"session": session})
        print("(conversation forgotten)", file=sys.stderr)
    elif command == "sources":
        if last:
            print(render.sources(last))
        else:
            print("(no answer yet)", file=sys.stderr)
    else:
        word = render.shown(line.split(maxsplit=1)[0])
        print(f"unknown command {word}; /help lists the commands", file=sys.stderr)


def cmd_mcp(args: argparse.Namespace) -> int:
    # The SDK is imported only here, and only after the handshake relay has answered
    # `initialize` from its cache (mcp_handshake.py): it costs seconds of start-up.
    from ragcli import mcp_handshake

    def run_sdk() -> None:
        from ragcli import mcp_server

        mcp_server.run(args.socket)

    mcp_handshake.serve(run_sdk, mcp_handshake.server_identity, mcp_handshake.cache_path())
    return 0


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

__all__ = ["main"]
