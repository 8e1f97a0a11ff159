"""Source code, by extension: headings ``class > function`` where that is cheap.

Which extensions are indexed is the ``include`` setting (its default lists common
languages; add a pattern such as ``"*.zig"`` for more): any file it lets through that has
no dedicated format module is read here, as text. Python is split with the standard
library's own parser (`ast`) into module code, classes, methods and functions, each a
section. Go, Rust, JavaScript/TypeScript, Ruby, PHP, Lua, Tcl, Kotlin, Swift, Scala,
Emacs Lisp and shell are split at their top-level definitions, found by one pattern per
language on lines that start at column 0 (no parsing: a section runs to the next such line, with the
comments just above a definition kept with it; Go's top-level `var`/`const` count as
definitions, named by what they declare), and a PHP, Kotlin, Swift or Scala type again
at its methods (MEMBERS). Java, C#, C and C++ are split at their types and functions, a
type again at its members, read from each statement's code up to its `{` or `;`
(`formats.c_family`: a prototype or a call is no definition). Other languages, and
Python that does not parse, are one section. Code is kept verbatim in fenced blocks,
each with the line it starts at, so every chunk reports the file's own line numbers.

The file's name is not a heading: the citation already names the file
(``[tools/ballast.py:class BallastPump > def start]``), and a heading is embedded with
every window, so a name in it would re-embed the whole file on a rename. Code outside
any definition (imports, constants) has no heading of its own and is headed like any
heading-less text (``(untitled)``, see `chunking.content_title`), but for a Go file's,
headed by its package clause (``package cobra``), a Java file's by its own (``package
org.harbour``), a C# file's by its namespace (``namespace Python.Runtime``), and a Lua
module's, by its LDoc tag (``module pl.path``).
"""

from __future__ import annotations

import ast
import codecs
import re
from collections.abc import Sequence
from itertools import islice
from pathlib import PurePath

from ragd.core.no_text import not_a_document
from ragd.ingest.document import Document, SkipFile, decode_text, without_nul
from ragd.ingest.formats import suffix_for
from ragd.ingest.formats.c_banners import with_banners
from ragd.ingest.formats.c_family import Definition as BraceDefinition
from ragd.ingest.formats.c_family import outline
from ragd.ingest.formats.c_family_lexer import C_LANGUAGES
from ragd.ingest.formats.c_family_lexer import LANGUAGES as BRACED
from ragd.ingest.formats.code_literals import LANGUAGES as LEXED
from ragd.ingest.formats.code_literals import lines_in_code
from ragd.ingest.formats.lisp_banners import banners as lisp_banners
from ragd.ingest.formats.markdown import NAMES_IN_HEADING, MarkdownWriter, names_heading
from ragd.ingest.formats.ruby_code import write_ruby
from ragd.ingest.formats.rust_docs import DEFINITION as RUST_DEFINITION
from ragd.ingest.formats.rust_docs import write_rust
from ragd.ingest.formats.yaml_outline import write_yaml

FORMAT = "source file"
KNOWS_PATH = True  # Rust's `include_str!("../README.md")` is named from the root (rust_attributes)

LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",  # an ES module: how an ESM-only npm package ships its code
    ".cjs": "javascript",  # a CommonJS module beside them
    ".jsx": "jsx",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".ru": "ruby",  # Rack's config.ru
    ".gemspec": "ruby",
    ".cr": "crystal",  # Crystal: a shard's or the standard library's sources, `#` comments
    ".php": "php",
    ".swift": "swift",
    ".scala": "scala",
    ".sh": "sh",
    ".sql": "sql",
    ".lua": "lua",
    ".tcl": "tcl",
    ".tm": "tcl",  # a Tcl module, `package require` finds it by that name
    ".el": "elisp",  # an Emacs package's sources (ELPA's), its manual their comments
    ".scm": "scheme",  # Guile's modules (guile-lib's, /usr/share/guile/site), R7RS's
    ".sls": "scheme",  # an R6RS library (Chez's, scheme-chez-srfi's); Salt's YAML is not read so
    ".ss": "scheme",  # Chez Scheme's and PLT's sources
    ".sps": "scheme",  # an R6RS program
    ".lisp": "commonlisp",  # Common Lisp: a library's sources (Debian's cl-*), docstrings
    ".lsp": "commonlisp",
    ".asd": "commonlisp",  # … and its ASDF system definitions (`defsystem`)
    ".clj": "clojure",  # Clojure: a library's sources (in Debian's jars), docstrings
    ".cljs": "clojure",  # … ClojureScript's
    ".cljc": "clojure",  # … and those both read
    ".ml": "ocaml",  # OCaml: a library's code and its examples
    ".mli": "ocaml",  # … and its interface, documented in `(** … *)` comments
    ".hs": "haskell",  # Haskell: a module, documented in its `-- |` comments
    ".erl": "erlang",  # Erlang: a module, documented in its edoc `%% @doc` comments
    ".hrl": "erlang",  # … and the records and macros its modules include
    ".nim": "nim",  # Nim: a module, documented in its `##` comments (inside what they document)
    ".r": "r",  # R: a script, a package's sources, the code knitr tangles out of a vignette
    ".d": "d",  # D: a library's modules (Phobos), documented in their ddoc comments
    ".vim": "vim",  # Vim script: a plugin's autoload/, plugin/, ftplugin/ files, `"` comments
    ".toml": "toml",
    ".cfg": "ini",
    ".ini": "ini",
    ".yaml": "yaml",
    ".yml": "yaml",
}

# Jinja templates (Ansible's `templates/`, a Helm-like chart's): read as the file they
# render to, by the suffix before theirs (`mongod.conf.j2` as text, `values.yaml.j2` as
# YAML); their `{{ … }}` and `{% … %}` lines are lines like any other.
TEMPLATE_SUFFIXES = frozenset((".j2", ".jinja", ".jinja2"))

# A bundler's mark that a call or function has no side effects (`/*#__PURE__*/`, `@__PURE__`)
_PURE = r"(?:/\*[#@]__PURE__\*/\s*)?"
# Top-level definitions by language; the matched text (whitespace folded) heads the section.
DEFINITIONS = {
    # A top-level `var`/`const` too: after a definition it was filed under it (viper's
    # `var SupportedExts = […]` cited as `type RemoteProvider`). Not a blank identifier's
    # (`var _ Fs = MemMapFs{}`, the check that the type above implements an interface).
    "go": re.compile(
        r"^(?:func\s+(?:\([^)]*\)\s*)?\w+|type\s+\w+|(?:var|const)\s+(?:\(|(?!_\b)\w+))"
    ),
    "rust": RUST_DEFINITION,  # read with its doc comments: formats.rust_docs
    # A `var`/`let` assigned a function too: how Babel and TypeScript compile a class for
    # old browsers, `var ObservableValue = /*#__PURE__*/function (_Atom) {` (mobx's bundles:
    # each class had been cited as the function above it); its `/*#__PURE__*/` mark is
    # the bundler's, for a `const` too.
    "javascript": re.compile(
        r"^(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:function\*?|class)\s+[\w$]+"
        rf"|^(?:export\s+)?const\s+[\w$]+(?=\s*=\s*{_PURE}(?:async\s*)?(?:function|\())"
        rf"|^(?:export\s+)?(?:var|let)\s+[\w$]+(?=\s*=\s*{_PURE}(?:async\s*)?function\b)"
    ),
    "ruby": re.compile(r"^(?:class|module|def)\s+[\w:.?!]+"),
    "sh": re.compile(r"^(?:function\s+)?[\w-]+(?=\s*\(\))"),
    # A settings file's tables: [tool.ruff], [[tool.mypy.overrides]], [metadata].
    "toml": re.compile(r"^\[\[?[^\]\n]{1,200}\]\]?"),
    "ini": re.compile(r"^\[[^\]\n]{1,200}\]"),
}
# TypeScript's own top-level declarations too: a package's typings (`index.d.ts`) are its
# API, told by `export interface …`, `export type … =`, `declare namespace …`,
# `export const enum …`, and an @types package's `declare module "fs" {` (each the API of
# one module) and `declare global {`. A type alias only with its `=` or `<` after the
# name: a template literal's line "type the name of the file" is no declaration.
DEFINITIONS["typescript"] = re.compile(
    r"^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:(?:function\*?|class|interface|(?:const\s+)?enum|namespace)\s+[\w$]+"
    r"|type\s+[\w$]+(?=\s*[=<]))"
    r"|^(?:export\s+)?declare\s+(?:module\s+(?:[\w$.]+|\"[^\"\n]{1,200}\"|'[^'\n]{1,200}')"
    r"|global\b)"
    rf"|^(?:export\s+)?const\s+[\w$]+(?=\s*=\s*{_PURE}(?:async\s*)?(?:function|\())"
    rf"|^(?:export\s+)?(?:var|let)\s+[\w$]+(?=\s*=\s*{_PURE}(?:async\s*)?function\b)"
)
DEFINITIONS["jsx"] = DEFINITIONS["javascript"]
DEFINITIONS["tsx"] = DEFINITIONS["typescript"]
# What a comment line opens with in the languages split here (`--`: Lua's, SQL's). The
# keyless answerer reads licence notices in the same lines, and in INI's `;` ones too
# (query/extractive.py), which no file split here has: a JavaScript line may open with a
# defensive `;(function () {…})()`.
COMMENT_OPENERS = ("//", "#", "/*", "*", "--")


def is_comment(line: str, openers: tuple[str, ...] = COMMENT_OPENERS) -> bool:
    """A comment line: one opening with one of `openers` (LINE_COMMENTS: Lisp's `;`)."""
    return line.lstrip().startswith(openers)


# PHP: a class, interface, trait or enum (a PSR-4 file holds one) and a function, headed
# `class TableParser` as Python's are; Lua: `function M.name`, `function List:append`,
# `local function name` at the margin. Both were one `(untitled)` section a file (a
# 500-line `Cursor.php`), cited by line numbers only (newuser40, league/commonmark).
# Lua's other way to write one, `path.mkdir = function(d)` (`local f = function`), is
# headed `function path.mkdir` too: Penlight's path.lua defines six of its functions so,
# and they were the tail of `function err_func` above them (newuser43).
DEFINITIONS["php"] = re.compile(
    r"^(?:(?:abstract|final|readonly)\s+)*"
    r"(?P<kind>class|interface|trait|enum|function)\s+(?:&\s*)?(?P<name>\w+)"
)
DEFINITIONS["lua"] = re.compile(
    r"^(?:local\s+)?(?:(?P<kind>function)\s+(?P<name>[\w.:]+)"
    r"|(?P<assigned>[\w.:]+)\s*=\s*function\b)"
)
# Tcl: a `proc` at the margin (tcllib's are `proc ::csv::split {args} {`), a `namespace eval`
# and a snit or TclOO class, whose procs and methods, one indent in, are its members.
# Each file had been one `(untitled)` section (newuser45, tcllib 1.21: 73 files, 956 procs).
DEFINITIONS["tcl"] = re.compile(
    r"^(?P<kind>proc|namespace[ \t]+eval|(?:::)?snit::(?:type|widget|widgetadaptor)"
    r"|(?:::)?oo::class[ \t]+create|(?:::)?itcl::class)[ \t]+(?P<name>[\w:.-]+)"
)
# Emacs Lisp: a form at the margin that defines something, headed by its kind and name
# (`defun company-files`, `defcustom company-idle-delay`, `define-globalized-minor-mode
# global-company-mode`); `(cl-defstruct (name …))` and `(defalias 'name …)` named without
# the parenthesis or quote. `.el` had not been read at all: company-mode 0.9.13's 40
# files, its whole documentation in their `;;; Commentary:` and docstrings, were no
# document (newuser61). A docstring's line that opens with `(defun` at the margin would
# split too (Lisp's strings are not lexed here); company's have none. A `(defvar name)`
# without a value (a forward declaration, as C's is none: 124 one-line chunks in 130
# files of six ELPA packages and company) heads no section (review63).
_ELISP_KINDS = (
    "defun", "defmacro", "defsubst", "defvar", "defvar-local", "defcustom", "defconst",
    "defface", "defgroup", "defalias", "defclass", "defadvice", "define-advice",
    "cl-defun", "cl-defmacro", "cl-defsubst", "cl-defgeneric", "cl-defmethod",
    "cl-defstruct", "define-minor-mode", "define-globalized-minor-mode",
    "define-global-minor-mode", "define-derived-mode", "define-generic-mode",
    "define-obsolete-function-alias", "define-obsolete-variable-alias", "define-skeleton",
    "define-inline", "define-widget", "define-error", "define-key", "ert-deftest",
)  # fmt: skip
DEFINITIONS["elisp"] = re.compile(
    rf"^\((?P<kind>{'|'.join(map(re.escape, _ELISP_KINDS))})[ \t]+[('#]{{0,3}}"
    r"(?P<name>[^\s()'\"]+)(?![^\s()'\"]|[ \t]*\))"
)
# Scheme: a form at the margin whose keyword starts with `define` (`define`, `define*`,
# `define-public`, `define-syntax`, `define-record-type`, GOOPS's `define-class`,
# `define-method` and `define-generic`, a library's own `define-with-docs`), headed by its
# kind and name (`define topological-sort`: a procedure's `(define (name args)` without
# the parenthesis), and a module's or library's own form by the list that names it
# (`define-module (logging logger)`). `.scm` had not been read at all: guile-lib 0.2.7's
# 30 modules, their documentation in their Commentary and docstrings, were no document
# (newuser62). Its strings span lines (a docstring's line opening with `(define` is none:
# code_literals reads Scheme's strings and block comments).
DEFINITIONS["scheme"] = re.compile(
    r"^\((?:(?P<module_kind>define-module|define-library|library)[ \t]+"
    r"(?P<module>\([^()\n]{1,200}\))"
    r"|(?P<kind>define[\w*!?<>/:.-]{0,60})[ \t]+\(*(?P<name>[^\s()'\"]+))"
)
# Common Lisp: a form at the margin that defines something, headed by its kind and name
# (`defun shuffle`, `defmacro once-only`, `define-condition simple-parse-error`, ASDF's
# `defsystem "alexandria"`), a setf function by its whole name (`defun (setf first-elt)`);
# the kind matched in any case (`(DEFUN` in older code). A `(defvar name)` without a value
# heads nothing, as Emacs Lisp's. `.lisp` had not been read at all: Alexandria's 26 files,
# its whole documentation in their docstrings, were no document (newuser66). Its strings
# span lines, read as Scheme's are (code_literals), so a docstring's line that opens with
# `(defun` at the margin is none.
_LISP_KINDS = (
    "defun", "defmacro", "defgeneric", "defmethod", "defclass", "defstruct", "defvar",
    "defparameter", "defconstant", "deftype", "defpackage", "defsetf", "defsystem",
    "deftest", "define-condition", "define-compiler-macro", "define-modify-macro",
    "define-setf-expander", "define-symbol-macro", "define-method-combination",
    "define-constant",
)  # fmt: skip
DEFINITIONS["commonlisp"] = re.compile(
    rf"^\((?i:(?P<kind>{'|'.join(map(re.escape, _LISP_KINDS))}))[ \t]+[#']?"
    r"(?P<name>\((?i:setf)[ \t]+[^\s()]{1,100}\)|[^\s()'\"]+|\"[^\"\n]{1,100}\")"
    r"(?![^\s()'\"]|[ \t]*\))"
)
# Clojure: a form at the margin that defines something, headed by its kind and name
# (`defn chan`, `defn- nop`, `defmacro go`, `defprotocol ReadPort`), the metadata before
# the name left out (`(def ^:private fhnop` as `def fhnop`); the `ns` form is the code
# before them, headed by the namespace (`_clojure_ns`). `.clj` and `.cljs` had not been
# read at all: core.async 1.5.648's 29 files, its whole documentation in their docstrings,
# were no document (newuser70). Its strings span lines and `\"` is a character, no string
# (code_literals). A Leiningen `project.clj`'s `defproject` is headed by the project's
# name (it had been `(untitled)`, review71).
_CLOJURE_KINDS = (
    "defn", "defn-", "defmacro", "def", "defonce", "defprotocol", "deftype",
    "defrecord", "defmulti", "defmethod", "definterface", "defstruct", "deftest",
    "defproject",
)  # fmt: skip
_CLOJURE_META = r"\^(?:\{[^{}\n]{0,200}\}|[^\s(){}\[\]]{1,100})"  # `^:private`, `^{…}`
_CLOJURE_NAME = r"[^\s()\[\]{}'\"^;]{1,200}"
DEFINITIONS["clojure"] = re.compile(
    rf"^\((?P<kind>{'|'.join(map(re.escape, sorted(_CLOJURE_KINDS, key=len, reverse=True)))})"
    rf"(?:[ \t]+{_CLOJURE_META})*[ \t]+(?P<name>{_CLOJURE_NAME})"
)
# OCaml: a definition at the margin (`let`, `val`, `type`, `module`, `exception`,
# `external`, `class`), headed by its kind and name (`val flag`, `type 'a t` as `type t`,
# `val ( & )`), and an odoc section heading in a doc comment, `(** {1:optargs Optional
# arguments}`, headed by its title. A module's own definitions, one indent in (a `sig` or
# `struct`), are its members (MEMBERS). `.ml` and `.mli` had not been read at all:
# cmdliner 1.1.1's interface, its whole manual in `(** … *)` comments, was no document
# (newuser63).
_OCAML_KINDS = (
    r"(?P<kind>let(?:[ \t]+rec)?|val|external|type(?:[ \t]+nonrec)?|exception"
    r"|module(?:[ \t]+type)?|class(?:[ \t]+type)?)[ \t]+"
    r"(?:'\w+[ \t]+|\([^()\n]{0,80}\)[ \t]+)?"  # a type's parameters: `'a`, `('a, 'b)`
    r"(?P<name>[A-Za-z_][\w']*|\([ \t]*[^\s\w()][^()\n]{0,20}\)|\(\))"
)
_ODOC_HEADING = r"\(\*\*[ \t]*\{[0-9](?::[\w.-]{1,80})?[ \t]+(?P<title>[^{}\n]{1,200})"
DEFINITIONS["ocaml"] = re.compile(rf"^(?:{_OCAML_KINDS}|{_ODOC_HEADING})")
# Haskell: at the margin, a type signature (`splitOn :: Eq a => [a] -> [a] -> [[a]]`,
# headed by the name, its equations after it), a `data`, `newtype`, `type`, `class` or
# `instance` declaration and the `module` line, with the `-- |` comment above. Haddock's
# hyperlinked source pages (`html/src/Data.List.Split.Internals.html`, a module's source
# as one `<pre>`) had been one `(untitled)` run each (split 0.2.3.5, newuser63); they are
# read as the module (formats.html).
# A signature may name several (`(==), (/=) :: a -> a -> Bool`), headed by them all.
_HASKELL_NAME = r"(?:[a-z_][\w']*|\([^()\s\w]{1,10}\))"
_HASKELL_SIGNATURE = (
    rf"(?P<signature>{_HASKELL_NAME}(?:[ \t]*,[ \t]*{_HASKELL_NAME}){{0,20}})[ \t]*::"
)
DEFINITIONS["haskell"] = re.compile(
    r"^(?:(?P<kind>module|data|newtype|type[ \t]+family|type|class|instance)[ \t]+"
    r"(?:[^\n=]{0,200}?=>[ \t]*)?(?P<name>[\w.']+)"
    rf"|{_HASKELL_SIGNATURE})"
)
# Erlang: at the margin, a function's clause (`test(Tests, Options) ->`, headed by its
# name; its other clauses, and the `-spec` just above it, headed so too, join it:
# RUNS_JOINED), the `-module` line and a `-record` (`record state`), with the `%% @doc`
# comment above. `.erl` had not been read at all: OTP's EUnit, its manual in its edoc
# comments, was no document (newuser65). Not a `-type`, `-opaque` or `-callback`: written
# one a line in a run, each had been a chunk of a line or two (553 of 922 `-type`s in 265
# files of stdlib, kernel, edoc and inets), and a behaviour's callbacks (eunit_listener's
# five) are read together in the section above them.
_ERLANG_ATOM = r"(?:[a-z][\w@]*|'[^'\n]{1,100}')"
DEFINITIONS["erlang"] = re.compile(
    r"^(?:-(?P<kind>module|record)[ \t]*\(?[ \t]*"
    rf"(?P<name>{_ERLANG_ATOM})"
    rf"|(?:-spec[ \t]+)?(?P<signature>{_ERLANG_ATOM})[ \t]*\()"
)
# R: a function assigned at the margin (`rescale01 <- function(x) {`, `` `%+%` = function``),
# headed `function rescale01` as Lua's `path.mkdir = function(d)` is, the roxygen `#'`
# comment above it kept with it. `.R` had not been read at all (dplyr's vignettes' code,
# newuser65).
DEFINITIONS["r"] = re.compile(
    r"^(?P<assigned>[\w.]+|`[^`\n]{1,100}`)[ \t]*(?:<<?-|=)[ \t]*function\b"
)
# Nim: a routine at the margin (`proc getOrDefault*[A, B](t: Table[A, B], key: A): B =`,
# `iterator keysWithPrefix*`, `func `$`*`), headed by kind and name without the export
# mark; its `##` documentation is inside it, below its signature. A `type` section's
# types, one indent in, are its members (MEMBERS), each headed as it is declared
# (`OrderedTable*[A, B] = object`). `.nim` had not been read at all (Nim 1.6's
# collections modules, newuser71). A `when` at the margin, and its `elif`/`else`, is a
# section headed by its line, the routines one indent in its members (osproc.nim's
# Windows and POSIX halves: 1,783 routines of Debian's nim 1.6.10 under one had been
# cited as the margin definition above the `when`, review72).
_NIM_NAME = r"(?:`[^`\n]{1,100}`|\w+)"
_NIM_ROUTINES = r"proc|func|iterator|template|macro|method|converter"
DEFINITIONS["nim"] = re.compile(
    rf"^(?P<kind>{_NIM_ROUTINES}|type|when|elif|else)\b"
    rf"(?:(?<=when|elif|else)[^\n]{{0,200}}|[ \t]+(?P<name>{_NIM_NAME}))?"
)
# Vim script: a function at the margin (`function! airline#extensions#tabline#init(ext)`,
# `fu s:prototype.build() dict`, Vim9's `export def Name()`), headed `function NAME` (any
# of Vim's abbreviations of the keyword, and its `!`, as `function`), the `"` comment
# lines above it kept with it (LINE_COMMENTS). `.vim` had not been read at all:
# vim-airline 0.11's 75 files, its extensions' code, were no document (newuser73).
# A user command defined at the margin (`command! -bar -nargs=* ALENext`, any abbreviation
# of `command` down to `com`, its `-attributes` before the name, which starts with a capital)
# heads what follows it as a function does, headed `command ALENext`: ALE's 39 commands and
# the comments above them had been read into the `let` lines before them (readers75).
DEFINITIONS["vim"] = re.compile(
    r"^(?:(?:export[ \t]+)?(?:fu(?:n(?:c(?:t(?:i(?:o(?:n)?)?)?)?)?)?|def)!?[ \t]+"
    r"(?P<assigned>[\w:#.<>]{1,200})(?=[ \t]*\()"
    r"|com(?:m(?:a(?:n(?:d)?)?)?)?!?(?:[ \t]+-[^ \t\n]{1,200}){0,20}[ \t]+"
    r"(?P<command>[A-Z]\w{0,200}))"
)
# D: at the margin, a type (`struct BinaryHeap(Store, alias less = "a < b")`, `final class
# RedBlackTree(T, …)`, `interface Digest`, `template hmac(H)`, `mixin template …`), not a
# manifest constant (`enum blockSize = 512;`), headed by kind and name; and a function,
# told by its name right before a `(` after the words of its return type and attributes
# (`auto heapify(alias less, Store)(Store s, …)`, `ubyte[4] crc32Of(T...)(T data)`,
# `BinaryHeap!(Store, less) heapify(`), headed `heapify()` as Java's are; a statement
# (`static assert(…)`, `scope(exit) f();`) is none. A type's members are its functions
# and types one indent in, a constructor `this(…)` too. Its ddoc comment above each is
# kept with it (`/** … */`, `///`). `.d` had not been read at all: Phobos's containers
# and digests, documented in their ddoc, were no document (newuser73).
_D_NOT = (
    r"(?!(?:return|else|assert|static[ \t]+(?:if|assert|foreach)|scope|version|debug|if"
    r"|foreach|foreach_reverse|while|for|switch|case|mixin|alias|import|module|unittest|new"
    r"|throw|in|out|do|body|cast|typeof|is|function|delegate)\b)"
)
_D_WORD = r"(?:[@\w.!]+|[\w.]+!?\([^()\n]{0,200}\))(?:\[[^\]\n]{0,40}\])*\*?"
_D_KINDS = r"struct|class|interface|union|enum|template|mixin[ \t]+template"
_D_PREFIX = (
    r"(?:(?:public|private|package|protected|export|static|final|abstract|shared|immutable"
    r"|synchronized|deprecated|extern\([^()\n]{0,40}\)|@\w+)[ \t]+)*"
)
_D_TYPE = (
    rf"{_D_PREFIX}(?P<kind>{_D_KINDS})[ \t]+(?P<name>[A-Za-z_]\w*)"
    r"(?=[ \t]*(?:[({:]|$|if\b))"
)
# An attribute or type constructor that takes parentheses names no function: `@safe pure
# package(std):` (an attribute label), `extern immutable(char)* sqlite3_version;` had been
# headed `package()`, `immutable()` (review74: 360 headings over Phobos and druntime).
_D_NOT_NAME = r"(?!(?:package|extern|align|immutable|const|inout|shared|deprecated|pragma)\()"
_D_FUNCTION = (
    rf"{_D_NOT}(?:{_D_WORD}[ \t]+){{1,8}}{_D_NOT}{_D_NOT_NAME}(?P<function>[A-Za-z_]\w*)\("
)
DEFINITIONS["d"] = re.compile(rf"^(?:{_D_TYPE}|{_D_FUNCTION})")
# DTrace (a `.d` script too, told from D by `_is_dtrace`): a probe clause at the margin,
# its description `provider:module:function:name` (`erlang*:::port-command`,
# `syscall::read:entry`), or `BEGIN`, `END`, `ERROR`, `tick-1sec`, `profile-997`, before
# its predicate `/…/`, its `{` or a `,` listing another; headed by that description.
# Erlang/OTP's DTrace examples had each been one section under the file's name (readers75).
_DTRACE_FIELD = r"[\w*?$\[\].-]{0,100}"
_DTRACE_PROBE = rf"[A-Za-z_*?$]{_DTRACE_FIELD}(?::{_DTRACE_FIELD}){{3}}"
DEFINITIONS["dtrace"] = re.compile(
    rf"^(?P<probe>{_DTRACE_PROBE}|BEGIN|END|ERROR|(?:tick|profile)-\w{{1,20}})"
    r"(?=[ \t]*(?:[,/{]|$))"
)
_DTRACE_MARK = re.compile(
    rf"#!{_DTRACE_FIELD}dtrace\b|#pragma[ \t]+D\b|{_DTRACE_PROBE}[ \t]*(?:[,/{{]|$)"
)
# Kotlin, Swift and Scala name a function by a keyword (`fun`, `func`, `def`), so their
# types' methods are found as PHP's are; a generic's `<T : Comparable<T>>` is skipped.
_GENERIC = r"(?:<[^\n]{0,200}?>\s+)?"
DEFINITIONS["kotlin"] = re.compile(
    r"^(?:(?:public|internal|private|open|abstract|sealed|data|enum|annotation|inline|value"
    r"|final|suspend|fun(?=\s+interface))\s+)*"
    rf"(?P<kind>class|interface|object|fun)\s+{_GENERIC}(?P<name>[\w.]+)"
)
DEFINITIONS["swift"] = re.compile(
    r"^(?:@\w+\s+)*(?:(?:public|open|internal|fileprivate|private|final|indirect)\s+)*"
    r"(?P<kind>class|struct|enum|protocol|extension|actor|func)\s+(?P<name>[\w.]+)"
)
DEFINITIONS["scala"] = re.compile(
    r"^(?:(?:final|sealed|abstract|case|implicit|private|protected)\s+)*"
    r"(?P<kind>class|trait|object|enum|def)\s+(?P<name>\w+)"
)
# A type's members, one indent in, each its own section under the type's heading
# (`class TableParser > function parse`): the methods of a PHP class, the functions of a
# Kotlin, Swift or Scala type.
MEMBERS = {
    "php": re.compile(
        r"^(?P<indent>[ \t]+)(?:(?:public|protected|private|static|abstract|final)\s+)*"
        r"(?P<kind>function)\s+(?:&\s*)?(?P<name>\w+)"
    ),
    "kotlin": re.compile(
        r"^(?P<indent>[ \t]+)(?:(?:public|internal|private|protected|open|override|abstract"
        r"|final|suspend|inline|operator|infix|tailrec|external)\s+)*"
        rf"(?P<kind>fun)\s+{_GENERIC}(?P<name>[\w.]+)"
    ),
    "swift": re.compile(
        r"^(?P<indent>[ \t]+)(?:@\w+\s+)*(?:(?:public|open|internal|fileprivate|private|final"
        r"|static|class|override|mutating|nonmutating|convenience|required)\s+)*"
        r"(?P<kind>func)\s+(?P<name>\w+)"
    ),
    "scala": re.compile(
        r"^(?P<indent>[ \t]+)(?:(?:override|final|private|protected|implicit|inline)\s+)*"
        r"(?P<kind>def)\s+(?P<name>\w+)"
    ),
    # an odoc heading at any indent up to the members' (MARGIN_HEADINGS): `heading_indent`
    "scheme": re.compile(
        r"^(?P<indent>[ \t]+)\((?P<kind>define[\w*!?<>/:.-]{0,60})[ \t]+\(*(?P<name>[^\s()'\"]+)"
    ),
    # a `type` section's types: `Deque*[T] = object`, `SortOrder = enum`; a `when`'s
    # routines
    "nim": re.compile(
        rf"^(?P<indent>[ \t]+)(?:(?P<kind>{_NIM_ROUTINES})[ \t]+(?P<name>{_NIM_NAME})"
        r"|\w+\*?(?:\[[^\]\n]{0,200}\])?[ \t]*="
        r"(?:[ \t]*(?:ref|ptr|object|enum|distinct|tuple|concept|proc)\b)?)"
    ),
    "d": re.compile(
        rf"^(?P<indent>[ \t]+)(?:{_D_TYPE}|{_D_FUNCTION}"
        r"|(?:(?:public|private|package|protected|shared)[ \t]+)*(?P<ctor>~?this)\()"
    ),
    # a class's methods, each with its `-- |` comment (base's `class Foldable`: 17)
    "haskell": re.compile(rf"^(?P<indent>[ \t]+){_HASKELL_SIGNATURE}"),
    "ocaml": re.compile(
        rf"^(?:(?P<indent>[ \t]+)(?:{_OCAML_KINDS})|(?P<heading_indent>[ \t]*){_ODOC_HEADING})"
    ),
    "tcl": re.compile(
        r"^(?P<indent>[ \t]+)(?:(?P<kind>proc|method|typemethod)[ \t]+(?P<name>[\w:.-]+)"
        r"|(?:constructor|destructor|typeconstructor)\b)"
    ),
}
# Not Tcl's `proc`: a proc that defines procs one indent in (tcllib's `logger::init`
# defines each service's `setlevel`, `enable`, `disable`, 25 of them in 580 lines) is read
# as a type, its procs its members; one that defines none stays one section.
FUNCTION_KINDS = frozenset(("function", "fun", "func", "def"))
# OCaml's kinds that hold no members: a `let`'s body has its own `let … in` lines.
LEAF_KINDS = {"ocaml": frozenset(("let", "val", "external", "type", "exception"))}
# Languages where only these kinds hold members: an R6RS or R7RS library is one form, its
# definitions indented inside it (`(library (srfi :37 args-fold) … (define args-fold`),
# read as one section headed by the library (scheme-chez-srfi's 218 `.sls`, review66); a
# procedure's inner `define`s are its own.
MEMBER_HOLDERS = {
    "scheme": frozenset(("library", "define-library")),
    # Haskell: a class's methods (a function's `where` signatures are its own): base's
    # `class Foldable` documents 17, each had been cited as the class (review66).
    "haskell": frozenset(("class",)),
    # Nim: a `type` section's types; a routine's body has its own `x = y` lines
    "nim": frozenset(("type", "when", "elif", "else", "else:")),  # heading `else:`
    # D: its types (a function's nested functions and types stay in it)
    "d": frozenset(("struct", "class", "interface", "union", "template", "mixin")),
}
# Languages whose types' members are those at the least indent in the type: D's first
# function in a class may be a test helper inside `version (StdUnittest) {`, one indent
# deeper than the methods (Phobos's RedBlackTree: its 40 methods had been read into it).
SHALLOWEST = frozenset(("d",))
# Languages whose type's body closes with a `}` at the margin: its members are looked for
# only inside it, and what follows it up to the next definition (D's documented `unittest`
# after a struct, its example) is the type's again, not its last member's (Phobos's
# sha.d: a unittest's local `doSomething` had been cited as a member of `struct SHA`).
CLOSED_AT_MARGIN = frozenset(("d",))
# Languages whose comment block above a definition is often set off by a blank line: each
# of tcllib's procs has a `# ::csv::join --` block, Arguments and Results, then a blank
# line, and that block had gone to the section above (the proc before it).
COMMENT_GAP = frozenset(("tcl", "scheme", "erlang"))  # no members of their own
# Scheme too: htmlprag's `;;; @defproc html->sxml-0nf in` blocks, each a blank line above
# the procedure it documents, had gone to the section above (guile-lib 0.2.7, newuser62);
# but not above the first definition, the module form, where that block is the file's own
# Commentary, headed by its summary line.
HEADER_ABOVE_FIRST = frozenset(("scheme",))
# Languages where a definition headed as the section just above it (Lisp's run of
# `(define-key evil-normal-state-map …)` lines, one a line) continues that section: evil
# 1.14.2's `evil-maps.el` had been 384 chunks, 363 of them one `define-key` line (review63).
# Erlang too: a function's clauses, one after another at the margin, are one function.
RUNS_JOINED = frozenset(
    ("elisp", "scheme", "erlang", "commonlisp", "clojure", "dtrace")
)  # methods; DTrace's clauses of one probe, `message-send` under two predicates
# Languages whose comments open otherwise: Lisp's `;` (a defun's `;;;###autoload` cookie
# and the `;;` lines above it belong to it). Not among COMMENT_OPENERS: a JavaScript line
# may open with a defensive `;(function () {…})()`.
LINE_COMMENTS = {
    "elisp": (";",),
    "scheme": (";",),
    "commonlisp": (";",),
    "clojure": (";",),
    "erlang": ("%",),
    "vim": ('"',),
}
# Languages whose comments at the margin may head the definitions below them: Clojure's
# `;;;; CHANNELS` (core.async's walkthrough.clj had been one `(untitled)` section) and its
# banners (`formats.lisp_banners`).
COMMENT_HEADINGS = frozenset(("clojure",))
# Languages whose doc comment may follow what it documents as well as precede it (OCaml's
# `val flag : info -> bool t` then `(** [flag i] is … *)`): `_ocaml_doc_above`.
DOC_EITHER_SIDE = frozenset(("ocaml",))
# Languages whose section headings inside a module's `sig … end` (or `struct … end`) may
# stand at the margin though its members are indented: cmdliner's `module Arg : sig`
# writes its `(** {1:optargs Optional arguments}` at the margin, and each had been read as
# a section at the top, `module Arg` gone from every one of its 60 values' headings
# (`Optional arguments > val flag`) (review66). Such a heading is a member of the module
# (`_module_bodies`), as one at the members' indent is.
MARGIN_HEADINGS = frozenset(("ocaml",))
_OPENS_BODY = re.compile(r"(?:^|[ \t=:])(?:sig|struct|object)[ \t]*$")
_CLOSES_BODY = re.compile(r"^end\b")
# How comments are written where a doc comment may be a block (`_with_block_comments`): its
# line comments' openers, and a block's. Haskell's Haddock comment is `-- |` lines or a
# `{-| … -}` block (base's Debug.Trace documents every function so), and a pragma
# `{-# NOINLINE trace #-}` is a block too: read only as lines, the block above each
# signature had gone to the section before it, one function's documentation cited as its
# neighbour's (review66). C's are `formats.c_family`'s.
C_COMMENTS = (("//", "/*", "*"), "/*", "*/")
BLOCK_COMMENTS = {
    "haskell": (("--", "#"), "{-", "-}"),
    "d": (("//",), "/*", "*/"),
    "dtrace": (("//",), "/*", "*/"),
}

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def parse(name: str, data: bytes, path: str | None = None) -> Document:
    """`data`, the file `name` (its path in its folder: `path`, the name when not given)."""
    text, notes = decode_text(data)
    suffix = suffix_for(name, data)  # a script with none: its interpreter's (ingest.shebang)
    template = suffix in TEMPLATE_SUFFIXES
    if template:  # `values.yaml.j2` is read as the YAML it renders to
        suffix = PurePath(PurePath(name).stem).suffix.lower() or suffix
    language = LANGUAGES.get(suffix, suffix.lstrip("."))
    if language == "vim" and notes:  # not UTF-8: the encoding it declares, if it does
        text, notes = _vim_declared_encoding(data, text, notes)
    writer = MarkdownWriter()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    tree = _python_tree(text) if language == "python" else None
    if language == "d" and _is_dtrace(lines):
        language = "dtrace"  # a DTrace script, named `.d` too: its probe clauses
    if tree is not None:
        _write_python(tree.body, lines, writer, 2, range(1, len(lines) + 1))
    elif language in ("ruby", "crystal"):
        # at every depth: a gem's file is one `module Rack`
        write_ruby(lines, writer, language, _file_title(name, language))
    elif language == "rust":
        notes = [*notes, *write_rust(lines, writer, path or name)]
    elif language == "yaml":
        # keys and named items (formats.yaml_outline); a template's read without its tags
        write_yaml(lines, writer, _tags_blanked(lines) if template else None)
    elif language == "d" and _make_dependencies(lines):
        raise SkipFile(not_a_document("make dependency file"))
    elif language in DEFINITIONS:
        _write_by_pattern(
            lines, DEFINITIONS[language], writer, language, _file_title(name, language, lines)
        )
    elif language in BRACED:
        comments: list[int] = []  # where a comment opens at the top: a banner may be there
        definitions = outline(lines, language, comments)
        if language in C_LANGUAGES:
            definitions = with_banners(lines, definitions, comments)
        _write_outline(lines, definitions, writer, language)
    else:
        writer.code("\n".join(lines), language, first_line=1)
    return Document(
        kind="markdown",
        title=name,
        text=writer.text(),
        notes=notes,
        located="lines",
        origins=writer.origins(),
        runs_title=_file_title(name, language, lines),
    )


def _file_title(name: str, language: str, lines: Sequence[str] = ()) -> str | None:
    """What a file of a language whose files are its units is called, for the code that
    names nothing else: a Nim module by its name (`module tables`, as `import tables`
    names it), a Crystal file, a Vim script with no header comment nor `let` or a Clojure
    script with no `ns` by its own (`pthread.cr`, `csc.vim`, `ex-alts.clj`), a D file by
    the module it declares (`module core.sys.windows.ocidl`) or else its own name (a
    DTrace script's `trace.d`: review74, these had been `(untitled)`); None for other
    languages."""
    if language == "nim":
        return f"module {PurePath(name).stem}"
    if language == "d":
        declared = next(filter(None, map(_D_MODULE.match, lines)), None)
        return f"module {declared.group(1)}" if declared else PurePath(name).name
    if language in ("crystal", "vim", "clojure", "dtrace"):
        return PurePath(name).name
    return None


# A Jinja tag's opening and closing delimiters: a statement, a comment, an expression.
JINJA_TAGS = {"{%": "%}", "{#": "#}", "{{": "}}"}


def _tags_blanked(lines: list[str]) -> list[str]:
    """`lines` with each one that holds only Jinja tags (`{% if tls %}`, `{# … #}`, over
    lines too) blank. YAML reads `{` as a flow mapping: a template's `{# comment #}`, never
    closed as YAML, had left the whole file with no heading (attack53b). Linear: each line
    is scanned once."""
    blanked: list[str] = []
    closing = ""  # the delimiter closing a tag left open on a line above
    for line in lines:
        text = line.strip()
        if closing:
            end = text.find(closing)
            if end < 0:
                blanked.append("")
                continue
            text, closing = text[end + 2 :].strip(), ""
            if not text:
                blanked.append("")
                continue
        only, closing = _only_tags(text)
        blanked.append("" if only else line)
    return blanked


def _only_tags(text: str) -> tuple[bool, str]:
    """Whether `text` (stripped, not empty) is Jinja tags alone, and the delimiter that
    closes its last one when that is left open at the end of the line ("" when none)."""
    index = 0
    while index < len(text):
        closing = JINJA_TAGS.get(text[index : index + 2], "")
        if not closing:
            return False, ""
        end = text.find(closing, index + 2)
        if end < 0:
            return True, closing
        index = end + 2
        while index < len(text) and text[index].isspace():
            index += 1
    return bool(text), ""


def _python_tree(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # not Python 3 (or too deep for the parser): indexed as plain code


def _write_python(
    body: Sequence[ast.stmt], lines: list[str], writer: MarkdownWriter, level: int, span: range
) -> None:
    """The lines of `span` before its first definition, then one section per class or
    function, each running to its own last line, and one section for the statements
    between it and the next definition. `span` holds 1-based line numbers."""
    definitions = [n for n in body if isinstance(n, Definition)]
    starts = [_start(n) for n in definitions] + [span.stop]
    preamble = [n for n in body if n.lineno < starts[0] and not isinstance(n, Definition)]
    _write_statements(preamble, lines, writer, level, range(span.start, starts[0]), False)
    groups = _statements_after(body)
    for first_index, last_index in _runs_of_one_name(definitions, lines):
        node, last = definitions[first_index], definitions[last_index]
        first, after = starts[first_index], starts[last_index + 1]
        between = groups[last_index]
        end = _with_comments_above(lines, _start(between[0]), last) if between else after
        kind = "class" if isinstance(node, ast.ClassDef) else "def"
        writer.heading(level, f"{kind} {node.name}")
        methods = [n for n in getattr(node, "body", []) if isinstance(n, Definition)]
        if isinstance(node, ast.ClassDef) and methods and level < 6:
            writer.code(_text(lines, range(first, _start(methods[0]))), "python", first)
            _write_python(methods, lines, writer, level + 1, range(_start(methods[0]), end))
        else:
            writer.code(_text(lines, range(first, end)), "python", first)
        if between:
            _write_statements(between, lines, writer, level, range(end, after), True)


def _write_statements(
    statements: Sequence[ast.stmt],
    lines: list[str],
    writer: MarkdownWriter,
    level: int,
    span: range,
    headed: bool,
) -> None:
    """The lines of `span`, which hold `statements` (no definition among them): up to the
    first long assignment one section, untitled before a module's first definition
    (`headed` False), else headed by the names its own statements assign; then each long
    assignment's own (`_write_assignments`)."""
    long = _long_assignments(statements, level)
    own = statements.index(long[0]) if long else len(statements)
    lead_end = _documented_start(lines, statements, own) if long else span.stop
    if headed and own == 0:
        lead_end = span.start  # the first long assignment's section starts the span
    elif headed:
        # Its own statements' names, those before the first long one: `x = 1` before
        # `DOCUMENTATION` had been headed `x, DOCUMENTATION, y`.
        writer.heading(level, _named(statements[:own]))
    writer.code(_text(lines, range(span.start, lead_end)), "python", span.start)
    if long:
        _write_assignments(statements, long, lines, writer, level, range(lead_end, span.stop))


# A module-level assignment this many lines long or longer is a section of its own, headed
# by the names it assigns: an Ansible module's documentation is its `DOCUMENTATION`,
# `EXAMPLES` and `RETURN` strings before its first function (YAML in a string), 38 % of the
# text of community.mongodb's plugins, and it had been cited as `(untitled)` (newuser53).
LONG_ASSIGNMENT_LINES = 15


def _long_assignments(statements: Sequence[ast.stmt], level: int) -> list[ast.stmt]:
    """The module-level assignments among `statements` long enough to head themselves."""
    if level != 2:
        return []  # in a class, its attributes stay with it
    return [
        node
        for node in statements
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and (node.end_lineno or node.lineno) - node.lineno + 1 >= LONG_ASSIGNMENT_LINES
    ]


def _write_assignments(
    statements: Sequence[ast.stmt],
    long: list[ast.stmt],
    lines: list[str],
    writer: MarkdownWriter,
    level: int,
    span: range,
) -> None:
    """`span` (from the first long assignment, its comments above included) as one section
    per long assignment, headed by its names, each followed by a section of the statements
    after it, up to the next long one, headed by theirs (`_named`). Linear: each statement
    is looked at once."""
    index_of = {id(node): index for index, node in enumerate(statements)}
    indexes = [index_of[id(node)] for node in long] + [len(statements)]
    starts = [span.start] + [_documented_start(lines, statements, i) for i in indexes[1:-1]]
    for number, (node, first) in enumerate(zip(long, starts, strict=True)):
        after = starts[number + 1] if number + 1 < len(starts) else span.stop
        rest = statements[indexes[number] + 1 : indexes[number + 1]]
        end = _documented_start(lines, statements, indexes[number] + 1) if rest else after
        writer.heading(level, _named([node]))
        writer.code(_text(lines, range(first, end)), "python", first)
        if rest:
            writer.heading(level, _named(rest))
            writer.code(_text(lines, range(end, after)), "python", end)


def _documented_start(lines: list[str], statements: Sequence[ast.stmt], index: int) -> int:
    """Where `statements[index]` starts with the comments right above it (1-based)."""
    above = statements[index - 1] if index else None
    return _with_comments_above(lines, _start(statements[index]), above)


def _runs_of_one_name(definitions: list[Definition], lines: list[str]) -> list[tuple[int, int]]:
    """The definitions as runs (first and last index) of functions of one name with
    nothing between them: an `@overload` stack and its implementation, a property's
    getter and setter. Each is one unit under one heading; a section each made every
    overload of a stub its own chunk of one signature, all headed alike (`def attrib`).
    "Nothing between" is read from the lines, blank or comments only: a class's methods
    come here without the statements between them (`legacy = fare` before a new `fare`)."""
    runs: list[tuple[int, int]] = []
    for index, node in enumerate(definitions):
        last = definitions[runs[-1][1]] if runs else None
        if last is not None and _same_function(last, node) and _nothing_between(lines, last, node):
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def _nothing_between(lines: list[str], before: Definition, node: Definition) -> bool:
    between = lines[(before.end_lineno or before.lineno) : _start(node) - 1]  # 1-based lines
    return all(not line.strip() or line.lstrip().startswith("#") for line in between)


def _same_function(before: Definition, node: Definition) -> bool:
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    return (
        isinstance(before, functions) and isinstance(node, functions) and (before.name == node.name)
    )


def _statements_after(body: Sequence[ast.stmt]) -> list[list[ast.stmt]]:
    """For each definition of `body`, the other statements between it and the next one:
    one pass, so a module of thousands of definitions costs no more than its length."""
    groups: list[list[ast.stmt]] = []
    for node in body:
        if isinstance(node, Definition):
            groups.append([])
        elif groups:
            groups[-1].append(node)
    return groups


def _start(node: ast.stmt) -> int:
    """First line of a statement, its decorators included (1-based)."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _with_comments_above(lines: list[str], start: int, above: ast.stmt | None) -> int:
    """`start`, moved up over the comment lines right above it (they document it), never
    into the statement `above` (None: only over comments, which no statement holds)."""
    floor = 1 if above is None else (above.end_lineno or above.lineno) + 1
    while start > floor and lines[start - 2].lstrip().startswith("#"):
        start -= 1
    return start


def _named(statements: Sequence[ast.stmt]) -> str:
    """A heading for module (or class) code between two definitions: the names it
    assigns (`DEFAULT_LIMITS, DEFAULT_TIMEOUT_CONFIG`), else its first statement's kind.
    Before, such code was filed under the definition above it: the defaults of httpx's
    `_config.py` sat under `class Proxy > def __repr__`."""
    names: list[str] = []
    for node in statements:
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        for target in targets:
            if isinstance(target, ast.Name) and target.id not in names:
                names.append(target.id)
        # One name past those shown says there are more; collecting them all cost a scan of
        # the list per name: 35 s for a module of 32,000 constants after a definition.
        if len(names) > NAMES_IN_HEADING:
            break
    if names:
        return names_heading(names)
    return f"module code ({type(statements[0]).__name__.lower()})"


def _text(lines: list[str], numbers: range) -> str:
    return "\n".join(lines[numbers.start - 1 : numbers.stop - 1])


def _holds_members(language: str, kind: str) -> bool:
    """Can a definition of this kind hold members of its own (a class its methods)? Where
    a language lists the kinds that do (MEMBER_HOLDERS), only those; elsewhere every kind
    but a function's (FUNCTION_KINDS) and the language's LEAF_KINDS."""
    if language in MEMBER_HOLDERS:
        return kind in MEMBER_HOLDERS[language]
    return kind not in FUNCTION_KINDS and kind not in LEAF_KINDS.get(language, frozenset())


def _write_by_pattern(
    lines: list[str],
    pattern: re.Pattern[str],
    writer: MarkdownWriter,
    language: str,
    file_title: str | None = None,
) -> None:
    """The file split before every line `pattern` matches (and the comments above it);
    a type's section split again before each of its members (MEMBERS)."""
    starts: list[tuple[int, str]] = []  # (0-based first line of the section, its heading)
    defined_at: list[int] = []  # the line of each section's definition itself
    in_code = lines_in_code(lines, language) if language in LEXED else None
    margin = _wrapped_margin(lines, pattern, in_code) if language == "javascript" else ""
    in_body = _module_bodies(lines, pattern, in_code) if language in MARGIN_HEADINGS else None
    titled = _comment_headings(lines, in_code) if language in COMMENT_HEADINGS else {}
    headed: dict[int, int] = {}  # a comment heading's section (index in starts): its end
    helpers = _vim_commands_used(lines) if language == "vim" else frozenset()
    in_function = _vim_function_bodies(lines) if language == "vim" else None
    past = 0  # the line after the last comment heading: the next section starts below it
    for number, line in enumerate(lines):
        if number in titled:
            headed[len(starts)] = titled[number][1]
            starts.append((number, titled[number][0]))
            defined_at.append(number)
            past = titled[number][1]
            continue
        match = pattern.match(line[len(margin) :] if line.startswith(margin) else line)
        if match is None or (in_code is not None and not in_code[number]):
            continue  # a raw string's or a comment's line is no definition (code_literals)
        if in_body is not None and in_body[number] and match.group("title"):
            continue  # a heading inside a module's `sig … end`: one of its members
        heading: str | None = _heading(match)
        if language == "go" and heading and heading.endswith("("):
            heading = _go_group_heading(heading[:-1].strip(), lines, number)
        if heading is None:
            continue  # a group of `_` checks stays with the type above, as one `var _` does
        if language in RUNS_JOINED and starts and starts[-1][1] == heading:
            continue
        if match.groupdict().get("command") in helpers:
            continue  # a syntax file's helper, `command -nargs=+ Hi hi def <args>`
        if match.groupdict().get("command") and in_function and in_function[number]:
            continue  # a command a function defines when it runs: part of that function
        if language == "vim" and _next_command(lines, starts, defined_at, number, heading):
            starts[-1] = (starts[-1][0], _names_heading(starts[-1][1], heading, "command "))
            defined_at[-1] = number  # the run's last line: the next looks back only to it
            continue
        if language == "dtrace" and _next_probe(lines, defined_at, number):
            starts[-1] = (starts[-1][0], _names_heading(starts[-1][1], heading))
            defined_at[-1] = number  # the list's last line: the next looks back to it
            continue
        floor = max(starts[-1][0] + 1, past) if starts else 0
        gap = language in COMMENT_GAP
        if language in HEADER_ABOVE_FIRST and not starts:
            gap = False  # the Commentary a blank line above the module form is the header's
        starts.append((_definition_start(language, lines, number, floor, in_code, gap), heading))
        defined_at.append(number)
    bounds = [first for first, _ in starts] + [len(lines)]
    preamble = lines[: bounds[0]]
    named_by = _PREAMBLE_HEADINGS.get(language)
    clause = named_by(preamble, in_code) if named_by is not None else None
    if language == "commonlisp" and starts and _in_package_alone(preamble):
        starts[0], bounds[0], preamble, clause = (0, starts[0][1]), 0, [], None
    if clause is None and file_title is not None and any(line.strip() for line in preamble):
        clause = file_title  # a Nim module's licence and imports, no summary: `module os`
    if clause is not None:
        writer.heading(2, clause)
    if language == "nim":
        _write_nim_documentation(preamble, writer)
    else:
        writer.code("\n".join(preamble), language, first_line=1)
    members = MEMBERS.get(language)
    under = False  # below a comment heading: a definition is a level down (`ops > defn put!`)
    for index, ((first, heading), after, at) in enumerate(
        zip(starts, bounds[1:], defined_at, strict=False)
    ):
        if index in headed:  # its text is the heading, over the code below it if any
            first = min(headed[index], after)
            empty = not any(line.strip() for line in lines[first:after])
            if empty and (index + 1 in headed or index + 1 == len(starts)):
                continue  # a heading right over the next heads nothing: no section
            writer.heading(2, heading)
            under = True
            if not empty:
                writer.code("\n".join(lines[first:after]), language, first_line=first + 1)
            continue
        writer.heading(3 if under else 2, heading)
        kind = heading.split(" ", 1)[0]
        is_type = _holds_members(language, kind)
        span = range(first, after)
        if is_type and language in CLOSED_AT_MARGIN:
            span = range(first, _closing_line(lines, at, after, in_code))
        inner = _members(lines, members, span, in_code, language) if members and is_type else []
        if not inner:
            end = _shell_function_end(lines, at, after) if language == "sh" else after
            writer.code("\n".join(lines[first:end]), language, first_line=first + 1)
            if end < after:
                writer.heading(2, SCRIPT_CODE)
                writer.code("\n".join(lines[end:after]), language, first_line=end + 1)
            continue
        writer.code("\n".join(lines[first : inner[0][0]]), language, first_line=first + 1)
        for (start, name), end in zip(inner, [s for s, _ in inner[1:]] + [span.stop], strict=False):
            writer.heading(3, name)
            writer.code("\n".join(lines[start:end]), language, first_line=start + 1)
        if span.stop < after:  # what follows the type's body (D's `unittest`): the type's
            writer.heading(2, heading)
            writer.code("\n".join(lines[span.stop : after]), language, first_line=span.stop + 1)


def _comment_headings(lines: list[str], in_code: list[bool] | None) -> dict[int, tuple[str, int]]:
    """A Clojure file's comment headings (`formats.lisp_banners`) below its `ns` form: one
    above it (`;;; copied from clojure.instant ;;;`) is the licence's, the code before
    the first definition headed by the namespace."""
    ns_at = next(
        (
            number
            for number, line in enumerate(lines)
            if line.startswith(("(ns", "(in-ns")) and (in_code is None or in_code[number])
        ),
        -1,
    )
    return {at: title for at, title in lisp_banners(lines, in_code).items() if at > ns_at}


# How a wrapped script's first line opens: a UMD bundle (Rollup's `(function (global,
# factory) {`, webpack's `(function webpackUniversalModuleDefinition(`) or an IIFE.
_WRAPPER_OPENINGS = ("(function", "!function", ";(function", "(() =>", "(()=>")


def _wrapped_margin(lines: list[str], pattern: re.Pattern[str], in_code: list[bool] | None) -> str:
    """The indentation a wrapped script's definitions stand at: a JavaScript file whose
    first line opens a wrapper (_WRAPPER_OPENINGS) and that defines nothing at the margin
    is the wrapper's body (every chunk of mobx's `dist/mobx.umd.development.js` had been
    `(untitled)`), so its least indented definitions are its top level. "" otherwise."""
    first = next((n for n, line in enumerate(lines) if _opens_code(line, n, in_code)), None)
    if first is None or not lines[first].lstrip().startswith(_WRAPPER_OPENINGS):
        return ""
    least: str | None = None
    for number, line in enumerate(lines):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        if not body or (least is not None and len(indent) >= len(least)):
            continue
        if (in_code is None or in_code[number]) and pattern.match(body):
            if not indent:
                return ""  # a definition at the margin: the file is not all wrapped
            least = indent
    return least or ""


def _opens_code(line: str, number: int, in_code: list[bool] | None) -> bool:
    """Whether line `number` starts with code: not blank, not inside a comment or string,
    not a comment's own line (a licence banner above a bundle's wrapper)."""
    stripped = line.strip()
    if not stripped or stripped.startswith(("//", "/*", "*")):
        return False
    return in_code is None or in_code[number]


# The heading of a shell script's commands after a function: the script's own work (its
# `case "$1"` dispatch, its checks), which had been filed under the function above it —
# etckeeper's main program, "Please configure a VCS", was cited as `usr/bin/etckeeper:usage`.
SCRIPT_CODE = "script code"


def _shell_function_end(lines: list[str], at: int, after: int) -> int:
    """Where the shell function defined on line `at` ends (0-based, exclusive): after its
    one line (`die() { echo "$*"; exit 1; }`) or after the first `}` at the margin that
    closes its body (`)` for a body run in a subshell, `try_trace() (` in glibc's `ldd`),
    when commands follow it before `after` (the next definition, or the end); else
    `after`, and what follows (blank lines, comments) stays with it. Each line is looked
    at once: the scan stops at the first closing line."""
    line = lines[at].rstrip()
    body = line.partition("()")[2].strip()
    closer = ")" if body.startswith("(") else "}"
    end = after
    if body[:1] in ("{", "(") and line.endswith(closer) and len(body) > 1:
        end = at + 1
    else:
        for number in range(at + 1, after):
            if lines[number].startswith(closer):
                end = number + 1
                break
    commands = any(text.strip() and not is_comment(text) for text in lines[end:after])
    return end if commands else after


def _heading(match: re.Match[str]) -> str:
    """`class TableParser`, `function parse` for a pattern naming `kind` and `name` (not
    the modifiers before them); else the matched text, whitespace folded."""
    groups = match.groupdict()
    if groups.get("signature"):  # Haskell's `splitOn :: …`, `(==), (/=) :: …`
        return ", ".join(name.strip() for name in groups["signature"].split(","))
    if groups.get("title"):  # an odoc section heading, `(** {1:optargs Optional arguments}`
        return " ".join(groups["title"].split())
    if groups.get("module"):  # Scheme's `define-module (logging logger)`
        return f"{groups['module_kind']} {groups['module']}"
    if groups.get("function"):  # D's `auto heapify(…)`, headed as Java's: `heapify()`
        return f"{groups['function']}()"
    if groups.get("ctor"):  # D's constructor
        return f"{groups['ctor']}()"
    if groups.get("probe"):  # a DTrace probe clause, `syscall::read:entry`
        return groups["probe"]
    if groups.get("command"):  # a Vim user command, `command! -bar ALENext`
        return f"command {groups['command']}"
    if groups.get("assigned"):  # Lua's `path.mkdir = function(d)`
        return f"function {groups['assigned']}"
    if groups.get("kind") and groups.get("name"):
        return f"{' '.join(groups['kind'].split())} {groups['name']}"
    return " ".join(match.group(0).split())


def _with_comments(
    lines: list[str],
    number: int,
    floor: int,
    gap: bool = False,
    openers: tuple[str, ...] = COMMENT_OPENERS,
) -> int:
    """Line `number` (0-based), moved up over the comment and annotation lines right
    above it (a doc comment, `@Test`, `@discardableResult` belong to what they precede),
    never above `floor`; with `gap`, over one blank line between them too (Tcl). A
    comment opens with one of `openers` (LINE_COMMENTS: Lisp's `;`)."""
    first = number
    if (
        gap
        and first - 1 > floor
        and not lines[first - 1].strip()
        and is_comment(lines[first - 2], openers)
    ):
        first -= 1
    while first > floor and (
        is_comment(lines[first - 1], openers) or lines[first - 1].lstrip().startswith("@")
    ):
        first -= 1
    return first


def _definition_start(
    language: str,
    lines: list[str],
    number: int,
    floor: int,
    in_code: list[bool] | None,
    gap: bool,
) -> int:
    """Where the section of the definition on line `number` (0-based) starts, its
    documentation included, never above `floor`: the comments right above it, opened as
    its language's are (`_with_comments`, LINE_COMMENTS), or in a language whose doc
    comment may stand either side of what it documents (DOC_EITHER_SIDE), the comment set
    off above it (`_ocaml_doc_above`). One rule for definitions and for a type's members."""
    if language in DOC_EITHER_SIDE:
        return _ocaml_doc_above(lines, number, floor, in_code)
    if language in BLOCK_COMMENTS:
        return _with_block_comments(lines, number, floor, BLOCK_COMMENTS[language], in_code)
    openers = LINE_COMMENTS.get(language, COMMENT_OPENERS)  # Lisp's `;` lines
    return _with_comments(lines, number, floor, gap, openers)


def _ocaml_doc_above(lines: list[str], number: int, floor: int, in_code: list[bool] | None) -> int:
    """Line `number` (0-based), moved up over the comment that ends right above it when
    a blank line (or `floor`) is above that comment: OCaml's doc comment may follow what
    it documents (`val flag : info -> bool t` then `(** [flag i] is … *)`, as every value
    of cmdliner's interface is) or precede it, and a comment glued to the definition above
    is that one's. Never above `floor`."""
    above = number - 1
    if above < floor or not lines[above].rstrip().endswith("*)"):
        return number
    opening = above
    while opening > floor and (
        (in_code is not None and not in_code[opening]) or "(*" not in lines[opening]
    ):
        opening -= 1
    if not lines[opening].lstrip().startswith("(*"):
        return number
    if opening == floor or not lines[opening - 1].strip():
        return opening
    return number


def _closing_line(lines: list[str], at: int, after: int, in_code: list[bool] | None) -> int:
    """Past the line that closes, with a `}` at the margin, the type defined on line `at`
    (0-based), or `after` when none does before it."""
    for number in range(at + 1, after):
        if lines[number].startswith("}") and (in_code is None or in_code[number]):
            return number + 1
    return after


def _shallowest(
    lines: list[str], pattern: re.Pattern[str], span: range, in_code: list[bool] | None
) -> str | None:
    """The least indentation of the members `pattern` finds in the type's section `span`."""
    indents = [
        match.group("indent")
        for number in range(span.start + 1, span.stop)
        if (match := pattern.match(lines[number])) is not None
        and (in_code is None or in_code[number])
    ]
    return min(indents, key=len) if indents else None


def _members(
    lines: list[str],
    pattern: re.Pattern[str],
    span: range,
    in_code: list[bool] | None,
    language: str,
) -> list[tuple[int, str]]:
    """The members of the type whose section is `span` (0-based lines): where each starts
    (its doc comment included) and its heading. Only those at the first one's indent: a
    closure's or an anonymous class's methods, deeper in, stay in the method they are in;
    none inside a string or comment (`in_code`, as for definitions)."""
    found: list[tuple[int, str]] = []
    gap = language in COMMENT_GAP
    indent = _shallowest(lines, pattern, span, in_code) if language in SHALLOWEST else None
    for number in range(span.start + 1, span.stop):
        match = pattern.match(lines[number])
        if match is None or (in_code is not None and not in_code[number]):
            continue
        at = match.group("indent")
        if match.groupdict().get("heading_indent") is not None:  # MARGIN_HEADINGS
            at = match.group("heading_indent")
            if indent is not None and len(at) > len(indent):
                continue  # a heading of a module nested in a member: that member's
            if at:  # not at the margin: at the members' indent, as before
                indent = indent or at
        elif indent not in (None, at):
            continue
        else:
            indent = at
        floor = found[-1][0] + 1 if found else span.start + 1
        start = _definition_start(language, lines, number, floor, in_code, gap)
        found.append((start, _heading(match)))
    return found


def _module_bodies(
    lines: list[str], pattern: re.Pattern[str], in_code: list[bool] | None
) -> list[bool]:
    """Per line: whether it is inside the body of a module (or class) defined at the
    margin, from its line that opens a `sig`, `struct` or `object` (`module Arg : sig`) to
    the `end` at the margin that closes it, or to the next definition at the margin
    (`pattern`), which the body's members are not: where its `end` is indented, or its
    members are not, what follows is read as it was. One pass."""
    inside = [False] * len(lines)
    open_body = False
    for number, line in enumerate(lines):
        if in_code is not None and not in_code[number]:
            inside[number] = open_body
            continue
        match = pattern.match(line)
        if open_body and (_CLOSES_BODY.match(line) or (match and match.group("kind"))):
            open_body = False
        inside[number] = open_body
        if not open_body and match and _OPENS_BODY.search(line.rstrip()):
            open_body = match.group("kind").split()[0] in ("module", "class")
    return inside


_GO_PACKAGE = re.compile(r"package[ \t]+([A-Za-z_]\w*)")


def _go_package(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """`package cobra`: the heading of a Go file's code before its first definition (its
    package clause, doc comment and imports), named by what it declares as code between
    definitions is (`var SupportedExts`); they were `(untitled)`. Other languages have no
    such clause in what the pattern splits (JS/TS, Ruby, shell): their preamble stays
    `(untitled)`, as Python's does. Each line looked at once, up to the clause; none in a
    block comment (`in_code`: "package docs are generated …" in a `/* … */`)."""
    for number, line in enumerate(preamble):
        clause = _GO_PACKAGE.match(line)
        if clause is not None and (in_code is None or in_code[number]):
            return f"package {clause.group(1)}"
    return None


# LDoc's `-- @module pl.path` / `-- @classmod pl.List` atop a Lua module (in a line
# comment, or a line of a `--[[-- … ]]` block): what its code before the first function
# is, as Go's package clause is. Penlight has one in 38 of its 39 modules, whose preambles
# (the module's own description: "Reads configuration files into a Lua table") were cited
# as `config.lua:(untitled)` (newuser43).
_LDOC_MODULE = re.compile(r"(?:--+[ \t]*)?@(module|classmod)[ \t]+([\w.]+)")
_LDOC_KINDS = {"module": "module", "classmod": "class"}


def _lua_module(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """`module pl.path` or `class pl.List`: the heading of a Lua file's code before its
    first function, named by the first LDoc module tag opening a line there; None without
    one (a script keeps `(untitled)`). Each line looked at once."""
    for line in preamble:
        tag = _LDOC_MODULE.match(line.lstrip())
        if tag is not None:
            return f"{_LDOC_KINDS[tag.group(1)]} {tag.group(2)}"
    return None


# `package provide csv 0.8.1`: what a Tcl file's code before its first proc is (its
# description, copyright and `package require` lines), as Go's package clause is; 53 of
# tcllib's 73 files in newuser45's folder say it there, the rest at their end. A package
# index names its package by `package ifneeded csv 0.8.1 …`.
_TCL_PACKAGE = re.compile(r"package[ \t]+(?:provide|ifneeded)[ \t]+([\w:.-]+)")
# tcllib's file header: `# json_write.tcl --`, then its summary on a comment line.
_TCL_HEADER = re.compile(r"#[ \t]*[\w.-]+\.tcl[ \t]+--[ \t]*$")
SUMMARY_LINES = 4  # comment lines after the header's first looked at for its summary


def _tcl_package(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """`package csv`: the heading of a Tcl file's code before its first definition, named
    by the first `package provide` (or a package index's `package ifneeded`) line there;
    else, tcllib's header `# json_write.tcl --` over its summary, that summary ("Commands
    for the generation of JSON …": newuser64, 12 of 23 files of six tcllib modules had
    opened `(untitled)`); None without either. Each line looked at once."""
    for line in preamble:
        provided = _TCL_PACKAGE.match(line.lstrip())
        if provided is not None:
            return f"package {provided.group(1)}"
    first = next((n for n, line in enumerate(preamble) if line.strip()), None)
    if first is None or not _TCL_HEADER.match(preamble[first].strip()):
        return None
    for line in preamble[first + 1 : first + 1 + SUMMARY_LINES]:
        summary = line.strip().lstrip("#").strip()
        if not line.strip().startswith("#"):
            return None
        if summary:
            return summary[:200]
    return None


def _elisp_summary(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """What an Emacs Lisp file's code before its first definition (its header, licence,
    `;;; Commentary:`, `require`s) is: the summary its first line gives by the package
    conventions, `;;; company-files.el --- company-mode completion backend for file
    names  -*- lexical-binding: t -*-`, without the file's name (a citation names it) and
    the `-*-` variables; None without one. Only the first non-blank line is read."""
    first = next((line.strip() for line in preamble if line.strip()), "")
    if not first.startswith(";;;"):
        return None
    summary = first.partition(" --- ")[2].partition("-*-")[0].strip()
    return summary[:200] or None


# reST's marks in a Nim module's documentation: a role (`:idx:`), a link's target
# (`` `packedsets module <packedsets.html>`_ ``), the backquotes and link underscore.
_NIM_MARKS = re.compile(r":idx:|<[^<>\n]{0,300}>`_{1,2}|`_{1,2}|`")


_VIM_MODELINES = ("vim:", "vi:", "ex:")
_VIM_TITLE_FIELDS = frozenset(("plugin", "compiler", "summary"))  # fields that title it
VIM_HEADER_LINES = 30  # of a script's top, read for its header comment
_VIM_LET = re.compile(r"let[ \t]+([\w:#.]{1,200})")
VIM_LET_NAMES = 3  # named in a heading, then `…`


# A Vim script's `scriptencoding iso-8859-2` (`scripte`), among its first lines.
_VIM_SCRIPTENCODING = re.compile(
    r"[ \t]*scripte(?:n(?:c(?:o(?:d(?:i(?:n(?:g)?)?)?)?)?)?)?[ \t]+([\w.:-]{1,40})"
)
VIM_ENCODING_LINES = 50
# What a declared encoding must read as itself to be used: ASCII (a backslash only in a
# valid escape: Python warns at any other), and the escapes some codecs act on (`\n` for
# `unicode_escape`, `~{` for `hz`). Python's registry holds codecs that are no encoding
# of text (`idna` and `undefined` refuse to decode, `punycode` raised on a byte past ASCII
# and is quadratic), and EBCDIC's cp037 reads ASCII as other letters: `scriptencoding`
# naming one had lost the whole script, or all its words (review76).
_ASCII_PROBE = bytes(range(0x20, 0x5C)) + bytes(range(0x5D, 0x7F)) + rb"\n\x41\u0041~{~}+AD-"


def _vim_declared_encoding(data: bytes, text: str, notes: list[str]) -> tuple[str, list[str]]:
    """A Vim script that is not UTF-8 read in the encoding its `scriptencoding` line
    names, as Vim reads it (`iso-8859-2`, `cp1250`, `latin2`, `iso8859-9`): its menu
    translations in Central European and Turkish encodings had been read as Windows-1252,
    the stray bytes' usual encoding, Czech `Nápověda` indexed as `Nápovìda` (12 of
    vim-runtime 9.0's `lang/menu_*.vim`, readers75). One Python does not know, or none
    declared: `text` as decoded."""
    for line in data.split(b"\n", VIM_ENCODING_LINES)[:VIM_ENCODING_LINES]:
        if (match := _VIM_SCRIPTENCODING.match(line.decode("latin-1"))) is not None:
            name = match.group(1).lower()
            try:
                codec = codecs.lookup(name).name
                if codec.startswith("utf"):  # UTF-8 it is not; UTF-16 no script is
                    return text, notes
                if _ASCII_PROBE.decode(codec) != _ASCII_PROBE.decode("ascii"):
                    return text, notes  # it does not read ASCII as ASCII
                decoded = data.decode(codec, errors="replace")
            except (LookupError, ValueError):  # unknown, no text encoding, or refusing
                return text, notes
            return without_nul(decoded, [f"read as {name}, the encoding it declares"])
    return text, notes


def _vim_commands_used(lines: list[str]) -> frozenset[str]:
    """The words that open a line of a Vim script (`Hi def link sdlString String`), and
    the commands it deletes (`delcommand Hi`): a user command the script runs itself (a
    syntax file's `Hi`, `Builtin`, `SynFold`, defined to shorten the lines below) or
    deletes at its end is its own helper, no command it offers, and heads nothing: the
    syntax file's rules had all been cited as `command Hi`. One look at each line."""
    used = set()
    for line in lines:
        if words := line.lstrip(" \t:").split(maxsplit=2):
            used.add(words[0].rstrip("!"))
            if len(words) > 1 and "delcommand".startswith(words[0]) and len(words[0]) >= 4:
                used.add(words[1])  # `delcommand Hi`: xpm2.vim runs its `Hi` by `exe`
    return frozenset(used)


_VIM_FUNCTION_ENDS = frozenset(
    ["enddef"] + ["endfunction"[:length] for length in range(4, len("endfunction") + 1)]
)


def _vim_function_bodies(lines: list[str]) -> list[bool]:
    """Which lines of a Vim script are inside a function's body (between `function!
    s:Setup()` and its `endfunction`, any abbreviation, `def` and `enddef`, nested ones
    counted): a `command!` there, its body written at the margin, is defined when the
    function runs and had headed the rest of the function as `command BerthShow`
    (review76). One look at each line's first word."""
    inside: list[bool] = []
    depth = 0
    for line in lines:
        words = line.split(maxsplit=2)
        first = words[0].rstrip("!") if words else ""
        if words and first == "export" and len(words) > 1:
            first = words[1].rstrip("!")
        if first in _VIM_FUNCTION_ENDS:
            depth = max(0, depth - 1)
            inside.append(depth > 0)
            continue
        inside.append(depth > 0)
        opens = first == "def" or (len(first) >= 2 and "function".startswith(first))
        if opens and "(" in line:
            depth += 1
    return inside


def _next_command(
    lines: list[str],
    starts: list[tuple[int, str]],
    defined_at: list[int],
    number: int,
    heading: str,
) -> bool:
    """Whether the Vim user command defined at line `number` continues the run of
    commands that the last section opens: it is headed by commands too, and no blank nor
    comment line stands between them (ALE's `command! -bar ALEToggle …` and the three
    lines after it, one a line under one comment: one section, not four of a line)."""
    if not (starts and heading.startswith("command ") and starts[-1][1].startswith("command ")):
        return False
    between = lines[defined_at[-1] + 1 : number]
    return all(line.strip() and not is_comment(line, ('"',)) for line in between)


def _names_heading(heading: str, joined: str, kind: str = "") -> str:
    """A run's heading, its first VIM_LET_NAMES names after their `kind`: `command
    ALEToggle, ALEEnable, ALEDisable, …`, a DTrace probe list's `syscall::read:entry,
    syscall::write:entry`."""
    if heading.endswith("…"):
        return heading
    names = heading.removeprefix(kind).split(", ")
    if len(names) == VIM_LET_NAMES:
        return heading + ", …"
    return heading + ", " + joined.removeprefix(kind)


def _next_probe(lines: list[str], defined_at: list[int], number: int) -> bool:
    """Whether the DTrace probe at line `number` continues a probe list, one a line: the
    line above is the last section's probe, ending with a `,`."""
    return (
        bool(defined_at) and defined_at[-1] == number - 1 and lines[number - 1].rstrip()[-1:] == ","
    )


def _is_dtrace(lines: list[str]) -> bool:
    """Is this `.d` file a DTrace script, not D? A `#!…dtrace` line, a `#pragma D option`
    or a probe description at the margin (`syscall::read:entry`, `erlang*:::port-command`
    before its predicate or `{`), none of which D writes: D has no `#` lines but its
    `#line`, and no `::`. Each line looked at once, to the first such."""
    return any(_DTRACE_MARK.match(line) for line in lines)


def _vim_not_title(lowered: str) -> bool:
    """A header comment line that is no title: a licence or copyright line, a modeline."""
    return lowered.startswith(_VIM_MODELINES) or "license" in lowered or "copyright" in lowered


def _vim_header(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """What heads a Vim script's lines before its first function: its header comment's
    `Description:` field (ALE's linters: `Lints Ruby files with RuboCop`), else its first
    line that is no licence, modeline, rule or other field (`Vim syntax file`, `xTabline -
    Reduced version for vim-airline`; a `Plugin:` or `Compiler:` field is one: `Plugin:
    fugitive, lawrencium and vcscommand`), with its `Language:` field's value where it has
    one (`Vim syntax file (Python)`); else the first names its `let` lines at the margin
    set (`let s:parts`, `let g:loaded_airline, s:airline_initialized`). vim-airline's 75
    files had each opened `(untitled)`."""
    title = language = description = None
    for line in preamble[:VIM_HEADER_LINES]:
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith('"'):
            break
        said = stripped.strip('" \t')
        key, colon, value = said.partition(":")
        field = key.strip().lower() if colon and len(key.split()) <= 2 else None
        if field == "language" and value.strip():
            language = language or value.strip()
        elif field == "description" and value.strip():
            description = description or value.strip()
        elif (
            title is None
            and any(c.isalnum() for c in said)
            and not _vim_not_title(said.lower())
            and (field is None or field in _VIM_TITLE_FIELDS or value.startswith("//"))
        ):
            title = said
    title = description or title
    if title is not None:
        return f"{title} ({language})" if language and language not in title else title
    names: list[str] = []
    for line in preamble:
        if (match := _VIM_LET.match(line)) is not None and match.group(1) not in names:
            names.append(match.group(1))
            if len(names) > VIM_LET_NAMES:
                break
    if not names:
        return f"Language: {language}" if language else None
    more = ", …" if len(names) > VIM_LET_NAMES else ""
    return "let " + ", ".join(names[:VIM_LET_NAMES]) + more


# What a make rule's targets end with in a dependency file gcc writes (`-MD`, `-MMD`): the
# object and, with `-MT`, the `.d` file itself.
_MAKE_TARGETS = (".o", ".obj", ".lo", ".d", ".a", ".so")


def _make_dependencies(lines: list[str]) -> bool:
    """Is this `.d` file a make dependency file, as `gcc -MD` writes one next to each
    object (`hello.o: hello.c hello.h \\`), not D? Its first line that is not blank is a
    rule whose targets are all objects or dependency files. `*.d` is read as D by default,
    and a C project's build folder holds one for every object, each a chunk of file names."""
    written = (line for line in lines if line.strip())
    first = next(written, "")
    targets, colon, _ = first.partition(":")
    words = targets.split()
    if not colon or not words or first.lstrip().startswith(("//", "/*", "/+")):
        return False
    if all(w.endswith(_MAKE_TARGETS) for w in words):
        return True
    # A program's or library's (`gcc -MMD -o tides`, cargo's `target/debug/tides.d`:
    # `…/target/debug/tides: …/src/main.rs`, `libtides.rlib: …`; review74): file names
    # only, where D's first lines hold a `;`, a brace or a parenthesis.
    head = [first, *islice(written, DEPENDENCY_LINES_READ - 1)]
    return not any(mark in line for line in head for mark in _NOT_IN_DEPENDENCIES)


DEPENDENCY_LINES_READ = 50  # of a `.d` file's first lines, for D's punctuation
_NOT_IN_DEPENDENCIES = (";", "{", "}", "(", ")", "=", '"')


# `deprecated module std.experimental.checkedint;` too (a module's attributes: review74)
_D_MODULE = re.compile(
    r"(?:deprecated(?:\([^()\n]{0,400}\))?[ \t]+)?module[ \t]+([\w.]{1,200})[ \t]*;"
)


def _d_module(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """A D module's name from its `module std.digest.sha;` declaration, heading the
    module's ddoc comment (which stands above it) and imports: `module std.digest.sha`."""
    for number, line in enumerate(preamble):
        if in_code is not None and not in_code[number]:
            continue
        if (match := _D_MODULE.match(line)) is not None:
            return f"module {match.group(1)}"
    return None


def _nim_summary(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """What a Nim module's code before its first definition (its licence, its `##`
    documentation, imports) is: the first sentence of that documentation, `The heapqueue
    module implements a binary heap data structure that can be used as a priority
    queue.`, without its reST marks; None without one. Only the `##` lines up to the first
    blank one are read."""
    words: list[str] = []
    for line in preamble:
        stripped = line.strip()
        if not stripped.startswith("##"):
            if words:
                break
            continue
        text = stripped[2:].strip()
        if not text:
            if words:
                break
            continue
        words.append(text)
        if text.endswith(".") or len(words) == 4:
            break
    text = " ".join(_NIM_MARKS.sub("", " ".join(words)).split())
    end = text.find(". ")
    return text[: end + 1 if end >= 0 else 200].strip()[:200] or None


_RST_ADORNMENT = frozenset("=-~^*+")


def _nim_doc_title(lines: list[str], number: int) -> str | None:
    """The title of a section of a Nim module's `##` documentation that line `number`
    opens: `## ## CountTable` (Markdown's), or `## Basic usage` over `## -----------`
    (reST's, the rule at least as long as the title); None for any other line."""
    line = lines[number].strip()
    if not line.startswith("##"):
        return None
    text = line[2:].strip()
    if text.startswith("#"):
        rest = text.lstrip("#")
        return rest.strip()[:200] or None if rest[:1] == " " else None
    if not text or number + 1 >= len(lines):
        return None
    under = lines[number + 1].strip()
    rule = under[2:].strip() if under.startswith("##") else ""
    if len(rule) >= max(3, len(text)) and rule[0] in _RST_ADORNMENT and rule == rule[0] * len(rule):
        return text[:200]
    return None


def _write_nim_documentation(preamble: list[str], writer: MarkdownWriter) -> None:
    """A Nim module's code before its first definition, its `##` documentation split at
    the documentation's own section titles (`_nim_doc_title`), each a heading one level
    below the module's; every line kept, the titles and their rules too."""
    starts = [0]
    titles: list[str | None] = [None]
    for number in range(len(preamble)):
        title = _nim_doc_title(preamble, number)
        if title is not None and number > 0:
            starts.append(number)
            titles.append(title)
        elif title is not None:
            titles[0] = title
    for index, (first, title) in enumerate(zip(starts, titles, strict=True)):
        after = starts[index + 1] if index + 1 < len(starts) else len(preamble)
        if title is not None:
            writer.heading(3, title)
        writer.code("\n".join(preamble[first:after]), "nim", first_line=first + 1)


def _scheme_summary(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """What a Scheme file's code before its first definition (its header, licence,
    Commentary) is: the summary its first line gives, Guile's `;; (logging logger) --
    write methods to log files`, `;; (os process): process chains` or `;;;; ftw.scm ---
    file system tree walk`, the module's name with it; None when the first non-blank line
    is no such comment (`;; guile-lib`). Only that line is read."""
    first = next((line.strip() for line in preamble if line.strip()), "")
    summary = first.lstrip("; \t")[:200]
    if not first.startswith(";") or not (
        summary.startswith("(") or " -- " in summary or " --- " in summary
    ):
        return None
    return summary or None


_IN_PACKAGE = re.compile(r"\((?i:in-package)[ \t]+([^\s()]{1,100})[ \t]*\)")


def _lisp_package(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """`in-package :alexandria`: the heading of a Common Lisp file's code before its first
    definition, named by the package it is read in, as Go's by its clause (23 of
    Alexandria's 24 `.lisp` files open with one, and had opened `(untitled)`). Each line
    looked at once, up to the form; none in a string or `#| … |#` comment."""
    for number, line in enumerate(preamble):
        form = _IN_PACKAGE.match(line)
        if form is not None and (in_code is None or in_code[number]):
            return f"in-package {form.group(1)}"
    return None


# A Clojure namespace's name, after its metadata; a metadata map (`^{:doc "…"}`) is
# skipped by `_map_end`, its docstring over many lines too.
_CLOJURE_NS_NAME = re.compile(rf"[\s,]*({_CLOJURE_NAME})")
_CLOJURE_NS_META = re.compile(r"[\s,]*\^(\{)?[^\s(){}\[\]]{0,100}")
_CLOJURE_IN_NS = re.compile(rf"\(in-ns[ \t]+'?({_CLOJURE_NAME})[ \t]*\)")
NS_CHARS_READ = 20_000  # of the `ns` form, from its `(ns`: its metadata's docstring fits


def _clojure_ns(preamble: list[str], in_code: list[bool] | None) -> str | None:
    """`ns clojure.core.async`: the heading of a Clojure file's code before its first
    definition (its licence, the `ns` form and the namespace's docstring), named by the
    namespace it declares, as Go's by its clause; its metadata left out (`(ns
    ^{:skip-wiki true}` with the name on the next line, as 10 of core.async 1.5.648's
    files write it; `(ns ^{:doc "Clojure String utilities …` over 90 lines before
    `clojure.string`, as Clojure 1.11's own `string.clj`, `walk.clj` and 15 more); a
    file loaded into another's namespace by the one it names (`(in-ns 'clojure.core)`:
    `core_print.clj` and 12 more). The first such line at the margin outside strings, and
    at most NS_CHARS_READ characters from an `(ns`, read once."""
    for number, line in enumerate(preamble):
        if in_code is not None and not in_code[number]:
            continue
        if (switch := _CLOJURE_IN_NS.match(line)) is not None:  # a file of another's
            return f"in-ns {switch.group(1)}"
        if line.startswith("(ns"):
            taken, size = [], 0
            for text in preamble[number:]:
                taken.append(text)
                size += len(text) + 1
                if size >= NS_CHARS_READ:
                    break
            name = _ns_name("\n".join(taken)[:NS_CHARS_READ])
            return f"ns {name}" if name is not None else None
    return None


def _ns_name(form: str) -> str | None:
    """The name an `(ns …` form declares, after any metadata (`^:skip-wiki`, `^{…}`)."""
    position = len("(ns")
    while (meta := _CLOJURE_NS_META.match(form, position)) is not None:
        position = meta.end()
        if meta.group(1):  # a map: to its closing brace
            end = _map_end(form, meta.start(1))
            if end is None:
                return None
            position = end
    name = _CLOJURE_NS_NAME.match(form, position)
    return name.group(1) if name is not None else None


def _map_end(text: str, start: int) -> int | None:
    """Where the map opening at `start` (`{`) ends, past its `}`: braces counted outside
    strings (a `\\"` in a string, a character `\\{` outside one, no brace); None if it
    does not close in `text`. One pass."""
    depth, position, in_string = 0, start, False
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if char == '"':
            in_string = not in_string
        elif not in_string and char in "{}":
            depth += 1 if char == "{" else -1
            if depth == 0:
                return position + 1
        position += 1
    return None


def _in_package_alone(preamble: list[str]) -> bool:
    """Is a Common Lisp file's code before its first definition its `in-package` form
    alone (blank lines aside)? Then it is read with that definition: on its own it was a
    chunk of one line, `(in-package :alexandria)`, in Alexandria's files (nu66b).
    Each line looked at once, up to the second that is not blank."""
    written = []
    for line in preamble:
        if line.strip():
            written.append(line)
            if len(written) > 1:
                return False
    return len(written) == 1 and _IN_PACKAGE.match(written[0].strip()) is not None


def opens_a_form(text: str) -> bool:
    """Is this `.el` file Emacs Lisp, not Greek text (the language's code: vim's
    `tutor.el`, which had been one `(untitled)` block of Lisp)? Lisp's forms open at the
    margin: each of 130 `.el` files of seven ELPA packages, LLVM's and ninja's has a line
    that opens with `(` (a one-line `-pkg.el` too); the tutor's 1,000 lines have none."""
    return any(line.startswith("(") for line in text.splitlines())


_PREAMBLE_HEADINGS = {
    "go": _go_package,
    "lua": _lua_module,
    "tcl": _tcl_package,
    "elisp": _elisp_summary,
    "scheme": _scheme_summary,
    "commonlisp": _lisp_package,
    "clojure": _clojure_ns,
    "nim": _nim_summary,
    "d": _d_module,
    "vim": _vim_header,
}


_GO_MEMBER = re.compile(r"^([ \t]+)([A-Za-z_]\w*)")  # a name a `var (`/`const (` group declares
GROUP_LINES_READ = 400  # of a group, for its names: a bound on the look-ahead, not on the group


def _go_group_heading(keyword: str, lines: list[str], start: int) -> str | None:
    """`var (` … `)` headed by the names it declares, as Python's code between definitions
    is (`const ErrFileClosed, ErrOutOfRange, …`): the names at the group's own indent, not
    a value's continuation lines; None when it declares none (a group of `_` checks).
    A group never closed ends at the next definition: no line is read for two groups'
    names (a file of `var (` lines read 400 lines for each), nor a function's body."""
    names: list[str] = []
    indent = None
    for line in lines[start + 1 : start + 1 + GROUP_LINES_READ]:
        if line.startswith(")") or DEFINITIONS["go"].match(line):
            break
        member = _GO_MEMBER.match(line)
        if member is None or is_comment(line):
            continue
        indent = member.group(1) if indent is None else indent
        name = member.group(2)
        if member.group(1) == indent and name != "_" and name not in names:
            names.append(name)
    if not names:
        return None
    return f"{keyword} {names_heading(names)}"


def _write_outline(
    lines: list[str], definitions: list[BraceDefinition], writer: MarkdownWriter, language: str
) -> None:
    """Java, C#, C and C++ (`formats.c_family`): a section from each definition (the
    comments right above it included) to the next; a member one level below its type. A
    type's members end at its closing brace: code after it, up to the next definition at
    the top, is headed by the type again when it holds any word (C++ prototypes after a
    class were cited as the class's last method), else kept with the last member."""
    sections: list[tuple[int, int, str]] = []  # (0-based first line, level, heading)
    type_heading, type_end = "", None
    for definition in definitions:
        floor = sections[-1][0] + 1 if sections else 0
        first = _with_block_comments(lines, definition.line, floor)
        if first < floor:
            continue  # on the line of the definition before it (`class A { void f() {} }`)
        if not definition.member:
            tail = _tail_after(lines, type_end, first, sections)
            if tail is not None:
                sections.append((tail, 2, type_heading))
            type_heading, type_end = definition.heading, definition.end_line
            sections.append((first, 2, definition.heading))
        else:
            sections.append((first, 3, definition.heading))
    tail = _tail_after(lines, type_end, len(lines), sections)
    if tail is not None:
        sections.append((tail, 2, type_heading))
    bounds = [first for first, _, _ in sections] + [len(lines)]
    if (clause := _declared_scope(lines[: bounds[0]], language)) is not None:
        writer.heading(2, clause)
    writer.code("\n".join(lines[: bounds[0]]), language, first_line=1)
    for (first, level, heading), after in zip(sections, bounds[1:], strict=False):
        writer.heading(level, heading)
        writer.code("\n".join(lines[first:after]), language, first_line=first + 1)


# What a C# file's code before its first type declares, as Go's package clause is: its
# `namespace Python.Runtime.Codecs` (a block's `{` after it or on the next line, or C# 10's
# file-scoped `namespace Python.Runtime;`), or a Java file's `package org.harbour;`. Its
# `using`/`import` lines, licence and namespace line had been cited as `(untitled)`: 55 of
# pythonnet's 55 runtime files opened with such a section (newuser75).
_CSHARP_NAMESPACE = re.compile(r"namespace[ \t]+([A-Za-z_@][\w.]{0,300})[ \t]*(?:[;{]|$)")
_JAVA_PACKAGE = re.compile(r"package[ \t]+([A-Za-z_][\w.]{0,300})[ \t]*;")
_SCOPE_CLAUSES = {"csharp": ("namespace", _CSHARP_NAMESPACE), "java": ("package", _JAVA_PACKAGE)}


def _declared_scope(preamble: list[str], language: str) -> str | None:
    """`namespace Python.Runtime` or `package org.harbour`: the heading of a C# or Java
    file's code before its first definition, named by the first such clause at a line's
    start outside a comment (each line looked at once; a `/* … */` over lines skipped)."""
    if language not in _SCOPE_CLAUSES:
        return None
    kind, clause = _SCOPE_CLAUSES[language]
    in_comment = False
    for line in preamble:
        text = line.strip()
        if in_comment:
            in_comment = "*/" not in text
            continue
        if text.startswith("/*"):
            in_comment = "*/" not in text[2:]
            continue
        if (match := clause.match(text)) is not None:
            return f"{kind} {match.group(1)}"
    return None


def _with_block_comments(
    lines: list[str],
    number: int,
    floor: int,
    syntax: tuple[tuple[str, ...], str, str] = C_COMMENTS,
    in_code: list[bool] | None = None,
) -> int:
    """Line `number` (0-based), moved up over the comments right above it, a `/* … */`
    whose inner lines open with no `*` included, never above `floor`: each line is looked
    at once, as the floor is the section before. `syntax`: the line comments' openers and
    a block's opener and closer (C_COMMENTS, BLOCK_COMMENTS); with `in_code`, a block's
    first line is the one above its last that starts in code (a nested block's inner
    opener is not it)."""
    openers, opener, closer = syntax
    first = number
    while first > floor:
        above = lines[first - 1].strip()
        if above.startswith(openers) and not above.endswith(closer):
            first -= 1  # not `#` in C: a preprocessor line is code
        elif above.endswith(closer):  # a lone `*/` too: the lines it closes need no `*`
            opening = first - 1
            while opening > floor and (
                not in_code[opening] if in_code is not None else opener not in lines[opening]
            ):
                opening -= 1
            if not lines[opening].lstrip().startswith(opener):
                return first  # code with a comment after it: the statement before
            first = opening
        else:
            return first
    return first


def _tail_after(
    lines: list[str], type_end: int | None, before: int, sections: list[tuple[int, int, str]]
) -> int | None:
    """The first line after a type's closing brace (`type_end`) when its members' last
    section would otherwise run on over code with words in it up to line `before`."""
    if type_end is None or not sections or sections[-1][1] != 3 or type_end + 1 >= before:
        return None
    if not any(_HAS_WORD.search(line) for line in lines[type_end + 1 : before]):
        return None
    return type_end + 1


_HAS_WORD = re.compile(r"\w")
