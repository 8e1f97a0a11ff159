"""Vim script (`*.vim`): a plugin's autoload/ and plugin/ files, in vim-airline's shape
(held out as nu73a). `.vim` was in no default pattern and no reader knew it: vim-airline
0.11's 75 files were no document (newuser73)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse as load

TABLINE = """" MIT License. Copyright (c) 2026 Harbour Tides et al.
" vim: et ts=2 sts=2 sw=2

scriptencoding utf-8

let s:formatter = get(g:, 'harbour#tabline#formatter', 'default')

" Shows the open buffers along the top of the window, unless the user
" switched it off with g:harbour#tabline#enabled = 0.
function! harbour#tabline#init(ext)
  if has('gui_running')
    set guioptions-=e
  endif
  call a:ext.add_statusline_func('harbour#tabline#apply')
endfunction

fu s:prototype.build() dict
  return self._line
endfu

" The highest tide of the day, in metres.
function harbour#tabline#high_water()
  " function inside() is only a comment
  return s:high
endfunction
"""


def _sections(name: str, text: str) -> dict[str, str]:
    by_path: dict[str, str] = {}
    for chunk in chunk_document(load(name, text.encode())):
        by_path[chunk.heading_path] = by_path.get(chunk.heading_path, "") + chunk.text
    return by_path


def test_a_vim_script_is_included_by_default() -> None:
    assert PathFilter(DEFAULT_INCLUDE).includes("autoload/harbour/tabline.vim")


def test_each_function_heads_its_section_with_the_comment_above_it() -> None:
    by_path = _sections("autoload/harbour/tabline.vim", TABLINE)
    init = by_path.get("function harbour#tabline#init", "")
    assert "Shows the open buffers along the top of the window" in init, sorted(by_path)
    assert "add_statusline_func" in init
    assert "return self._line" in by_path.get("function s:prototype.build", ""), sorted(by_path)
    high = by_path.get("function harbour#tabline#high_water", "")
    assert "The highest tide of the day" in high, sorted(by_path)
    assert "function inside" in high  # a comment line is no definition
    assert not any("inside" in path for path in by_path), sorted(by_path)
    assert any("scriptencoding utf-8" in text for text in by_path.values())


def test_the_lines_before_the_first_function_are_headed_by_the_header_or_their_lets() -> None:
    # vim-airline's extensions name the plugin they serve in their header
    extension = '" MIT License. Copyright (c) 2026 Harbour Tides et al.\n" Plugin: tidemaster\n'
    extension += '" vim: et ts=2 sts=2 sw=2\n\nscriptencoding utf-8\n\nlet s:spc = " "\n\n'
    extension += "function! harbour#tides#init(ext)\nendfunction\n"
    assert next(iter(_sections("tides.vim", extension))) == "Plugin: tidemaster"
    # Vim's own runtime files: a kind of file and its language
    syntax = '" Vim syntax file\n" Language:\tTide tables\n" Maintainer:\tA. Harbour\n\n'
    syntax += 'syn keyword tideKeyword flood ebb\nlet b:current_syntax = "tide"\n'
    assert list(_sections("syntax/tide.vim", syntax)) == ["Vim syntax file (Tide tables)"]
    # no header: the names its lets set
    assert next(iter(_sections("autoload/harbour/tabline.vim", TABLINE))) == "let s:formatter"


def test_lines_with_no_header_nor_let_are_headed_by_the_file_s_name() -> None:
    """review74: a licence line, a modeline and `scriptencoding` above the first function
    (vim-airline's tabline formatters), or ALE's `call ale#Set(…)` lines, were
    `(untitled)`: 340 of the 9,847 chunks of vim-runtime, ALE and airline."""
    formatter = '" MIT License. Copyright (c) 2026 Harbour Tides et al.\n'
    formatter += '" vim: et ts=2 sts=2 sw=2\n\nscriptencoding utf-8\n\n'
    formatter += "function! harbour#tides#format(nr)\n  return a:nr\nendfunction\n"
    by_path = _sections("autoload/harbour/tides/tabnr.vim", formatter)
    assert list(by_path) == ["tabnr.vim", "function harbour#tides#format"], list(by_path)
    assert "scriptencoding utf-8" in by_path["tabnr.vim"]
    linter = "call ale#Set('tide_options', '')\ncall ale#Set('tide_source', '')\n\n"
    linter += (
        "function! ale_linters#tide#GetCommand(buffer) abort\n    return 'tide'\nendfunction\n"
    )
    assert next(iter(_sections("ale_linters/tide/tidec.vim", linter))) == "tidec.vim"


COMMANDS = """" Plugin: harbour tides
let g:loaded_harbour = 1

" Define commands for moving between the tides.
command! -bar -nargs=* HarbourPrevious
\\    :call harbour#jump('before', <q-args>)
command! -bar HarbourNext :call harbour#jump('after')

" Turn the tide table on or off.
command! -bar HarbourToggle :call harbour#toggle#Toggle()
command! -bar HarbourEnable :call harbour#toggle#Enable()
command! -bar HarbourDisable :call harbour#toggle#Disable()
command! -bar HarbourReset :call harbour#toggle#Reset()

" The table of ports, one a line.
let s:ports =<< trim EOL " {{{2
function Harwich() is no definition here
command! NoCommand call nothing()
  EOL

nnoremap <silent> <Plug>(harbour_next) :HarbourNext<Return>
"""


def test_a_user_command_heads_its_section_and_a_heredoc_is_text() -> None:
    """readers75: a `command!` at the margin was no heading (ALE's 39 commands had been
    read into the `let` lines above them), and a heredoc's lines were read as code, a
    `function` line in one heading a section. A command heads what follows it with the
    comments above it, a run of them one a line (no blank line nor comment between) one
    section; a heredoc's lines are text."""
    by_path = _sections("plugin/harbour.vim", COMMANDS)
    assert list(by_path) == [
        "Plugin: harbour tides",
        "command HarbourPrevious, HarbourNext",
        "command HarbourToggle, HarbourEnable, HarbourDisable, …",
    ], list(by_path)
    moving = by_path["command HarbourPrevious, HarbourNext"]
    assert "Define commands for moving between the tides." in moving
    assert "harbour#jump('before'" in moving
    toggle = by_path["command HarbourToggle, HarbourEnable, HarbourDisable, …"]
    assert "Turn the tide table on or off." in toggle and "HarbourReset :call" in toggle
    # the heredoc, a function and a command line in it, is text of the section it is in
    assert "function Harwich() is no definition here" in toggle
    assert "command! NoCommand" in toggle
    # a command the script runs itself, or deletes, is its helper: it heads nothing
    for helper in (
        "command -nargs=+ Hi hi def <args>\nHi link harbourTide String\n",
        "command -nargs=+ Hi hi def <args>\nexe 'Hi link harbourTide String'\ndelcommand Hi\n",
    ):
        syntax = '" Vim syntax file\n" Language: Harbour tides\n\n' + helper
        assert list(_sections("syntax/harbour.vim", syntax)) == [
            "Vim syntax file (Harbour tides)"
        ], helper


def test_a_script_in_a_legacy_encoding_is_read_in_the_one_it_declares() -> None:
    """readers75: Vim's menu translations in cp1250, ISO-8859-2 and -9 declare it
    (`scriptencoding iso-8859-2`), and had been read as Windows-1252, the stray bytes of
    a UTF-8 file most often are: Czech `Nápověda` indexed as `Nápovìda`, Hungarian `Súgó`
    right but `Előző` as `Elõzõ`, 12 of vim-runtime 9.0's `lang/menu_*.vim`."""
    menu = (
        '" Menu Translations:\tCzech\n'
        "scriptencoding iso-8859-2\n\n"
        "menutrans &Help\t\t\tNápo&věda\n"
        "menutrans &Previous\t\tPředchozí\n"
    ).encode("iso-8859-2")
    document = load("lang/menu_cs_cz.iso_8859-2.vim", menu)
    text = "".join(chunk.text for chunk in chunk_document(document))
    assert "Nápo&věda" in text and "Předchozí" in text, text
    assert any("iso-8859-2" in note for note in document.notes), document.notes
    # a UTF-8 script that declares utf-8, or nothing, reads as before
    utf8 = load("menu.vim", "scriptencoding utf-8\nmenutrans &Help Nápo&věda\n".encode())
    assert "Nápo&věda" in utf8.text and not utf8.notes


def test_a_scriptencoding_naming_no_text_encoding_keeps_the_script_s_words() -> None:
    """review76: `scriptencoding` names any codec Python's registry holds, and some are
    no encoding of text: `idna` and `undefined` refused to decode at all and `punycode`
    raised on the first byte past ASCII, so one line lost the whole file; `cp037` (EBCDIC)
    and `unicode_escape` decoded its ASCII into other letters (`\\n` in a string became a
    line break). A name whose codec does not read ASCII as ASCII is not used: the script
    reads as it would with no such line."""
    lines = 'menutrans &Help\tAide caf\xe9\nlet s:sep = "\\n"\nmenu &Tools.&Make :make<CR>\n'
    plain = load("menu.vim", lines.encode("latin-1"))
    for codec in ("idna", "undefined", "punycode", "cp037", "unicode_escape", "hz", "rot13"):
        document = load("menu.vim", f"scriptencoding {codec}\n{lines}".encode("latin-1"))
        assert plain.text.replace("```vim\n", f"```vim\nscriptencoding {codec}\n") == (
            document.text
        ), codec
        assert not any(codec in note for note in document.notes), (codec, document.notes)


def test_a_command_a_function_defines_stays_in_that_function() -> None:
    """review76: a function whose body is written at the margin (`command! -buffer
    BerthShow …` inside `function! s:Setup()`) had its rest cited as `command BerthShow,
    BerthHide`, the harbour master's line among them; the commands are defined when the
    function runs, and stay in its section. A command at the margin outside any
    function still heads its own."""
    script = (
        '" Vim plugin for harbour berths\n\n'
        "function! s:Setup() abort\n"
        "let b:berth = 1\n"
        "command! -buffer BerthShow call s:show()\n"
        "command! -buffer BerthHide call s:hide()\n"
        'echo "harbour master inspects the quay"\n'
        "endfunction\n\n"
        "command! -bar TideTable call s:table()\n"
    )
    sections = _sections("plugin/berth.vim", script)
    assert list(sections) == [
        "Vim plugin for harbour berths",
        "function s:Setup",
        "command TideTable",
    ], sections
    assert "harbour master inspects the quay" in sections["function s:Setup"], sections
