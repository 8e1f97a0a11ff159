"""Which lines of a Go, JavaScript/TypeScript, Kotlin, Swift, Scala, PHP or Lua file (and
Scheme, Common Lisp, OCaml, Haskell, Erlang, Tcl, D: their own functions below) start inside a
string or a comment.

The code reader splits these files at top-level definitions found line by line
(`formats.code`), and a line inside a multi-line string or comment is no definition: a
cobra command's `Long:` help in a Go raw string ("type the name of the harbour …"), a
JavaScript template literal of usage text ("class names are matched …"), a commented-out
`function old() {}` in a `/* … */` block each headed a section of their own, cited as
`type the` or `class names`.

What it knows of the tokens: `//` and `/* … */` comments (nested only in Kotlin, Swift
and Scala), `"…"` and `'…'`
strings (one line, `\\` escapes), and the backtick: Go's raw string, run to the next
backtick, or JavaScript's template literal, whose `${…}` holds code again, braces,
strings and templates nested in it included (lit's and htm's html`<ul>${items.map(i =>
html`<li>${i}</li>`)}</ul>`), so the outer template runs to its own closing backtick. In
JavaScript a `/` where an expression starts (after `(`, `=`, `,`, `return` …) opens a
regular expression, read to its closing `/` on the line, so a `/[`'"]/` holds no string.
Linear by construction: one pass, each token found by a search from where the last one
ended, each string or comment scanned once. A comment or backtick string never closed (a
file that does not compile, a token this lexer misreads) is read as none, its opener
skipped: an unclosed `/*` or template never hides the definitions after it. Once one is
found unclosed, no later opener of its kind can close either, and is skipped without a
scan.

Kotlin, Swift and Scala: `//` and `/* … */` comments, which nest there (`/* old: /* a
note */ fun retired() */` is one comment: the first `*/` closes only the inner one), one-line
`"…"` and `'…'`, and the triple-quoted raw string, run to the next three quotes (and those
right after it, which Kotlin and Scala keep in the string). PHP: `//`, `#` and `/* … */`
comments, one-line strings, and the heredoc or nowdoc `<<<ID`, run to the line that
opens with `ID` (any indent). A commented-out `func legacyDock()`, a raw string of help
text whose line reads `fun with ferries`, a heredoc of JavaScript's `function init()`
had each headed a section (review40). Lua: `--` comments, one-line strings, and the
block comment `--[[ … ]]` and long string `[[ … ]]` at any level (`[==[ … ]==]`), the
usual way to comment out a `function M.retired()`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN = re.compile(r"""//|/\*|["'`/]""")  # Go, JavaScript/TypeScript
_TRIPLE_TOKEN = re.compile(r"//|/\*|\"{3}|[\"']")  # Kotlin, Swift, Scala
_TRIPLE = '"' * 3  # Kotlin's, Swift's and Scala's raw string
_PHP_TOKEN = re.compile(r"//|#|/\*|<<<|[\"']")
# Lua: a block comment `--[[` or long string `[[`, each with its level of `=` (`[==[`).
_LUA_TOKEN = re.compile(r"--\[={0,32}\[|--|\[={0,32}\[|[\"']")
# A heredoc's or nowdoc's identifier after its `<<<` and blanks: `ID`, `"ID"` or `'ID'`.
_HEREDOC = re.compile(r"""(?P<quote>["']?)(?P<id>[A-Za-z_]\w{0,63})(?P=quote)""")
_NESTED_TOKEN = re.compile(r"""//|/\*|["'`/{}]""")  # inside a template's `${…}`
_COMMENT_EDGE = re.compile(r"/\*|\*/")  # Kotlin's, Swift's and Scala's comments nest
_LINE_STRING = {  # the body of a one-line string, up to (not with) its closing quote
    '"': re.compile(r'(?:[^"\\\n]|\\[\s\S])*'),
    "'": re.compile(r"(?:[^'\\\n]|\\[\s\S])*"),
}
_TEMPLATE_TEXT = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")  # up to its ` or ${
# A regular expression's body, up to its closing `/`: escapes and `[…]` classes (where a
# `/` closes nothing) on one line.
_REGEX_BODY = re.compile(r"(?:[^\\/\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])*")
_EXPRESSION_STARTS = frozenset("(,=:[!&|?{};+-*%>~^")  # not `<`: JSX's `</td>` divides
_KEYWORD_BEFORE = re.compile(
    r"(?<![\w$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$"
)
LOOK_BACK = 32  # characters read back from a `/` for what precedes it
# Scheme: a character (`#\\"`, `#\\;`), a reader directive or object (`#!fold-case`,
# `#!r6rs`, MIT's and Chicken's `#!optional`: a name after `#!`, no block, review64), a
# datum comment `#;` (what follows is code: a string it opens on its line runs on,
# review64), a comment, a block comment, a string.
_SCHEME_TOKEN = re.compile(r'#\\.|#![A-Za-z][\w.+-]{0,63}|#;|;|#\||#!|"', re.DOTALL)
# Clojure's: a character (`\\"`, `\\;`, `\\newline`), a `;` comment, a string (a regex's
# `#"…"` too); no block comments (`(comment …)` and `#_` are forms).
_CLOJURE_TOKEN = re.compile(r'\\.|;|"', re.DOTALL)
_SCHEME_NESTED = re.compile(r"#\||\|#")  # `#| … |#` nests (R6RS, R7RS, Racket, Chicken)
# OCaml: a character literal that is a quote (`'"'`, `'\\"'`), a comment, a string, a quoted
# string `{|…|}` or `{id|…|id}` (`{sql|…|sql}`, `{%ext id|…|id}`). Its comments nest (`(* a
# (* b *) c *)`), and inside one a string or quoted string is read as one: `(* "*)" *)` is
# one comment, as the compiler reads it.
_OCAML_QUOTED = r"\{(?:%%?[A-Za-z_][\w.]{0,60}[ \t]*)?(?P<id>[a-z_]{0,60})\|"
_OCAML_TOKEN = re.compile(rf"""'\\?"'|\(\*|"|{_OCAML_QUOTED}""")
_OCAML_IN_COMMENT = re.compile(rf"""'\\?"'|\(\*|\*\)|"|{_OCAML_QUOTED}""")
QUOTED = "{|"  # the kind of every quoted string, whatever its id: `unclosed` holds it
# Haskell: a character literal that is a quote (`'"'`, `'\\"'`), a line comment (two or more
# dashes not part of an operator: `-->` and `|--` are operators), a block comment `{- … -}`
# (nested; a pragma `{-# … #-}` is one too), a string. A string's gap, a backslash, blanks
# and line breaks, and a backslash again, is how one runs over lines.
_HASKELL_SYMBOL = r"!#$%&*+./<=>?@\\^|~:"
_HASKELL_TOKEN = re.compile(
    rf"'\\?\"'|(?<![{_HASKELL_SYMBOL}-])--+(?![{_HASKELL_SYMBOL}-])|\{{-|\""
)
_HASKELL_NESTED = re.compile(r"\{-|-\}")
_HASKELL_STRING = re.compile(r'(?:[^"\\\n]|\\\s+\\|\\[\s\S])*')  # to its `"` or line end
# A `"…"` string's body, backslash escapes read, over lines too: Scheme's, Common Lisp's,
# Clojure's, OCaml's, Erlang's, and Tcl's quoted word.
_STRING_BODY = re.compile(r'(?:[^"\\]|\\[\s\S])*')
_SCHEME_BLOCKS = {"#|": "|#", "#!": "!#"}
# Erlang: a character (`$"`, `$%`, `$\\"`), a `%` comment, a string, a quoted atom; a string
# and a quoted atom run over lines (a usage text of many lines, whose line may open with
# `%` or read `name(Args) ->` at the margin).
_ERLANG_TOKEN = re.compile(r"""\$\\?.|%|["']""", re.DOTALL)
_ERLANG_ATOM_BODY = re.compile(r"(?:[^'\\]|\\[\s\S])*")  # a quoted atom's body, over lines too
# Tcl: an escaped character, a `"` (a quoted word when it starts a word and its closing
# quote ends one), a `#` (a comment where a command starts), a command's end. Braces are
# not followed: a proc's body is code, and a braced word's `"` or `#` is read by the rules
# above, which a `"` between braces rarely meets (`{" "}`: no word starts with it).
_TCL_TOKEN = re.compile(r'\\[\s\S]|["#;\n]')
_TCL_WORD_BEFORE = frozenset(" \t\n;[")  # what a quoted word's `"` follows
_TCL_WORD_AFTER = frozenset(" \t\n;]}")  # … and what its closing `"` is followed by
# D: a character literal (`'"'`, `'\\''`), a `//` comment, a `/* … */` comment, a `/+ … +/`
# comment (nested), a wysiwyg string (`` `…` `` and `r"…"`, no escapes), a `"…"` string
# (escapes; D's strings run over lines, as its ddoc examples' do), a token string `q{ … }`
# (its braces nest) and a delimited string `q"( … )"` (brackets nest), `q"/ … /"` or
# `q"EOS` … a line `EOS"` (a heredoc), whose code at the margin was read as declarations.
_D_TOKEN = re.compile(r"""'(?:\\.|[^\\'\n])'|//|/\*|/\+|(?<!\w)[rq]"|(?<!\w)q\{|[`"]""")
_D_NESTED = re.compile(r"/\+|\+/")
_D_BRACKETS = {
    o: re.compile(re.escape(o) + "|" + re.escape(c)) for o, c in ("()", "[]", "{}", "<>")
}
_D_HEREDOC_NAME = re.compile(r"(?<!\w)[A-Za-z_]\w*\n")  # (lookbehind: a search stays linear)
# Inside a token string: its braces, and the tokens a brace in which is no brace (a
# character, a comment, a string): `q{ write("}"); }` ends at its last brace (readers75).
_D_IN_TOKEN_STRING = re.compile(r"""[{}]|'(?:\\.|[^\\'\n])'|//|/\*|/\+|(?<!\w)[rq]"|[`"]""")
_D_CLOSERS = {"/*": "*/", "`": "`", 'r"': '"'}
# DTrace: a character literal, a `//` comment, a `/* … */` comment, a one-line `"…"`
# string (a predicate's `/…/` holds only an expression; a backtick scopes a kernel symbol).
_DTRACE_TOKEN = re.compile(r"""'(?:\\.|[^\\'\n])'|//|/\*|\"""")
# Vim script: a heredoc, `let s:commands =<< trim EOL` (Vim9's `var lines =<< trim END`),
# its lines text up to the line that is its end marker alone (blanks around it, as Vim's
# own syntax file reads it); the marker starts with no lower-case letter (`trim`, `eval`
# are its options), a `"` comment may follow it (readers75).
_VIM_HEREDOC = re.compile(
    r"^[ \t]*:?(?:(?:let|var|const?|final)[ \t]+)?[\w:#.]{1,200}[ \t]*=<<"
    r"(?:[ \t]+(?:trim|eval)){0,2}[ \t]+(?P<marker>[^a-z \t\n\"][^ \t\n]{0,200})"
    r"[ \t]*(?:\"[^\n]*)?$",
    re.MULTILINE,
)


LANGUAGES = frozenset(
    (
        "go", "javascript", "jsx", "typescript", "tsx", "kotlin", "swift", "scala", "php",
        "lua", "scheme", "commonlisp", "clojure", "ocaml", "haskell", "erlang", "tcl", "d",
        "vim", "dtrace",
    )
)  # fmt: skip
_TRIPLE_QUOTED = frozenset(("kotlin", "swift", "scala"))


def lines_in_code(lines: list[str], language: str) -> list[bool]:
    """Per line of `lines` (a file split at its line breaks): whether it starts outside
    every string and comment. `language`: one of LANGUAGES (JavaScript/TypeScript's
    rules for any other)."""
    text = "\n".join(lines)
    in_code = [True] * len(lines)
    start_of = 0
    number = 0
    starts = []
    for line in lines:
        starts.append(start_of)
        start_of += len(line) + 1
    for start, end in _spans(text, language):
        while number < len(lines) and starts[number] <= start:
            number += 1
        while number < len(lines) and starts[number] < end:
            in_code[number] = False
            number += 1
    return in_code


def _spans(text: str, language: str) -> list[tuple[int, int]]:
    """The strings and comments of `text` that span lines: (start, end), in order."""
    if language in ("scheme", "commonlisp"):  # the same strings and `#| … |#` comments
        return _scheme_spans(text)
    if language == "clojure":  # the same strings, no block comments
        return _scheme_spans(text, _CLOJURE_TOKEN)
    if language == "ocaml":
        return _ocaml_spans(text)
    if language == "haskell":
        return _haskell_spans(text)
    if language == "erlang":
        return _erlang_spans(text)
    if language == "tcl":
        return _tcl_spans(text)
    if language == "d":
        return _d_spans(text)
    if language == "vim":
        return _vim_spans(text)
    if language == "dtrace":
        return _token_spans(text, _DTRACE_TOKEN, "//", "'", _dtrace_end)
    go = language == "go"  # a backtick opens Go's raw string, else a template literal
    tokens = {"php": _PHP_TOKEN, "lua": _LUA_TOKEN}.get(
        language, _TRIPLE_TOKEN if language in _TRIPLE_QUOTED else _TOKEN
    )
    spans: list[tuple[int, int]] = []
    unclosed: set[str] = set()  # kinds of opener found never closed: none later closes
    position = 0
    while (token := tokens.search(text, position)) is not None:
        start, kind = token.start(), token.group()
        if kind in ("//", "#", "--"):
            position = _line_end(text, start)
        elif kind in _LINE_STRING:
            body = _LINE_STRING[kind].match(text, start + 1)
            position = body.end() + 1 if body else start + 1
        elif kind == "/":
            position = start + 1 if go else _after_regex(text, start)
        else:
            nests = language in _TRIPLE_QUOTED
            end = None if kind in unclosed else _closing(text, start, kind, go, nests)
            if end is None:
                unclosed.add(kind)
                position = start + len(kind)
            else:
                if text.find("\n", start, end) != -1:
                    spans.append((start, end))
                position = end
    return spans


def _scheme_spans(text: str, tokens: re.Pattern[str] = _SCHEME_TOKEN) -> list[tuple[int, int]]:
    """Scheme's strings and block comments that span lines. Its strings do (a docstring
    runs over many lines, and one of its lines may open with `(define` at the margin);
    `;` comments run to the line's end; `#| … |#` and Guile's `#! … !#` are block comments
    (a module's Commentary); `#\\"` is a character, no string. One pass, each token found
    by a search from where the last one ended; a string or block left open is read as none
    (its opener skipped) and, as for the other languages, no later opener of its kind is
    scanned again."""
    spans: list[tuple[int, int]] = []
    unclosed: set[str] = set()
    position = 0
    while (token := tokens.search(text, position)) is not None:
        start, kind = token.start(), token.group()
        end: int | None = None
        if kind == ";":
            position = _line_end(text, start)
            continue
        if kind.startswith(("#\\", "\\")) or kind == "#;" or len(kind) > 2:  # `#!optional`
            position = token.end()
            continue
        if kind not in unclosed and kind == '"':
            body = _STRING_BODY.match(text, start + 1)
            close = body.end() if body else start + 1
            end = close + 1 if close < len(text) else None
        elif kind == "#|" and kind not in unclosed:
            end = _nested_comment_end(text, start, _SCHEME_NESTED, "#|")
        elif kind not in unclosed:
            close = text.find(_SCHEME_BLOCKS[kind], start + 2)
            end = None if close == -1 else close + 2
        if end is None:
            unclosed.add(kind)
            position = start + len(kind)
            continue
        if text.find("\n", start, end) != -1:
            spans.append((start, end))
        position = end
    return spans


def _ocaml_spans(text: str) -> list[tuple[int, int]]:
    """OCaml's comments, strings and quoted strings that span lines. A documented
    interface's `(** … *)` comments run over many lines, and one of their lines may open
    with `val` or `let` (an example in `{[ … ]}`); comments nest. `'"'` is a character, no
    string. One pass, each token found by a search from where the last one ended; one left
    open is read as none (its opener skipped) and no later opener of its kind is scanned
    again (a quoted string's kind is any quoted string, whatever its id)."""
    spans: list[tuple[int, int]] = []
    unclosed: set[str] = set()
    position = 0
    while (token := _OCAML_TOKEN.search(text, position)) is not None:
        start, kind = token.start(), _ocaml_kind(token)
        end = None if kind in unclosed else _ocaml_end(text, token, unclosed)
        if end is None:
            unclosed.add(kind)
            position = token.end()
            continue
        if text.find("\n", start, end) != -1:
            spans.append((start, end))
        position = end
    return spans


def _ocaml_kind(token: re.Match[str]) -> str:
    """`(*`, `"`, a character `'"'`, or QUOTED for `{id|`."""
    return QUOTED if token.group().startswith("{") else token.group()


def _ocaml_end(text: str, token: re.Match[str], unclosed: set[str]) -> int | None:
    """Past the end of OCaml's string, comment or quoted string `token` opens, or None
    when it is never closed (`unclosed`: the kinds found never closed, none scanned
    again)."""
    kind = _ocaml_kind(token)
    if kind.startswith("'"):  # a character, `'"'`
        return token.end()
    if kind == "(*":
        return _ocaml_comment_end(text, token.end(), unclosed)
    if kind == QUOTED:
        close = text.find(f"|{token.group('id')}}}", token.end())
        return None if close == -1 else close + len(token.group("id")) + 2
    body = _STRING_BODY.match(text, token.end())
    close = body.end() if body else token.end()
    return close + 1 if close < len(text) else None


def _ocaml_comment_end(text: str, position: int, unclosed: set[str]) -> int | None:
    """Past the `*)` closing the comment whose body starts at `position`, or None. The
    compiler reads strings and quoted strings inside a comment (a `*)` in one closes
    nothing: `(* the "*)" token *)`, `'"'` is a character) and nested comments. A string
    in it never closed is read as none, its quote skipped, as at the top."""
    depth = 1
    while (token := _OCAML_IN_COMMENT.search(text, position)) is not None:
        kind = token.group()
        position = token.end()
        if kind in ("(*", "*)"):
            depth += 1 if kind == "(*" else -1
            if depth == 0:
                return position
        elif _ocaml_kind(token) not in unclosed:
            end = _ocaml_end(text, token, unclosed)
            if end is None:
                unclosed.add(_ocaml_kind(token))
            else:
                position = end
    return None


def _haskell_spans(text: str) -> list[tuple[int, int]]:
    """Haskell's block comments and strings that span lines: a commented-out `{- old ::
    Int -}` and a Haddock `{-| … -}` block hold lines that open as signatures do. A
    `--` comment runs to the line's end (`{-` in one opens nothing); a string runs to its
    quote, over lines only through a gap (`\\` line break `\\`), else it ends with its
    line; `'"'` is a character. One pass, each token found by a search from where the last
    one ended; a block comment left open is read as none, and no later one is scanned
    again."""
    spans: list[tuple[int, int]] = []
    comments_closed = True
    position = 0
    while (token := _HASKELL_TOKEN.search(text, position)) is not None:
        start, kind = token.start(), token.group()
        end: int | None = token.end()
        if kind.startswith("-"):
            end = _line_end(text, start)
        elif kind == '"':
            body = _HASKELL_STRING.match(text, token.end())
            close = body.end() if body else token.end()
            end = close + 1 if text.startswith('"', close) else close
        elif kind == "{-" and comments_closed:
            end = _nested_comment_end(text, start, _HASKELL_NESTED, "{-")
            comments_closed = end is not None
        if end is None:
            end = token.end()
        elif text.find("\n", start, end) != -1:
            spans.append((start, end))
        position = end
    return spans


def _erlang_spans(text: str) -> list[tuple[int, int]]:
    """Erlang's strings and quoted atoms that span lines: a `%` comment runs to its line's
    end, `$"` and `$%` are characters (`_token_spans`)."""
    return _token_spans(text, _ERLANG_TOKEN, "%", "$", _erlang_end)


def _erlang_end(text: str, token: re.Match[str]) -> int | None:
    """Past the string or quoted atom opened by `token`, or None: left open."""
    body = (_STRING_BODY if token.group() == '"' else _ERLANG_ATOM_BODY).match(text, token.end())
    close = body.end() if body else token.end()
    return None if close >= len(text) else close + 1


def _dtrace_end(text: str, token: re.Match[str]) -> int | None:
    """Past the DTrace comment or one-line string opened by `token`, or None: left open."""
    if token.group() == "/*":
        close = text.find("*/", token.end())
        return None if close == -1 else close + 2
    body = _LINE_STRING['"'].match(text, token.end())
    close = body.end() if body else token.end()
    return close + 1 if text.startswith('"', close) else None


def _vim_spans(text: str) -> list[tuple[int, int]]:
    """Vim script's heredocs (`let x =<< trim END` … `END`): from the `let` line to the
    end of the marker's line, so the lines between are text, a `function` among them no
    definition (its strings and `"` comments span no lines; a line continued by `\\` is
    code). Each heredoc's lines are read once, from where the last one ended; one never
    closed is read as none and ends the search (Vim reads it to the file's end)."""
    spans: list[tuple[int, int]] = []
    position = 0
    while (opener := _VIM_HEREDOC.search(text, position)) is not None:
        marker = opener.group("marker")
        line = opener.end()  # at the `\n` ending the `let` line, or the text's end
        while line < len(text):
            end = _line_end(text, line + 1)
            if text[line + 1 : end].strip(" \t") == marker:
                spans.append((opener.start(), end))
                break
            line = end
        else:
            return spans
        position = end
    return spans


def _d_spans(text: str) -> list[tuple[int, int]]:
    """D's comments and strings that span lines: ddoc's `/** … */` and `/++ … +/` (which
    nests), `"…"` strings (escapes read), wysiwyg `` `…` `` and `r"…"` strings, token
    strings `q{ … }` and delimited strings `q"…"`; a `//` comment runs to its line's end,
    `'"'` is a character (`_token_spans`)."""
    return _token_spans(text, _D_TOKEN, "//", "'", _d_end)


def _d_end(text: str, token: re.Match[str]) -> int | None:
    """Past the comment or string opened by `token`, or None: left open."""
    kind = token.group()
    if kind == "/+":
        return _nested_comment_end(text, token.start(), _D_NESTED, "/+")
    if kind == '"':
        return _erlang_end(text, token)
    if kind == "q{":
        return _d_token_string_end(text, token.end() - 1)
    if kind == 'q"':
        return _d_delimited_end(text, token.end())
    close = text.find(_D_CLOSERS[kind], token.end())
    return None if close == -1 else close + len(_D_CLOSERS[kind])


def _d_token_string_end(text: str, brace: int) -> int | None:
    """Past the `}` that closes the token string whose `{` is at `brace`, or None: its
    braces nest, and a string, character or comment in it is read as one, its braces
    none (`q{ write("}"); }`). One pass, each token found by a search from where the last
    one ended (a string's or comment's end by `_d_end`): linear."""
    depth = 0
    position = brace
    while (token := _D_IN_TOKEN_STRING.search(text, position)) is not None:
        kind = token.group()
        position = token.end()
        if kind in ("{", "}"):
            depth += 1 if kind == "{" else -1
            if depth == 0:
                return position
        elif kind == "//":
            position = _line_end(text, token.start())
        elif not kind.startswith("'"):
            if (end := _d_end(text, token)) is None:
                return None  # a string or comment left open: the token string too
            position = end
    return None


def _d_delimited_end(text: str, body: int) -> int | None:
    """Past the `"` that closes the delimited string whose delimiter is at `body`, or
    None: `q"( … )"` (the four brackets nest), `q"EOS` then a line `EOS"`, `q"/ … /"`
    (any other character). Each by one search from `body`: linear."""
    opener = text[body : body + 1]
    if not opener or opener.isspace():
        return None
    if opener in _D_BRACKETS:
        close = _nested_comment_end(text, body - 1, _D_BRACKETS[opener], opener)
        return close + 1 if close is not None and text.startswith('"', close) else None
    if (name := _D_HEREDOC_NAME.match(text, body)) is not None:
        closer = "\n" + name.group()[:-1] + '"'
        close = text.find(closer, name.end() - 1)
    else:
        closer = opener + '"'
        close = text.find(closer, body + 1)
    return None if close == -1 else close + len(closer)


def _token_spans(
    text: str,
    tokens: re.Pattern[str],
    line_comment: str,
    character: str,
    end_of: Callable[[str, re.Match[str]], int | None],
) -> list[tuple[int, int]]:
    """The strings and comments of `text` that span lines, `tokens` finding their openers:
    `line_comment` runs to its line's end, a token opening with `character` is a
    character literal, `end_of` finds where any other ends (None: left open). One pass,
    each token found by a search from where the last one ended; one left open is read as
    none (its opener skipped), and no later one of its kind is scanned again."""
    spans: list[tuple[int, int]] = []
    unclosed: set[str] = set()
    position = 0
    while (token := tokens.search(text, position)) is not None:
        start, kind = token.start(), token.group()
        if kind == line_comment:
            position = _line_end(text, start)
            continue
        if kind.startswith(character) or kind in unclosed:
            position = token.end()
            continue
        end = end_of(text, token)
        if end is None:
            unclosed.add(kind)
            position = token.end()
            continue
        if text.find("\n", start, end) != -1:
            spans.append((start, end))
        position = end
    return spans


def _tcl_spans(text: str) -> list[tuple[int, int]]:
    """Tcl's quoted words and comments that span lines: a `"` that starts a word runs to
    the next unescaped `"`, over lines, when that one ends the word (Tcl refuses a close
    quote followed by more of the word, so `"` followed otherwise was no string: read as
    none, its quote skipped); a `#` where a command starts (a line's first word, after a
    `;`) comments to the line's end, a backslash line end running it on. One pass, each
    token found by a search from where the last one ended; once a quote is found never
    closed no later one is scanned."""
    spans: list[tuple[int, int]] = []
    closed = True
    command = True  # at the start of a command: only blanks since the last line end or `;`
    position = 0
    while (token := _TCL_TOKEN.search(text, position)) is not None:
        start, kind = token.start(), token.group()
        if command and text[position:start].strip(" \t"):
            command = False  # a word came between
        if kind in ("\n", ";"):
            command, position = True, token.end()
            continue
        if kind.startswith("\\"):
            command, position = False, token.end()
            continue
        if kind == "#" and command:
            end = _tcl_comment_end(text, start)
            if text.find("\n", start, end) != -1:
                spans.append((start, end))
            position = end
            continue
        command = False
        if kind == "#" or not closed or (start and text[start - 1] not in _TCL_WORD_BEFORE):
            position = token.end()
            continue
        body = _STRING_BODY.match(text, start + 1)
        close = body.end() if body else start + 1
        if close >= len(text):
            closed, position = False, token.end()
            continue
        if close + 1 < len(text) and text[close + 1] not in _TCL_WORD_AFTER:
            position = token.end()  # no quoted word: its "close" goes on with the word
            continue
        if text.find("\n", start, close) != -1:
            spans.append((start, close + 1))
        position = close + 1
    return spans


def _tcl_comment_end(text: str, start: int) -> int:
    """Where a Tcl comment opened at `start` ends: its line's end, past every line end
    escaped by an odd run of backslashes."""
    end = _line_end(text, start)
    while end < len(text):
        before = end
        while before > start and text[before - 1] == "\\":
            before -= 1
        if (end - before) % 2 == 0:
            return end
        end = _line_end(text, end + 1)
    return end


def _closing(text: str, start: int, kind: str, go: bool, nests: bool) -> int | None:
    """Where the comment, backtick or raw string or heredoc opened at `start` ends, or
    None (`<<<` that opens no heredoc: just past it). `nests`: a `/*` inside a comment
    opens another level (Kotlin, Swift, Scala)."""
    if kind == "/*" and nests:
        return _nested_comment_end(text, start)
    if kind == "/*":
        close = text.find("*/", start + 2)
        return None if close == -1 else close + 2
    if kind == _TRIPLE:
        close = text.find(_TRIPLE, start + 3)
        if close == -1:
            return None
        end = close + 3
        while end < len(text) and text[end] == '"':
            end += 1  # `""""`: a quote ending the string, then its close
        return end
    if kind == "<<<":
        return _heredoc_end(text, start)
    if kind.endswith("["):  # Lua's `--[==[` or `[==[`: to `]==]`
        closing = "]" + "=" * kind.count("=") + "]"
        close = text.find(closing, start + len(kind))
        return None if close == -1 else close + len(closing)
    if go:
        close = text.find("`", start + 1)
        return None if close == -1 else close + 1
    return _template_end(text, start)


def _nested_comment_end(
    text: str, start: int, edges: re.Pattern[str] = _COMMENT_EDGE, opener: str = "/*"
) -> int | None:
    """Past the `*/` that closes the comment opened at `start`, counting the `/*` opened
    inside it, or None. Each edge is found by one search from the last: linear. A comment
    left open is read as none and, as for every kind, no later opener is scanned again.
    Scheme's `#| … |#` nest too (`edges`, `opener`): `#| retired: #| a note |# (define
    (old) 1) |#` is one comment, where the first `|#` had closed it and `(define (old)` on a
    line of its own headed a section (review64)."""
    depth = 1
    position = start + 2
    while (edge := edges.search(text, position)) is not None:
        position = edge.end()
        depth += 1 if edge.group() == opener else -1
        if depth == 0:
            return position
    return None


TEXT = -1  # a frame of `_template_end`'s stack: a template's text (else a `${`'s open braces)


def _template_end(text: str, start: int) -> int | None:
    """Past the backtick closing the template opened at `start`, or None. A stack of
    frames: a template's text, or a `${…}` with the braces opened in it, in which a
    backtick opens a template again; every token is read once."""
    stack = [TEXT]
    position = start + 1
    while stack:
        if stack[-1] == TEXT:
            part = _TEMPLATE_TEXT.match(text, position)
            position = part.end() if part else position
            if position >= len(text):
                return None
            if text[position] == "`":
                stack.pop()
                position += 1
            else:  # `${`
                stack.append(0)
                position += 2
            continue
        token = _NESTED_TOKEN.search(text, position)
        if token is None:
            return None
        at, kind = token.start(), token.group()
        position = token.end()
        if kind == "{":
            stack[-1] += 1
        elif kind == "}":
            if stack[-1]:
                stack[-1] -= 1
            else:
                stack.pop()  # back in the template's text
        elif kind == "`":
            stack.append(TEXT)
        elif kind == "//":
            position = _line_end(text, at)
        elif kind == "/*":
            close = text.find("*/", at + 2)
            if close == -1:
                return None
            position = close + 2
        elif kind in _LINE_STRING:
            body = _LINE_STRING[kind].match(text, at + 1)
            position = body.end() + 1 if body else at + 1
        else:  # "/"
            position = _after_regex(text, at)
    return position


def _after_regex(text: str, start: int) -> int:
    """Past the `/` at `start`: past a regular expression when one can start there (its
    closing `/` on the line; else the rest of the line, which a regex cannot leave),
    else just past the `/` (a division)."""
    before = text[max(0, start - LOOK_BACK) : start].rstrip(" \t")
    if (
        before
        and before[-1] != "\n"
        and before[-1] not in _EXPRESSION_STARTS
        and not _KEYWORD_BEFORE.search(before)
    ):
        return start + 1
    body = _REGEX_BODY.match(text, start + 1)
    end = body.end() if body else start + 1
    if end < len(text) and text[end] == "/":
        return end + 1
    return _line_end(text, start)


def _heredoc_end(text: str, start: int) -> int | None:
    """Past the identifier closing PHP's heredoc or nowdoc opened at `start` (a line
    holding spaces or tabs, the identifier and no word character after it), or None;
    just past the `<<<` when no identifier and line end follow it (no heredoc)."""
    opener = _HEREDOC.match(text, _past_blanks(text, start + 3))
    if opener is None:
        return start + 3
    line = _past_blanks(text, opener.end())
    if line < len(text) and text[line] != "\n":
        return start + 3  # something after the identifier: no heredoc
    name = opener.group("id")
    line += 1  # each line after the opener looked at once, from its start
    while line < len(text):
        end = _line_end(text, line)
        body = text[line:end].lstrip(" \t")
        rest = body[len(name) : len(name) + 1]
        if body.startswith(name) and not (rest.isalnum() or rest == "_"):
            return end - len(body) + len(name)
        line = end + 1
    return None


def _past_blanks(text: str, position: int) -> int:
    """Past the spaces and tabs from `position` on."""
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end == -1 else end
