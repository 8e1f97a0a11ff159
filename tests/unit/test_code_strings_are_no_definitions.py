"""A line inside a multi-line string or comment of a Go or JavaScript/TypeScript file is
no definition (`formats/code_literals.py`): a cobra command's `Long:` help in a raw
string, a template literal of usage text and a commented-out function each headed a
section of their own (`## type the`, `## class names`, `## function notReal`)."""

from __future__ import annotations

import re

from ragd.ingest.formats import code
from ragd.ingest.formats.code_literals import lines_in_code
from tests.support.growth import growth_ratio

HEADING = re.compile(r"^## (.*)$", re.M)
MEMBER = re.compile(r"^### (.*)$", re.M)


def _headings(name: str, source: str, level: re.Pattern[str] = HEADING) -> list[str]:
    return level.findall(code.parse(name, source.encode()).text)


def test_a_go_raw_strings_lines_head_nothing() -> None:
    source = (
        "package main\n\nvar rootCmd = &cobra.Command{\n\tLong: `Ferry moves files.\n\n"
        "type the name of the harbour after --to,\nfunc tions are listed with --help.\n`,\n}\n"
        "\n/*\nfunc old() {}\n*/\n\nfunc main() {\n\trootCmd.Execute()\n}\n"
    )
    assert _headings("main.go", source) == ["package main", "var rootCmd", "func main"]


def test_template_literals_and_comments_head_nothing_in_javascript() -> None:
    source = (
        "const help = `\nUsage: ferry [options]\nclass names are matched\n"
        "function of each flag: ${flags.map((f) => `\nfunction ${f.name}\n`).join('')}\n`;\n\n"
        "export function run() { return help; }\n/*\nfunction notReal() {}\n*/\n"
        "const quote = /[`'\"]/;\nclass Harbour {}\n"
    )
    assert _headings("cli.ts", source) == ["export function run", "class Harbour"]


def test_an_unclosed_template_or_comment_hides_no_definition() -> None:
    source = "const a = `never closed\nfunction one() {}\n/* nor this\nclass Two {}\n"
    assert _headings("broken.js", source) == ["function one", "class Two"]


def test_the_lexer_is_linear_in_the_file() -> None:
    # Nested templates, unclosed openers, slashes that may open a regex: 4x the input
    # costs about 4x the time (8x allowed), not 16x.
    shapes = ["`${`", "/*", "(/[", "`", "'", "x = a / b / c\n", "${{`"]
    shapes += ['"""', "<<<A\n A", "--[==[", "[=[", "/* /* */"]  # Kotlin's, PHP's, Lua's

    def lines(size: int) -> list[str]:
        return ("".join(shape * size for shape in shapes) + "\nfunction f() {}\n").split("\n")

    def lex(code: list[str]) -> None:
        for language in ("javascript", "go", "kotlin", "php", "lua"):
            lines_in_code(code, language)

    assert growth_ratio(lex, lines(4_000), lines(16_000)) < 8


def test_kotlin_swift_and_scala_raw_strings_and_comments_head_nothing() -> None:
    # A commented-out function, at the margin or in a type, and a raw string's help text.
    kotlin = (
        "package harbour\n\n/*\nfun oldBerth() {}\n*/\n\nclass Berth {\n"
        '    val help = """\n    fun with ferries: type --to\n    """\n\n'
        "    /*\n    fun retired() {}\n    */\n    fun weeksLeft(): Int = 3\n}\n"
    )
    assert _headings("Berth.kt", kotlin) == ["class Berth"]
    assert _headings("Berth.kt", kotlin, MEMBER) == ["fun weeksLeft"]
    swift = (
        'import Foundation\n\n/*\nfunc legacyDock() {}\n*/\nlet usage = """\n'
        'struct names are listed with --help\n"""\n\nstruct Harbour {\n'
        "    func dock() {}\n}\n"
    )
    assert _headings("Harbour.swift", swift) == ["struct Harbour"]
    scala = 'val doc = """\ndef notADefinition\n"""\n/* object Old\n*/\nobject Ferry {}\n'
    assert _headings("Ferry.scala", scala) == ["object Ferry"]


def test_kotlin_swift_and_scala_block_comments_nest() -> None:
    # The first `*/` closes only the inner comment: the function after it is still
    # commented out (a Go or JavaScript comment does not nest: there it is code).
    kotlin = (
        "package harbour\n\n/* retired:\n/* the old dock */\nfun oldDock() {}\n*/\n\n"
        "fun dock() {}\n"
    )
    assert _headings("Dock.kt", kotlin) == ["fun dock"]
    swift = "/* kept for reference\n  /* v1 */\nfunc legacyDock() {}\n*/\nfunc dock() {}\n"
    assert _headings("Dock.swift", swift) == ["func dock"]
    go = "package main\n\n/* a /* b */\nfunc shown() {}\n"
    assert _headings("main.go", go) == ["package main", "func shown"]


def test_php_comments_and_heredocs_head_nothing() -> None:
    source = (
        "<?php\n\n/*\nfunction oldRender() {}\n*/\n\n$script = <<<JS\n"
        "function init() { return 1; }\nJS;\n\n$quoted = <<<'SQL'\nclass names here\n  SQL;\n\n"
        "class Cursor\n{\n    /*\n    public function retired() {}\n    */\n"
        "    public function advance(): void {}\n}\n"
    )
    assert _headings("Cursor.php", source) == ["class Cursor"]
    assert _headings("Cursor.php", source, MEMBER) == ["function advance"]


def test_lua_block_comments_and_long_strings_head_nothing() -> None:
    # `--[[ … ]]` is how Lua comments code out; `[==[ … ]==]` a long string of any text.
    source = (
        "local M = {}\n\n--[[\nfunction M.retired()\nend\n--]]\n\nlocal usage = [==[\n"
        "function names are listed with --help ]]\n]==]\n\nfunction M.dock()\nend\n\n"
        "-- function M.commented()\nreturn M\n"
    )
    assert _headings("harbour.lua", source) == ["function M.dock"]


def test_a_go_preamble_is_headed_by_its_clause_not_a_comment_line() -> None:
    source = "/*\npackage docs are generated by gen.go\n*/\npackage main\n\nfunc main() {}\n"
    assert _headings("main.go", source) == ["package main", "func main"]
