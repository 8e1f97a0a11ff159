"""One frozen settings object, built once: defaults ← TOML file ← RAG_* env ← flags.

The answer models' API keys are resolved here too (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`
from the environment) into `Settings.api_keys`, a field that is never shown: not in
`repr`, `str`, `public()`, `ragd config`, `rag status` or a log line (`Secret`).
A running daemon holds its settings in one `LiveSettings`: every part reads `.current`
when it needs a value, and a reload replaces it in one assignment.

The config file is ``$XDG_CONFIG_HOME/ragd/config.toml`` (``~/.config/ragd/config.toml``),
or the path in ``$RAG_CONFIG``, or ``--config``; a path given explicitly must exist. Every
key is documented (``ragd config --reference`` prints the table the docs carry) with its
default and environment variable. An unknown key or a value of the wrong type stops
start-up with a message naming the key and where it came from; ``ragd config`` prints the
effective values and the origin of each.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import struct
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ragd.core import layout
from ragproto.errors import ConfigError
from ragproto.paths import check_default_address, default_socket_address, normalize_address
from ragproto.protocol import DEFAULT_MAX_MESSAGE_BYTES, TOP_K_MAX, TOP_K_MIN

if TYPE_CHECKING:
    from ragd.core.vector_store import VectorStore

# Folders never entered by default: hidden ones (`.git`, `.venv`, `.tox`, caches…) and
# installed or generated code: thousands of files nobody asks questions about (now that
# source files are indexed, a project's node_modules would swamp its own code). A
# package's `*.egg-info` is generated too: its PKG-INFO repeats the README, and a new
# user's answers quoted its `Metadata-Version: 1.2` lines.
SKIP_FOLDERS = (
    ".*",
    "node_modules",
    "__pycache__",
    "venv",
    "site-packages",
    "bower_components",
    "*.egg-info",
)


# Man pages as installed (`tar.1`, `openssl.1ssl`, `tar.1.gz`): a section digit and up to
# four letters of suffix, one glob per length (globs cannot repeat); ragd.ingest.formats.man
# reads exactly these names (its MAN_NAME).
MAN_PATTERNS = tuple(
    f"*.[1-9]{'[a-z]' * letters}{gz}" for gz in ("", ".gz") for letters in range(5)
)
# The documentation files a project or a package ships under names of long custom, with
# no suffix (`README`, `NEWS`, `ChangeLog`, `COPYING`) or a word after one (`README.Debian`,
# `NEWS.old`, `changelog.Debian.amd64`): matched in any case, read as plain text unless
# the tail is a suffix read another way (README.md stays Markdown: ingest.loaders.kind_for).
# GNU Info manuals (`coreutils.info`, a split one's parts `find.info-1` … and the `dir`
# node that lists them; gzipped as installed, through ingest.gzipped): read by
# ragd.ingest.formats.info, which takes exactly these names (its is_info_name).
INFO_PATTERNS = (
    "*.info",
    "*.info-[0-9]",
    "*.info-[0-9][0-9]",
    "*.info-[0-9][0-9][0-9]",
    "dir",
    "dir.old",
)
DOC_NAMES = (
    "readme",
    "news",
    "changelog",
    "changes",
    "history",
    "install",
    "todo",
    "faq",
    "authors",
    "thanks",
    "bugs",
    "hacking",
    "contributing",
    "copying",
    "license",
    "notice",
)
# A release's notes named by its version, as util-linux ships them (`v2.31-ReleaseNotes`:
# 27 files of Debian 12's /usr/share/doc/util-linux/releases, where alone the fix for
# CVE-2016-2779 is told); the version is any name ending in a digit.
VERSIONED_NOTES = "-releasenotes"
DOC_NAME_PATTERNS = (
    *(glob for name in DOC_NAMES for glob in (name, f"{name}.*")),
    f"*[0-9]{VERSIONED_NOTES}",
)
CAPITALS_MIN_LETTERS = 3
# Names in capitals that tools write, not people: tag tables (etags' TAGS, GNU global's
# GTAGS, GRTAGS, GPATH: every identifier of a tree), a wheel's RECORD of hashes, git's
# HEAD files outside `.git` (a bare repository).
GENERATED_CAPITALS = frozenset(
    ("TAGS", "GTAGS", "GRTAGS", "GPATH", "RECORD", "HEAD", "ORIG_HEAD", "FETCH_HEAD")
)


def in_capitals(name: str) -> bool:
    """`COMPAT`, `POSIX`, `RELEASE-NOTES`, `00FAQ`, `PKG-INFO`: a file name written in
    capitals with no suffix is a document by Unix custom, like the DOC_NAMES (bash's
    COMPAT and POSIX, gnupg's KEYSERVER and DETAILS sit beside its README). Read as plain
    text wherever the documentation names are included. (Case decides here: `Makefile`
    and `configure` are not documents.)"""
    letters = sum(c.isalpha() for c in name)
    return (
        name not in GENERATED_CAPITALS
        and letters >= CAPITALS_MIN_LETTERS
        and name.isupper()
        and all(c.isascii() and (c.isalnum() or c in "-_") for c in name)
    )


# Suffixes that say a file is something other than text, whatever its name: `README.*`
# is there for `README.Debian` and `NEWS.old`, not for `docs/images/install.png` or
# `history.sqlite3`, which plain text's reader can only refuse as binary. A `.gz` is read
# as the document inside it (ingest.gzipped), so `NEWS.gz` stays and `README.tar.gz` not.
NOT_TEXT_SUFFIXES = frozenset(
    f".{suffix}"
    for suffix in """
    png jpg jpeg gif bmp ico icns svg svgz webp tif tiff xcf psd eps ai heic
    mp3 ogg oga wav flac m4a mp4 m4v mkv webm avi mov
    ttf otf woff woff2
    gz tar tgz zip bz2 xz zst lz lzma 7z rar jar deb rpm
    exe dll so o a pyc class bin dat db sqlite sqlite3 pkl npy npz
    """.split()
)
DOCUMENT_PATTERNS = (
    "*.md",
    "*.markdown",
    "*.mdwn",
    "*.mkd",
    "*.mkdn",
    "*.mdown",
    "*.Rmd",  # R Markdown: a vignette or report, its header as the page shows it
    "*.qmd",  # Quarto: the same, with chunk options and fenced divs as the page shows them
    "*.txt",
    "*.pdf",
    "*.html",
    "*.htm",
    "*.rst",
    "*.docx",
    "*.ipynb",
    "*.odt",
    "*.odp",
    "*.ods",
    "*.epub",
    "*.pptx",
    "*.xlsx",
    "*.csv",  # delimited data, read as the table a spreadsheet shows (formats.delimited)
    "*.tsv",
    "*.adoc",
    "*.asciidoc",
    "*.org",
    "*.tex",
    # DocBook and Mallard: the desktop's manuals (/usr/share/help). An `.xml` file that is
    # not DocBook (a pom, a settings file) is skipped as "not a document", listed with the
    # files of no text, never as an error (formats/docbook.py).
    "*.docbook",
    "*.xml",
    "*.page",
    # groff documents that are not man pages: papers and books in the ms, me or mom macros
    # (formats.roff_doc); not `*.mm`, which names Objective-C++ sources as often.
    "*.ms",
    "*.me",
    "*.mom",
    "*.roff",
    *MAN_PATTERNS,
    *INFO_PATTERNS,
    *DOC_NAME_PATTERNS,
)
# Indexed as code (class > function for Python): see ragd/ingest/formats/code.py.
CODE_PATTERNS = (
    "*.py",
    "*.pyi",  # type stubs: a package's public API with its signatures
    # JavaScript and TypeScript as npm ships them: ES modules (an ESM-only package has
    # no .js at all), CommonJS modules, React components. Not `*.mts`: a camcorder's
    # AVCHD clips are `00000.MTS` (patterns match in any case), each a video of tens of
    # MB that would be listed as too large; an `.mts` module is read when included.
    "*.js",
    "*.mjs",
    "*.cjs",
    "*.jsx",
    "*.ts",
    "*.cts",
    "*.tsx",
    "*.go",
    "*.rs",
    "*.java",
    "*.kt",
    "*.c",
    "*.h",
    "*.cc",
    "*.cpp",
    "*.cxx",
    "*.hpp",
    "*.hh",
    "*.hxx",
    "*.cs",
    "*.rb",
    "*.ru",  # Rack's config.ru, a Ruby web app's entry point
    "*.gemspec",
    "*.cr",  # Crystal: a shard's or the standard library's sources
    "*.php",
    "*.swift",
    "*.scala",
    "*.lua",
    "*.tcl",  # a Tcl library's sources (tcllib), read as code (formats.code)
    "*.el",  # Emacs Lisp: an Emacs package's sources, documented in their comments
    "*.scm",  # Scheme: Guile's modules, documented in their Commentary and docstrings
    "*.lisp",  # Common Lisp: a library's sources, documented in their docstrings …
    "*.asd",  # … and its ASDF system definitions (formats.code)
    "*.clj",  # Clojure: a library's sources, documented in their docstrings …
    "*.cljs",  # … ClojureScript's …
    "*.cljc",  # … and those both read (formats.code)
    "*.ml",  # OCaml: a library's code and examples …
    "*.mli",  # … and its interface, its manual in `(** … *)` comments (formats.code)
    "*.hs",  # Haskell: a module, documented in its `-- |` comments
    "*.erl",  # Erlang: a module, documented in its edoc `%% @doc` comments …
    "*.hrl",  # … and the records and macros it includes (formats.code)
    "*.nim",  # Nim: a module, its `##` documentation inside (formats.code)
    "*.R",  # R: scripts, a package's sources, a vignette's tangled code (formats.code)
    "*.d",  # D: a library's modules (Phobos), documented in their ddoc comments (formats.code)
    "*.vim",  # Vim script: a plugin's autoload/ and plugin/ files (formats.code)
    "*.sh",
    # Perl: a module's documentation is the POD inside it (formats.perl).
    "*.pm",
    "*.pl",
    "*.pod",
    # A project's settings: its supported Pythons, dependencies and tool options live
    # in pyproject.toml or setup.cfg, which a developer asks about as often as the code.
    "*.toml",
    "*.cfg",
    "*.ini",
    "*.yaml",
    "*.yml",
    # Jinja templates: the files a configuration tool writes (Ansible's `templates/`), read
    # as what they render to (formats.code.TEMPLATE_SUFFIXES).
    "*.j2",
    "*.jinja",
    "*.jinja2",
)
# `include`'s default, to which patterns starting with `+` are added (`_with_added`).
DEFAULT_INCLUDE = DOCUMENT_PATTERNS + CODE_PATTERNS

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_CANDIDATES = 1000
MAX_PARSE_MEMORY_MB = 1 << 20  # 1 TB
MAX_SECONDS = 86_400
# What one model call may be given (query/model_answerer.py takes no more: a value past
# these passed this check and every `rag ask` was then an internal error).
MAX_API_RETRIES = 10
MAX_API_TIMEOUT_S = 600
MIN_RESCAN_S = 1.0  # `unwatched_rescan_s`: the watcher checks its roots once a second
MAX_SIZE_MB = float(1 << 20)  # 1 TB: 1e308 MB passed "not inf" but its bytes are inf
PRECISIONS = ("auto", "float32", "bfloat16")
ANSWERS = ("auto", "claude", "openai", "extractive")


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "ragd" / "config.toml"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ragd"


class Secret:
    """A value that is never shown: repr, str and format say only whether it is set,
    a deep copy is the same object, JSON refuses it; `reveal()` is the one way to the
    text (the SDK call that needs it)."""

    __slots__ = ("_value",)

    def __init__(self, value: str = "") -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret(set)" if self._value else "Secret(unset)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __deepcopy__(self, _memo: dict[int, Any]) -> Secret:
        return self


@dataclass(frozen=True)
class ApiKeys:
    """The answer models' keys, from the daemon's environment (never shown)."""

    anthropic: Secret = field(default_factory=Secret)
    openai: Secret = field(default_factory=Secret)

    def __post_init__(self) -> None:
        for name in ("anthropic", "openai"):  # a plain string is wrapped at once
            value = getattr(self, name)
            if not isinstance(value, Secret):
                object.__setattr__(self, name, Secret(value))

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> ApiKeys:
        env = os.environ if environ is None else environ
        return cls(Secret(env.get(KEY_ENV[0], "")), Secret(env.get(KEY_ENV[1], "")))


KEY_ENV = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


def _doc(text: str, **kwargs: Any) -> Any:
    """A dataclass field carrying its one-line documentation."""
    return field(metadata={"doc": text}, **kwargs)


@dataclass(frozen=True, repr=False)
class Settings:
    # where things live
    roots: tuple[str, ...] = _doc(
        "Folders to watch, besides those remembered from `rag ingest`.", default=()
    )
    data_dir: str = _doc(
        "Where the indexes live (`$XDG_DATA_HOME/ragd`, else `~/.local/share/ragd`).",
        default_factory=lambda: str(default_data_dir()),
    )
    socket: str = _doc(
        "ZeroMQ address or socket path (`$XDG_RUNTIME_DIR/ragd/ragd.sock`).",
        default_factory=default_socket_address,
    )
    log_level: str = _doc("DEBUG, INFO, WARNING, ERROR or CRITICAL.", default="INFO")
    # what gets indexed
    include: tuple[str, ...] = _doc(
        "File name patterns (matched in any case) that are indexed; source files match the "
        "code patterns (add e.g. `*.zig` for more); `README`, `NEWS.Debian` and the like are "
        "read as plain text, and so, while they are included, is a name in capitals with no "
        "suffix (`COMPAT`, `PKG-INFO`); a gzipped `X.gz` is indexed when `X` is "
        "(never `*.tar.gz`). Patterns that each start with `+` are added to these: "
        '`["+*.conf"]`.',
        default=DEFAULT_INCLUDE,
    )
    exclude: tuple[str, ...] = _doc(
        "Path patterns that are never indexed: lines as in a `.gitignore` at the top of each "
        "root (`private/`, `**/drafts/**`, `/todo.md`; the last matching line decides, so "
        "`!keep.md` after `*.md` lets it back in), also matched as shell globs against "
        "the path and the file name (`drafts/*`, `*.log`).",
        default=(),
    )
    max_file_mb: float = _doc("Files larger than this are skipped (with a warning).", default=20.0)
    max_text_mb: float = _doc(
        "Files whose extracted text exceeds this (in millions of characters) are skipped "
        "(a small PDF can expand into hundreds of MB of text).",
        default=20.0,
    )
    parse_timeout_s: float = _doc(
        "A file whose parsing takes longer is skipped until it changes (`rag ingest FILE` "
        "retries it).",
        default=120.0,
    )
    parse_memory_mb: int = _doc(
        "Address-space limit of the process that parses files; a file needing more is "
        "skipped until it changes.",
        default=1024,
    )
    follow_symlinks: bool = _doc("Follow symbolic links inside roots.", default=False)
    debounce_ms: int = _doc("Quiet time after a file changes before it is re-indexed.", default=250)
    unwatched_rescan_s: float = _doc(
        "How often a root the kernel will not (fully) watch is rescanned and its watches "
        "tried again (inotify watches or instances used up): how stale its index can get; "
        "also how often a vector store server's size is compared with the manifest.",
        default=30.0,
    )
    disk_deadline_s: float = _doc(
        "How long a request waits for the file system (a path given to `rag ingest`, "
        "`--in` or a line range read back), all its look-ups together, before it fails in "
        "one line: a stalled network mount never answers.",
        default=5.0,
    )
    ignore_files: tuple[str, ...] = _doc(
        "Files of gitignore patterns obeyed in their folder and below, nested ones included "
        "(a later name wins in one folder); a change applies at once.",
        default=(".gitignore", ".ragignore"),
    )
    skip_folders: tuple[str, ...] = _doc(
        "Folder names (globs) never entered; `.*` is every hidden folder.", default=SKIP_FOLDERS
    )
    # embedding
    embed_precision: str = _doc(
        "auto, float32 or bfloat16 (auto: float32 on a CPU without native bfloat16, else "
        "measured once per machine in the background, cached in ~/.cache/ragd).",
        default="auto",
    )
    vector_store: str = _doc(
        "`embedded`, or a ChromaDB server URL (`http://127.0.0.1:8000`): loopback only, unless "
        "https with an auth header, because ChromaDB does not enforce its tokens (see "
        "docs/vector-store.md).",
        default="embedded",
    )
    vector_store_headers: tuple[str, ...] = _doc(
        "Headers sent to the server, e.g. `Authorization: Bearer …` for a proxy (never shown).",
        default=(),
    )
    allow_insecure_vector_store: bool = _doc(
        "Accept a non-loopback server without https and an auth header (anyone who reaches "
        "it reads and writes the index).",
        default=False,
    )
    # retrieval and the gate
    top_k: int = _doc("Chunks returned by search and given to the answer (1–50).", default=5)
    candidates: int = _doc("Candidates each retriever (vector, BM25) proposes.", default=20)
    support_floor: float = _doc(
        "Gate override: below this best support a question is refused without a model "
        "call. 0 (the default): the floor is learned for each index (see README).",
        default=0.0,
    )
    # answering
    answers: str = _doc(
        "Who writes answers: auto, claude, openai or extractive. auto: Claude when the daemon "
        "has ANTHROPIC_API_KEY, else the OpenAI-compatible server when `openai_base_url` is "
        "set, else quotes from the documents (extractive).",
        default="auto",
    )
    model: str = _doc("Claude model that writes answers.", default="claude-sonnet-4-6")
    anthropic_base_url: str = _doc("Anthropic API base URL (empty: the default).", default="")
    openai_base_url: str = _doc(
        "An OpenAI-compatible server (Ollama: `http://127.0.0.1:11434/v1`, llama-server: "
        "`http://127.0.0.1:8080/v1`); its key, if it needs one, comes from OPENAI_API_KEY. "
        "Loopback, or https unless `allow_insecure_openai`.",
        default="",
    )
    openai_model: str = _doc("The model that server answers with (e.g. `llama3.2`).", default="")
    allow_insecure_openai: bool = _doc(
        "Accept a non-loopback `openai_base_url` over plain http (questions and documents "
        "cross the network unencrypted).",
        default=False,
    )
    api_timeout_s: float = _doc(
        "Timeout of one request to the answer model (at most 600).", default=60.0
    )
    api_max_retries: int = _doc("Retries of a failed API request (at most 10).", default=2)
    context_budget_tokens: int = _doc("Token budget for the documents in a prompt.", default=6000)
    # serving
    max_message_bytes: int = _doc(
        "Largest request frame accepted (`rag` refuses a larger request itself, naming it).",
        default=DEFAULT_MAX_MESSAGE_BYTES,
    )
    shutdown_timeout_s: float = _doc(
        "On SIGTERM: time allowed to finish the file being indexed.", default=10.0
    )
    # Not a settings key (no TOML key, flag or RAG_* variable; not in FIELDS): resolved
    # from the environment by load_settings, compared by nothing, shown nowhere.
    api_keys: ApiKeys = field(default_factory=ApiKeys, compare=False, metadata={"secret": True})

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self.public().items())
        return f"Settings({shown})"

    __str__ = __repr__

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir)

    @property
    def vector_target(self) -> VectorStore:
        """Where the dense index lives (raises VectorStoreConfigError if refused)."""
        from ragd.core.vector_store import from_settings

        return from_settings(
            self.vector_store, self.vector_store_headers, self.allow_insecure_vector_store
        )

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    @property
    def max_text_chars(self) -> int:
        return int(self.max_text_mb * 1024 * 1024)

    def public(self) -> dict[str, Any]:
        """Every key's value, header secrets as names only (and no API key): for
        `ragd config`, repr and the log."""
        values = {key: getattr(self, key) for key in FIELDS}
        values["vector_store_headers"] = tuple(
            h.partition(":")[0] + ": …" for h in self.vector_store_headers
        )
        return values


# The settings keys: every field but the never-shown ones.
FIELDS = {f.name: f for f in dataclasses.fields(Settings) if "secret" not in f.metadata}


class LiveSettings:
    """The running daemon's one settings reference. Every part that reads a setting at
    use time reads `current`; a reload (SIGHUP) is one `replace`. The one value kept
    elsewhere is the queue's debounce: a reload reschedules the changes already waiting."""

    def __init__(self, settings: Settings) -> None:
        self._current = settings

    @property
    def current(self) -> Settings:
        return self._current

    def replace(self, fresh: Settings) -> Settings:
        """Make `fresh` current (one assignment: a reader sees the old or the new whole);
        returns the settings it replaces."""
        old, self._current = self._current, fresh
        return old


def default(key: str) -> Any:
    """One setting's default, for a component's keyword default: it never drifts from here."""
    spec = FIELDS[key]
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    return spec.default


ENV_PREFIX = "RAG_"
CONFIG_ENV = "RAG_CONFIG"
# RAG_* variables that are not settings keys but are still ours (the vector store's open
# deadline: core/vector_store.py, for tests and operators).
OTHER_ENV = {CONFIG_ENV, "RAG_VECTOR_STORE_OPEN_S"}

# Keys a running daemon cannot change on SIGHUP (they need a restart).
RESTART_ONLY = (
    "data_dir",
    "socket",
    "include",
    "exclude",
    "ignore_files",
    "skip_folders",
    "embed_precision",
    "vector_store",
    "vector_store_headers",
    "allow_insecure_vector_store",
    "max_message_bytes",
    "unwatched_rescan_s",
)


def env_name(key: str) -> str:
    return ENV_PREFIX + key.upper()


def flag_name(key: str) -> str:
    return "--" + key.replace("_", "-")


_WANT = {tuple: "a list of strings", bool: "a boolean", int: "an integer", float: "a number"}
_WORDS = {"1": True, "true": True, "yes": True, "on": True}
_WORDS |= {"0": False, "false": False, "no": False, "off": False}


def _has_type(value: Any, expected: type) -> bool:
    if isinstance(value, bool):  # a bool is an int to isinstance, never to us
        return expected is bool
    if expected is float:
        return isinstance(value, int | float)
    if expected is tuple:
        return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
    return isinstance(value, expected)


def _coerce(key: str, value: Any, origin: str, text: bool = False) -> Any:
    """Convert a value to the field's type, or fail naming the key and where it came from.

    TOML values must already have the right type; environment values (`text=True`) are
    strings and are parsed: lists split on ':' (roots) or ',', booleans from yes/no words.
    """
    expected = type(getattr(Settings(), key))
    want = _WANT.get(expected, "a string")
    try:
        if text and isinstance(value, str):
            if expected is tuple:
                items = value.split(os.pathsep if key == "roots" else ",")
                return tuple(v.strip() for v in items if v.strip())
            if expected is bool:
                return _WORDS[value.strip().lower()]
            if expected in (int, float):
                return expected(value.strip())
            return value
        if _has_type(value, expected):
            return expected(value)
    except (KeyError, ValueError):
        pass
    raise ConfigError(f"{origin}: key '{key}' must be {want}, got {value!r}")


def config_file(
    config_path: Path | None = None, environ: Mapping[str, str] | None = None
) -> tuple[Path, bool]:
    """The config file to read, and whether it was named explicitly (and so must exist)."""
    env = os.environ if environ is None else environ
    if config_path is not None:
        return Path(config_path).expanduser(), True
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser(), True
    return default_config_path(env), False


MAX_CONFIG_BYTES = 1 << 20  # a settings file is a few hundred bytes


def _config_text(path: Path) -> str | None:
    """The config file's text, or None when nothing is at `path` (a dangling link too).

    Opened without blocking and checked on the open file: a FIFO there made `ragd serve`
    wait for a writer for ever, and a name that is no file at all (a folder, /dev/zero, a
    FIFO) was "config file not found" when named, and silently ignored at the default
    place (settings the user wrote, not applied, not a word)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise ConfigError(f"{path}: the config file is {kind}; name a TOML file")
    refusal = others_could_write(st, access_acl(fd))
    if refusal:
        os.close(fd)
        raise ConfigError(
            f"{path}: the config file {refusal}, so they could have ragd send your "
            "documents and API key to a server of theirs (anthropic_base_url, "
            "vector_store); keep it yours and writable by you alone (chmod go-w)"
        )
    with os.fdopen(fd, "rb") as stream:
        data = stream.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: the config file is over {MAX_CONFIG_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


def others_could_write(st: os.stat_result, acl: bytes | None = None) -> str:
    """Why another user could have written the config file open as `st`, or "".

    The file says where documents and the API key go, which folders are read and where
    the index lives, so it must be as private as the key: owned by this user (or root)
    and writable by nobody else. It had been read whoever owned it, whatever its mode:
    a `config.toml` of mode 666, or one another user planted in a folder open to all,
    set `anthropic_base_url` for the next start or SIGHUP (ssh refuses such a file too).
    A group-writable file passes only when the group is the user's own (umask 002 with a
    group per user) and nobody else is in it. `acl` is the file's POSIX access ACL
    (`access_acl`): with one, the mode's group bits are its mask, and each named user
    and group it lets write is another writer (review74: `setfacl -m u:bob:rw` on a 600
    file had passed as mode 660 of the user's own group)."""
    me = os.geteuid()
    if st.st_uid not in (me, 0):
        return f"belongs to uid {st.st_uid}, not to you (uid {me})"
    mode = stat.S_IMODE(st.st_mode)
    if st.st_mode & stat.S_IWOTH:
        return f"is writable by every user (mode {mode:o})"
    entries = _acl_entries(acl) if acl else []
    if not entries:  # no ACL: the group bits are the owning group's
        entries = [(_ACL_GROUP_OBJ, mode >> 3, st.st_gid)]
    mask = next((perm for tag, perm, _ in entries if tag == _ACL_MASK), 0o7)
    for tag, perm, ident in entries:
        if not perm & mask & 0o2:
            continue
        if tag == _ACL_USER and ident != me:
            return f"lets uid {ident} write it (an ACL entry: getfacl shows it)"
        group = st.st_gid if tag == _ACL_GROUP_OBJ else ident
        if tag in (_ACL_GROUP_OBJ, _ACL_GROUP) and not _group_is_mine(group):
            return f"is writable by group {group} (mode {mode:o}), which is not yours alone"
    return ""


# POSIX ACL entries as Linux stores them (system.posix_acl_access: a version word, then
# tag, permissions and id of each); the tags of the entries that can grant write.
_ACL_VERSION = 2
_ACL_USER, _ACL_GROUP_OBJ, _ACL_GROUP, _ACL_MASK = 0x02, 0x04, 0x08, 0x10
_ACL_ENTRY = struct.Struct("<HHI")


def access_acl(fd: int) -> bytes | None:
    """The POSIX access ACL of the open file `fd`, or None (none, or no ACLs here)."""
    try:
        return os.getxattr(fd, "system.posix_acl_access")
    except OSError:
        return None


def _acl_entries(acl: bytes) -> list[tuple[int, int, int]]:
    """(tag, permissions, id) of each entry of a stored ACL; [] for one of another
    version (an ACL the kernel kept is at most 64 KiB: a few thousand entries)."""
    if len(acl) < 4 or int.from_bytes(acl[:4], "little") != _ACL_VERSION:
        return []
    body = acl[4 : 4 + (len(acl) - 4) // _ACL_ENTRY.size * _ACL_ENTRY.size]
    return list(_ACL_ENTRY.iter_unpack(body))


def _group_is_mine(gid: int) -> bool:
    """Whether group `gid` is this user's own: its primary group, listing no other user
    and the primary group of no other user (review74: a group such as `users` that every
    account has as its primary group lists none of them as members)."""
    import grp
    import pwd

    if gid != os.getegid():
        return False
    me = os.geteuid()
    try:
        members = grp.getgrgid(gid).gr_mem
        name = pwd.getpwuid(me).pw_name
    except KeyError:
        return False
    if any(member != name for member in members):
        return False
    return all(user.pw_uid == me for user in pwd.getpwall() if user.pw_gid == gid)


def read_config_file(path: Path, required: bool = False) -> dict[str, Any]:
    """The keys of the TOML file at `path` ({} when there is none and none is required)."""
    text = _config_text(path)
    if text is None:
        if required:
            raise ConfigError(f"{path}: config file not found")
        return {}
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:  # `[[[[…` or `{a={a={…` deeper than the reader recurses
        raise ConfigError(f"{path}: not valid TOML (arrays or tables nested too deeply)") from None
    for key in data:
        if key not in FIELDS:
            known = ", ".join(sorted(FIELDS))
            raise ConfigError(f"{path}: unknown key '{key}' (known keys: {known})")
    return data


def load_settings(
    config_path: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Settings, dict[str, str]]:
    """Build the settings and a map key → where its value came from."""
    env = os.environ if environ is None else environ
    origins = {key: "default" for key in FIELDS}
    values: dict[str, Any] = {}
    path, explicit = config_file(config_path, env)
    for key, value in read_config_file(path, required=explicit).items():
        values[key] = _coerce(key, value, str(path))
        origins[key] = f"file {path}"
    for key in FIELDS:
        name = env_name(key)
        if env.get(name, "") != "":
            values[key] = _coerce(key, env[name], f"environment variable {name}", text=True)
            origins[key] = f"env {name}"
    for key, value in (flags or {}).items():
        if key not in FIELDS:
            raise ConfigError(f"unknown setting {key!r}")
        if value is None or value == () or value == []:
            continue
        if key == "socket" and value == "":
            # `--socket "$SOCK"` with SOCK unset: the default, as `rag --socket ""` and an
            # empty RAG_SOCKET read it, so both sides still meet (made a path, "" was the
            # working folder: "cannot listen on ipc:///home/me: Is a directory").
            continue
        values[key] = _coerce(key, value, flag_name(key), text=isinstance(value, str))
        origins[key] = f"flag {flag_name(key)}"
    if "socket" in values:
        values["socket"] = normalize_address(values["socket"])
    for key in ("data_dir", "roots"):
        # Made absolute, "" is the working folder: `roots = [""]` (or `--data-dir ""`)
        # watched (or wrote the index into) whatever folder ragd was started in.
        given = values.get(key, ())
        if "" in ((given,) if isinstance(given, str) else given):
            raise ConfigError(
                f"{_where(origins[key])}: key '{key}' holds an empty path; name the folder"
            )
    if "data_dir" in values:
        values["data_dir"] = str(Path(values["data_dir"]).expanduser().absolute())
    if "roots" in values:
        values["roots"] = tuple(str(Path(r).expanduser().absolute()) for r in values["roots"])
    if "log_level" in values:
        values["log_level"] = values["log_level"].upper()
    if "include" in values:
        values["include"] = _with_added(values["include"], origins["include"])
    settings = Settings(**values, api_keys=ApiKeys.from_environ(env))
    _validate(settings, origins)
    _validate_open_deadline(env)
    return settings, origins


def _with_added(patterns: tuple[str, ...], origin: str) -> tuple[str, ...]:
    """`include`'s patterns, or the defaults and more when each starts with `+`
    (`["+*.conf"]`): one more pattern had meant writing out all hundred again."""
    added = [pattern for pattern in patterns if pattern.startswith("+")]
    if not added:
        return patterns
    if not all(pattern[1:].strip() for pattern in added):
        # (`RAG_INCLUDE="+"` added the empty pattern, where `include = [""]` is refused.)
        raise ConfigError(
            f"{_where(origin)}: key 'include' holds '+' with no pattern after it "
            "(write '+*.conf' to add *.conf to the defaults)"
        )
    if len(added) < len(patterns):
        raise ConfigError(
            f"{_where(origin)}: key 'include' mixes patterns that add to the defaults "
            f"({added[0]!r}) with ones that replace them: start every pattern with '+', "
            "or none"
        )
    return DEFAULT_INCLUDE + tuple(pattern[1:] for pattern in added)


def _validate(settings: Settings, origins: dict[str, str]) -> None:
    def fail(key: str, want: str) -> None:
        value = getattr(settings, key)
        raise ConfigError(f"{_where(origins[key])}: key '{key}' must be {want}, got {value!r}")

    if settings.log_level not in LOG_LEVELS:
        fail("log_level", "one of " + ", ".join(LOG_LEVELS))
    if settings.embed_precision not in PRECISIONS:
        fail("embed_precision", "one of " + ", ".join(PRECISIONS))
    if any(not name or "/" in name or name in (".", "..") for name in settings.ignore_files):
        fail("ignore_files", "a list of file names (without '/')")
    # Nothing to index, or no model to answer with: taken, they left a daemon that served
    # an empty index (said only as skipped file types in `rag status`), or every answer
    # with a key failing at the API.
    if not any(pattern.strip() for pattern in settings.include):
        fail("include", "at least one file name pattern (leave the key out for the defaults)")
    if not settings.model.strip() or not settings.model.isprintable():
        fail("model", "a Claude model name (leave the key out for the default)")
    for key, what, like in (
        ("include", "file names", "*.md"),
        ("skip_folders", "folder names", "build"),
    ):
        # Matched against a name, never a path: `include = ["**/*.md"]` (a .gitignore's
        # "Markdown anywhere") matched no file, and the daemon served an empty index.
        if pathlike := [p for p in getattr(settings, key) if "/" in p]:
            raise ConfigError(
                f"{_where(origins[key])}: key '{key}' holds {pathlike[0]!r}, but its patterns "
                f"match {what}, never a path, so one with '/' matches nothing: write the "
                f"name's pattern ('{like}'), and choose folders with exclude"
            )
    if (unread := _unreadable_pattern(settings.exclude)) is not None:
        raise ConfigError(
            f"{_where(origins['exclude'])}: key 'exclude' holds {unread!r}, which is no "
            "pattern (a gitignore line or a glob: a lone '!', a trailing '\\' or a range "
            "written backwards such as '[z-a]' is neither)"
        )
    for key in ("context_budget_tokens", "max_message_bytes"):
        if getattr(settings, key) < 1:
            fail(key, "at least 1")
    if not TOP_K_MIN <= settings.top_k <= TOP_K_MAX:  # what a request's top_k may be
        fail("top_k", f"from {TOP_K_MIN} to {TOP_K_MAX}")
    for key in ("debounce_ms", "api_max_retries"):
        if getattr(settings, key) < 0:
            fail(key, "0 or more")
    if settings.api_max_retries > MAX_API_RETRIES:
        fail("api_max_retries", f"at most {MAX_API_RETRIES}")
    if not 0 < settings.api_timeout_s <= MAX_API_TIMEOUT_S:
        fail("api_timeout_s", f"greater than 0 and at most {MAX_API_TIMEOUT_S} (ten minutes)")
    if settings.debounce_ms > MAX_SECONDS * 1000:  # a typo's 10^20 ms: no change ever indexed
        fail("debounce_ms", f"at most {MAX_SECONDS * 1000} (a day)")
    # Upper bounds where a larger value broke something at run time rather than at start:
    # a panic in tantivy for every search (candidates), a parse worker that cannot set its
    # limit, so every file is skipped and held (parse_memory_mb), int(inf) failing the
    # start with a traceback (the sizes), SIGTERM ending in a traceback (a timeout too long
    # for the OS's clock).
    for key, lo, hi in (
        ("candidates", 1, MAX_CANDIDATES),
        ("parse_memory_mb", 64, MAX_PARSE_MEMORY_MB),
    ):
        if not lo <= getattr(settings, key) <= hi:
            fail(key, f"from {lo} to {hi}")
    for key in ("max_file_mb", "max_text_mb"):
        # A finite cap too large for its bytes to be a number (1e308 MB) was accepted, and
        # every file then failed to index: int(inf) in `max_file_bytes`.
        if not 0 < getattr(settings, key) <= MAX_SIZE_MB:
            fail(key, f"a number greater than 0 (not inf), at most {MAX_SIZE_MB:.0f}")
    for key in ("parse_timeout_s", "shutdown_timeout_s", "disk_deadline_s"):
        if not 0 < getattr(settings, key) <= MAX_SECONDS:
            fail(key, f"greater than 0 and at most {MAX_SECONDS} (a day)")
    # The watcher looks at its roots once a second (watcher.ROOT_CHECK_INTERVAL_S): a
    # shorter period would be said in `rag status` and never kept.
    if not MIN_RESCAN_S <= settings.unwatched_rescan_s <= MAX_SECONDS:
        fail("unwatched_rescan_s", f"at least {MIN_RESCAN_S:g} and at most {MAX_SECONDS} (a day)")
    if not -1.0 <= settings.support_floor <= 1.0:
        fail("support_floor", "between -1 and 1 (a cosine)")
    if settings.answers not in ANSWERS:
        fail("answers", "one of " + ", ".join(ANSWERS))
    _validate_vector_store(settings, origins)
    _validate_openai(settings, origins)
    check_default_address(settings.socket)
    if problem := layout.too_long(settings.data_path):
        raise ConfigError(problem)


def _unreadable_pattern(patterns: tuple[str, ...]) -> str | None:
    """An `exclude` pattern the filter cannot read as a gitignore line (pathspec or RE2
    refuses it), which would be left out of what the folder's patterns keep out."""
    from ragd.core.gitignore_lines import compiles

    return next((pattern for pattern in patterns if not compiles(pattern)), None)


def _validate_openai(settings: Settings, origins: dict[str, str]) -> None:
    from ragd.core.network_policy import BadServerUrl, missing_protection, without_credentials

    def fail(key: str, why: str) -> NoReturn:
        raise ConfigError(f"{_where(origins[key])}: key '{key}': {why}")

    url = settings.openai_base_url
    if not url:
        if settings.answers == "openai":
            fail("answers", '"openai" needs openai_base_url (e.g. http://127.0.0.1:11434/v1)')
        return
    try:
        missing = missing_protection(url)
    except BadServerUrl as exc:
        fail("openai_base_url", str(exc))
    if missing and not settings.allow_insecure_openai:
        fail(
            "openai_base_url",
            f"{without_credentials(url)} is not loopback and lacks {' and '.join(missing)}: "
            "the questions and documents would cross the network unencrypted. Use https, or set "
            "allow_insecure_openai = true for a network you trust",
        )
    if not settings.openai_model.strip():
        fail("openai_base_url", 'is set but openai_model is empty (e.g. openai_model = "llama3.2")')
    if not settings.openai_model.isprintable():
        fail("openai_model", f"a model name has no control characters: {settings.openai_model!r}")


def _validate_open_deadline(env: Mapping[str, str]) -> None:
    """RAG_VECTOR_STORE_OPEN_S, read at each open, is checked once here: a bad value is
    one line at start-up, not a vector store that never opens."""
    from ragd.core.vector_store import VectorStoreConfigError, open_deadline_s

    try:
        open_deadline_s(env)
    except VectorStoreConfigError as exc:
        raise ConfigError(str(exc)) from None


def _validate_vector_store(settings: Settings, origins: dict[str, str]) -> None:
    from ragd.core.vector_store import VectorStoreConfigError, parse_headers

    for key, check in (
        ("vector_store_headers", lambda: parse_headers(settings.vector_store_headers)),
        ("vector_store", lambda: settings.vector_target),
    ):
        try:
            check()
        except VectorStoreConfigError as exc:
            raise ConfigError(f"{_where(origins[key])}: key '{key}': {exc}") from None


def _where(origin: str) -> str:
    """'file /x/config.toml' → '/x/config.toml'; 'env RAG_X' → 'environment variable RAG_X'."""
    kind, _, rest = origin.partition(" ")
    return {"file": rest, "env": f"environment variable {rest}", "flag": rest}.get(kind, origin)


def unknown_env(environ: Mapping[str, str] | None = None) -> list[str]:
    """RAG_* variables that name no setting (probably typos); start-up warns about them."""
    env = os.environ if environ is None else environ
    known = {env_name(key) for key in FIELDS} | OTHER_ENV
    return sorted(k for k in env if k.startswith(ENV_PREFIX) and k not in known)


def reference_markdown() -> str:
    """The configuration table the docs carry (a test keeps the two identical)."""
    rows = ["| key | default | environment | meaning |", "|---|---|---|---|"]
    for f in FIELDS.values():
        if f.name == "data_dir":
            default = "`~/.local/share/ragd`"
        elif f.name == "socket":
            default = "`$XDG_RUNTIME_DIR/ragd/ragd.sock`"
        else:
            value = getattr(Settings(), f.name)
            shown = list(value) if isinstance(value, tuple) else value
            default = f"`{_toml_value(shown)}`"
        rows.append(f"| `{f.name}` | {default} | `{env_name(f.name)}` | {f.metadata['doc']} |")
    return "\n".join(rows)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def describe(settings: Settings, origins: Mapping[str, str]) -> list[str]:
    """`ragd config`: one TOML line per key, with where its value came from."""
    lines = []
    for key, value in settings.public().items():
        shown = list(value) if isinstance(value, tuple) else value
        origin = origins[key]
        # The variable that would set it, unless the origin already names it ("env RAG_X").
        variable = "" if origin.startswith("env ") else f" ({env_name(key)})"
        lines.append(f"{key} = {_toml_value(shown)}  # {origin}{variable}")
    return lines
