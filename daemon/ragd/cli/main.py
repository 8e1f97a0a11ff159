"""`ragd` — the daemon binary (typer). `ragd` alone is `ragd serve` with remembered roots.

Sub-commands other than `serve` work on a data dir without a running daemon.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from ragd.app import early_reload
from ragd.core import environment
from ragd.core.exit_codes import CheckExit, ServeExit
from ragd.core.roots import refusal as roots_refusal
from ragproto.standard_streams import (
    OUTPUT_FULL,
    hold_standard_descriptors,
    output_dropped,
    say_output_failed,
)

environment.apply_defaults()  # before anything imports torch, transformers or ChromaDB

app = typer.Typer(
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # as `rag COMMAND -h`
    invoke_without_command=True,
    no_args_is_help=False,
    help="ragd: a local question-answering daemon over your folders.",
)

# Text, not a Path: typer made an empty `--data-dir ""` the working folder ('.'), which
# `ragd serve` then made private (chmod 700) and wrote its index into, and `ragd reset`
# emptied of any `chroma/` and `tantivy/` folder. The settings refuse "" in one line.
DataDir = Annotated[
    str | None, typer.Option("--data-dir", help="Index location (default ~/.local/share/ragd).")
]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="Config file (default ~/.config/ragd/config.toml).")
]


def _settings(config: Path | None, **flags: Any):  # type: ignore[no-untyped-def]
    from ragd.core.config import load_settings

    return load_settings(config, flags)


def _fail(message: str, code: int = ServeExit.FAILED) -> None:
    from ragd.core import log_queue
    from ragd.core.logs import error_line

    log_queue.flush()  # the log lines queued before it come first
    typer.echo(error_line(f"ragd: {message}"), err=True)
    raise typer.Exit(code)


def _show_version(asked: bool) -> None:
    if asked:
        from ragcli.version import version_line  # the one line `rag --version` prints too

        with _printing():
            typer.echo(version_line("ragd"))
        raise typer.Exit()


@app.callback()
def root_command(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            expose_value=False,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    if ctx.invoked_subcommand is None:
        ctx.invoke(serve)


@app.command()
def serve(
    roots: Annotated[
        list[str] | None, typer.Argument(help="Folders to watch (remembered).")
    ] = None,
    data_dir: DataDir = None,
    socket: Annotated[str | None, typer.Option("--socket", help="ZeroMQ address or path.")] = None,
    log_level: Annotated[str | None, typer.Option("--log-level")] = None,
    config: ConfigOpt = None,
) -> None:
    """Run the daemon in the foreground."""
    import logging

    from ragd.app.service import Daemon, ReloadSource
    from ragd.core import timings
    from ragd.core.config import unknown_env
    from ragd.core.logs import setup_logging
    from ragd.core.open_files import too_few_open_files
    from ragproto.errors import AlreadyRunning, RagError

    if any(root == "" for root in roots or []):
        # Read as a path, "" is the working folder: `ragd serve "$NOTES"` with NOTES unset
        # served whatever folder it was started in (the home folder, under systemd).
        _fail(
            "a folder to watch is given as empty text; name it (`ragd serve .` for the "
            "folder you are in)",
            ServeExit.NEEDS_FIX,
        )
    flags: dict[str, Any] = {
        "roots": [str(Path(r)) for r in roots or []],
        "data_dir": data_dir,
        "socket": socket,
        "log_level": log_level,
    }
    try:
        settings, _ = _settings(config, **flags)
    except RagError as exc:
        _fail(str(exc), ServeExit.NEEDS_FIX)
    for root in settings.roots:
        if not Path(root).is_dir():
            _fail(f"{root} is not a folder", ServeExit.NEEDS_FIX)
        if (why := roots_refusal(Path(root))) is not None:
            _fail(why, ServeExit.NEEDS_FIX)
    if (why := too_few_open_files()) is not None:
        _fail(why, ServeExit.NEEDS_FIX)  # before anything is made: libzmq would end it
    setup_logging(settings.log_level)
    for name in unknown_env():
        logging.getLogger("ragd").warning("ignoring %s: no setting has that name", name)
    try:
        timings.load()  # the tests' seam: read once, here, and logged when it overrides
    except timings.TimingsError as exc:
        _fail(str(exc), ServeExit.NEEDS_FIX)
    try:
        Daemon(settings, ReloadSource(config, flags)).run()  # exits the process
    except AlreadyRunning as exc:
        _fail(str(exc), ServeExit.HELD)
    except RagError as exc:
        _fail(str(exc), ServeExit.FAILED)


@app.command()
def check(
    data_dir: DataDir = None,
    config: ConfigOpt = None,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Verify that the manifest, ChromaDB, tantivy and the disk agree; never writes.

    Exit 0 consistent, 1 the next start repairs what was found, 2 damaged (the line
    printed names the fix), 3 the running daemon did not answer or was indexing
    throughout (rerun when idle).
    """
    import json

    from ragd.cli import checking
    from ragd.core import timings
    from ragproto.errors import RagError

    try:
        settings, _ = _settings(config, data_dir=data_dir)
        timings.load()
    except (RagError, timings.TimingsError) as exc:
        _fail(str(exc), ServeExit.NEEDS_FIX)
    result = checking.run(settings)
    code = int(result.get("exit", CheckExit.REPAIRABLE))
    with _printing():  # output that cannot be written: exit 1, the line says why
        if json_out:
            typer.echo(json.dumps(result, indent=2))
        elif code in (CheckExit.DAMAGED, CheckExit.UNANSWERED):
            for line in result["problems"]:
                _say(f"ragd: {line}")
        else:
            typer.echo(checking.render(result))
    raise typer.Exit(code)


@app.command()
def reset(
    data_dir: DataDir = None,
    config: ConfigOpt = None,
) -> None:
    """Delete the index (manifest, ChromaDB, tantivy) so the next start rebuilds it from
    the documents; the watched folders are kept when the manifest still names them."""
    from ragd.app.resetting import reset_data_dir
    from ragproto.errors import AlreadyRunning, RagError

    try:
        settings, _ = _settings(config, data_dir=data_dir)
        roots = reset_data_dir(settings.data_path)
    except AlreadyRunning as exc:
        _fail(str(exc), ServeExit.HELD)
    except RagError as exc:
        _fail(str(exc), ServeExit.NEEDS_FIX)
    kept = (
        f"; it will index {len(roots)} remembered folder(s) again"
        if roots
        else ("; no folders could be recovered: pass them to `ragd serve FOLDER…`")
    )
    _say(f"ragd: reset {settings.data_path}{kept}")


@contextlib.contextmanager
def _printing() -> Iterator[None]:
    """A command whose work is printing: output that cannot be written (`ragd config >
    /dev/full`, a full disk or quota) is one line and exit 1, not a traceback; a reader
    that closed the pipe early is exit 0 (attack77
    left it, wary of taking `serve`'s own full data disk for this: only printing commands
    are wrapped, and only their standard output's errors are read here)."""
    try:
        yield
        sys.stdout.flush()  # a write that fails fails here, not at exit
    except BrokenPipeError:
        # `ragd config | head -1`: the reader took what it wanted and left. As `rag`
        # does, exit 0 and say nothing (click's own handling had made it exit 1).
        output_dropped()
    except OSError as exc:
        if exc.errno not in OUTPUT_FULL:
            raise
        output_dropped()
        _fail(f"cannot write the output: {exc.strerror}", ServeExit.FAILED)


def _say(line: str) -> None:
    from ragd.core.logs import error_line

    typer.echo(error_line(line), err=True)


@app.command("config")
def show_config(
    config: ConfigOpt = None,
    data_dir: DataDir = None,
    reference: Annotated[
        bool, typer.Option("--reference", help="Print the table of every key (Markdown).")
    ] = False,
) -> None:
    """Print the effective configuration and where each value came from."""
    from ragd.core.config import config_file, describe, reference_markdown
    from ragproto.errors import RagError

    if reference:
        with _printing():
            typer.echo(reference_markdown())
        return
    try:
        settings, origins = _settings(config, data_dir=data_dir)
    except RagError as exc:
        _fail(str(exc), ServeExit.NEEDS_FIX)
    path, _ = config_file(config)
    key_set = bool(os.environ.get("ANTHROPIC_API_KEY"))
    with _printing():
        typer.echo(f"# config file: {path}{'' if path.is_file() else ' (absent: defaults)'}")
        for line in describe(settings, origins):
            typer.echo(line)
        typer.echo(
            f"# ANTHROPIC_API_KEY: {'set' if key_set else 'not set'} (the value is never shown)"
        )


@app.command("install-service")
def install_service(
    print_only: Annotated[
        bool, typer.Option("--print", help="Print the unit instead of writing it.")
    ] = False,
    config: ConfigOpt = None,
    data_dir: DataDir = None,
    socket: Annotated[str | None, typer.Option("--socket", help="ZeroMQ address or path.")] = None,
) -> None:
    """Write the systemd user unit for this installation (~/.config/systemd/user/)."""
    from ragd.cli.systemd_unit import (
        ENABLE_COMMAND,
        UnitError,
        install,
        render,
        spec_for_installation,
    )
    from ragd.core.config import config_file
    from ragproto.errors import RagError

    try:
        flags = {"data_dir": data_dir, "socket": socket}
        settings, origins = _settings(config, **flags)
        configured = None if origins["socket"] == "default" else settings.socket
        path, explicit = config_file(config)  # --config or $RAG_CONFIG: the service needs it too
        spec = spec_for_installation(
            settings.data_path, configured, path if explicit else None, settings.shutdown_timeout_s
        )
        text = render(spec)
    except (RagError, UnitError) as exc:
        _fail(str(exc), ServeExit.NEEDS_FIX)
    for key, origin in origins.items():
        if origin.startswith("env ") and key not in ("data_dir", "socket"):
            name = origin.removeprefix("env ")
            typer.echo(
                f"note: the service will not see {name} from this shell; put {key} in "
                f"{path} (or {name} in ~/.config/ragd/env)",
                err=True,
            )
    if print_only:
        with _printing():
            typer.echo(text, nl=False)
        return
    target = install(text, settings.data_path)
    typer.echo(f"wrote {target}", err=True)
    typer.echo(ENABLE_COMMAND)


@app.command("eval")
def eval_command(
    corpus: Annotated[Path, typer.Argument(help="Folder of documents to index.")],
    questions: Annotated[Path, typer.Argument(help="Questions file (JSON Lines).")],
    floor: Annotated[float | None, typer.Option("--floor", help="Support floor to judge.")] = None,
) -> None:
    """Index CORPUS with a private daemon and measure retrieval and the gate on QUESTIONS."""
    from ragd.harness.evaluation import run_against_daemon

    if not corpus.is_dir() or not questions.is_file():
        _fail("CORPUS must be a folder and QUESTIONS a file", ServeExit.NEEDS_FIX)
    raise typer.Exit(run_against_daemon(corpus, questions, floor))


def run() -> None:
    """Console-script entry point."""
    # Everything ragd writes (the index holds the text of private documents; ChromaDB,
    # tantivy and SQLite create files with the process umask) is for its user alone,
    # whatever umask the shell had: directories 0700, files 0600.
    os.umask(0o077)
    hold_standard_descriptors()  # before any file is opened: none takes number 1 or 2
    if early_reload.serves(sys.argv[1:2]):  # a bare `ragd` serves too (root_command)
        # Held already by `import ragd` for the `ragd` script; again here for `python -m
        # ragd`: before the arguments are parsed (typer stats the roots, which may wait on a
        # slow mount), a SIGHUP is a reload asked early, not the end of the daemon.
        early_reload.hold()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:
        # `ragd --help > /dev/full`: the help is printed by typer as the arguments are
        # read, before any command's own _printing (review77: a rich traceback). Only
        # when help was asked, so that no data disk's error is taken for the output's.
        if exc.errno not in OUTPUT_FULL or not {"-h", "--help"} & set(sys.argv[1:]):
            raise
        say_output_failed("ragd", exc)
        sys.exit(ServeExit.FAILED)
