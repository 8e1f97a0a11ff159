"""OCaml (a library's interface and examples, as cmdliner 1.1.1 ships them in
libcmdliner-ocaml-dev; held out as nu63a). Its manual is the interface's `(** … *)`
comments, each after the value it documents, under odoc's `{1 Title}` section headings,
and `.ml`/`.mli` had not been read at all: `cmdliner.mli`, 49 KB of documented API, was no
document (newuser63)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats.code_literals import lines_in_code
from ragd.ingest.loaders import parse as load
from tests.support.growth import growth_ratio

# Written here in the shape of a documented interface: a module summary, a module with a
# `sig` whose values are documented after them, odoc section headings at two indents, an
# example inside a doc comment whose lines open with `let`, a parameterised type and an
# operator.
INTERFACE = b"""(** Tide tables for harbours.

    Open the module and ask {!Tides.next}. *)

module Tides : sig

  (** {1:reading Reading a table} *)

  type 'a table
  (** The type for tables of ['a] soundings. *)

  val next : string -> float
  (** [next quay] is the hour of the next high water at [quay], for example:
{[
let h = Tides.next "north-quay"
val not_a_value : int
]}
      Hours are in UTC. *)

  val ( >>= ) : 'a table -> ('a -> 'b table) -> 'b table
  (** [t >>= f] chains readings. *)

(** {1:writing Writing a table} *)

  val save : 'a table -> string -> unit
  (** [save t file] writes [t] to [file]; a quote is ['"'] here. *)
end

type ('k, 'v) store
(** A store of charts. *)
"""

HEADINGS = (
    "(untitled)",
    "module Tides",
    "module Tides > Reading a table",
    "module Tides > type table",
    "module Tides > val next",
    "module Tides > val ( >>= )",
    "module Tides > Writing a table",
    "module Tides > val save",
    "type store",
)


def test_ocaml_files_are_indexed_by_default() -> None:
    for name in ("lib/tides.ml", "lib/tides.mli"):
        assert PathFilter(DEFAULT_INCLUDE).includes(name)


def test_an_interface_is_split_at_its_values_and_odoc_headings() -> None:
    chunks = chunk_document(load("lib/tides.mli", INTERFACE))
    by_path = {chunk.heading_path: chunk.text for chunk in chunks}
    assert tuple(by_path) == HEADINGS
    assert "Open the module" in by_path["(untitled)"]
    # the doc comment after a value stays with it, its example's lines too
    next_ = by_path["module Tides > val next"]
    assert "next high water" in next_ and "not_a_value" in next_ and "in UTC" in next_
    assert "chains readings" in by_path["module Tides > val ( >>= )"]
    assert "writes [t] to [file]" in by_path["module Tides > val save"]
    assert "A store of charts" in by_path["type store"]


def test_a_doc_comment_is_the_next_definitions_only_when_set_off_from_the_one_above() -> None:
    source = b"""let first = 1
(* glued below first: first's *)

(** Set off above second: second's. *)
let second = 2
"""
    by_path = {c.heading_path: c.text for c in chunk_document(load("order.ml", source))}
    assert list(by_path) == ["let first", "let second"]
    assert "glued below first" in by_path["let first"]
    assert "Set off above second" in by_path["let second"]
    assert "Set off above second" not in by_path["let first"]


def test_a_functions_local_lets_are_no_members() -> None:
    source = b"""let main () =
  let name = "tides" in
  let hour = 3 in
  print_endline name; hour

let () = exit (main ())
"""
    paths = [c.heading_path for c in chunk_document(load("main.ml", source))]
    assert paths == ["let main", "let ()"]


def test_comments_nest_and_a_quote_character_opens_no_string() -> None:
    lines = [
        "(* outer (* inner *)",
        "val hidden : int",
        "*)",
        "let q = '\"'",
        "val shown : int",
    ]
    assert lines_in_code(lines, "ocaml") == [True, False, False, True, True]


def test_a_string_inside_a_comment_closes_nothing() -> None:
    # The compiler reads strings inside a comment: the `*)` in `"*)"` is no comment's end
    # (OCaml's own testsuite has `(* "*)" *)`), nor is one in a quoted string, and `'"'`
    # there is a character; the comment runs to its own `*)`. The first `*)` had closed
    # it, and `let fake` headed a section of its own (review66).
    lines = [
        '(* the lexer stops at "*)" and',
        "let fake_one = 1",
        "   at {|*)|} and at '\"' too",
        "let fake_two = 2 *)",
        "let real = 3",
    ]
    assert lines_in_code(lines, "ocaml") == [True, False, False, False, True]
    paths = [c.heading_path for c in chunk_document(load("lexer.ml", "\n".join(lines).encode()))]
    assert paths == ["let real"]


def test_a_quoted_string_with_an_id_runs_to_its_own_close() -> None:
    # `{sql|…|sql}` (and `{%ext id|…|id}`) end at `|id}` only: a ppx's embedded query had
    # been read as code, its `let` lines as definitions (review66).
    lines = [
        "let query = {sql|",
        "let not_code = 1 |}",
        "|sql}",
        "let rendered = {%html x|",
        "val not_either : int",
        "|x}",
        "let after = 2",
    ]
    assert lines_in_code(lines, "ocaml") == [True, False, False, True, False, False, True]


def test_an_unclosed_string_in_a_comment_hides_nothing_after_the_comment() -> None:
    # A quote in a comment that no quote closes (a file that does not compile) is read as
    # no string: the comment still ends at its `*)`.
    lines = ['(* a 5" floppy', "let inside = 1 *)", "let after = 2", "(* and (* nested *) *)"]
    assert lines_in_code(lines, "ocaml") == [True, False, True, True]


def test_the_ocaml_lexer_is_linear_in_the_file() -> None:
    # Comments, strings and quoted strings opened and never closed, at the top and inside
    # a comment, quoted strings of many ids: 4x the input costs about 4x the time (8x
    # allowed), not 16x.
    shapes = ['"', "(*", "{|", "{a|", "{%e b|", "'\\\"'", '(* "', "(* {c|", "*)", "(* '\"' *)"]

    def lines(size: int) -> list[str]:
        body = "".join(shape * size for shape in shapes)
        ids = "".join(f"(* {{q{n}| *)" for n in range(size))  # a quoted string per id
        return (ids + body + "\nlet f = 1\n").split("\n")

    assert growth_ratio(lambda code: lines_in_code(code, "ocaml"), lines(2_000), lines(8_000)) < 8


def test_a_heading_at_the_margin_inside_a_modules_sig_is_the_modules() -> None:
    # cmdliner's `module Arg : sig` writes its odoc headings at the margin, its values
    # indented: each heading had been a section at the top, and `module Arg` gone from
    # the heading of every value after it (`Optional arguments > val flag`) (review66).
    # A nested module's heading stays in it; past the `end`, a heading is the file's.
    source = b"""module Arg : sig

(** {1:optargs Optional arguments} *)

  val flag : int
  (** [flag] is a flag. *)

  module Env : sig
    (** {1:vars Variables} *)
    val var : string
  end

(** {1:posargs Positional arguments} *)

  val pos : int
end

(** {1:after After the module} *)

val tail : int
"""
    paths = [c.heading_path for c in chunk_document(load("cmd.mli", source))]
    assert paths == [
        "module Arg",
        "module Arg > Optional arguments",
        "module Arg > val flag",
        "module Arg > module Env",
        "module Arg > Positional arguments",
        "module Arg > val pos",
        "After the module",
        "val tail",
    ]


def test_a_body_whose_end_is_indented_ends_at_the_next_definition_at_the_margin() -> None:
    # An `end` not at the margin is not seen: the body ends at the next definition at the
    # margin, and a heading after it is the file's, as before.
    source = b"""module M = struct
  let x = 1
  end

let y = 2

(** {1 Later} *)

let z = 3
"""
    paths = [c.heading_path for c in chunk_document(load("m.ml", source))]
    assert paths == ["module M", "module M > let x", "let y", "Later", "let z"]
