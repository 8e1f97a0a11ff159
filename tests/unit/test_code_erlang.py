"""Erlang is read, cut at its functions and headed by them.

OTP's EUnit as Debian 12 ships its sources (erlang-src, `lib/eunit-2.8.1/src`) was not
indexed at all: `*.erl` was in no default pattern, and an included `.erl` file was one
`(untitled)` section (newuser65). A function is now headed by its name, its clauses and
the `-spec` above it one section with the edoc comment above them; the `-module` line and
a `-record` head their own; `-callback` and `-type` lines, one a line in a run, none."""

from __future__ import annotations

from fnmatch import fnmatch

from ragd.core.config import DEFAULT_INCLUDE
from tests.support.code_sections import assert_every_line_kept, sections_of

LISTENER_ERL = b"""%% Licensed under the Apache License, Version 2.0.
%%
%% @doc Generic listener process for a test runner.

-module(listener).

-export([start/1, start/2]).

-callback handle_begin(_, _, _) -> _.
-callback terminate(_, _) -> _.

-record(state, {callback,    % callback module
\t\tpass = 0}).

%% @spec start(Callback::atom()) -> pid()
%% @doc Starts a listener that calls Callback's functions.
start(Callback) ->
    start(Callback, []).

-spec start(atom(), [term()]) -> pid().
start(Callback, Options) ->
    St = #state{callback = Callback},
    spawn(fun () -> init(St, Options) end).

'quoted name'(X) when is_list(X) ->
    X;
'quoted name'(_) ->
    [].
"""


def test_each_function_is_a_section_headed_by_its_name_with_its_edoc_comment() -> None:
    sections = sections_of("src/listener.erl", LISTENER_ERL)
    start = sections["start"]
    assert "@doc Starts a listener" in start  # the edoc comment above the first clause
    assert "start(Callback, []" in start and "-spec start(atom()" in start
    assert "spawn(fun ()" in start  # the second clause joined the first
    assert "[]." in sections["'quoted name'"]
    assert "@doc Generic listener process" in sections["module listener"]
    callbacks = sections["module listener"]  # a behaviour's callbacks, read together
    assert "-callback handle_begin" in callbacks and "-callback terminate" in callbacks
    assert not any(path.startswith(("callback", "type")) for path in sections)
    assert "pass = 0" in sections["record state"]
    assert_every_line_kept("src/listener.erl", LISTENER_ERL)


def test_erlang_sources_and_headers_are_included_by_default() -> None:
    for name in ("eunit.erl", "eunit_internal.hrl"):
        assert any(fnmatch(name, pattern) for pattern in DEFAULT_INCLUDE), name


USAGE_ERL = b"""-module(gauge).

usage() ->
    io:format("Usage: gauge [options]
% of the tide, read each hour
read(Station) -> the hour's level, in metres
", []),
    Tag = 'a quoted
atom(X) -> no function',
    {$", $%, Tag}.

read(Station) ->
    level(Station).
"""


def test_a_string_over_lines_holds_no_function_and_no_comment() -> None:
    """A usage text over lines whose lines open with `%` and read `read(Station) ->` at
    the margin, a quoted atom over lines, and `$"`/`$%` characters: the string's lines are
    the string's (before: `read` headed a section inside it, cut the usage function in
    two, and the real `read` was joined to the string's)."""
    sections = sections_of("src/gauge.erl", USAGE_ERL)
    usage = sections["usage"]
    assert "in metres" in usage and "atom(X) -> no function" in usage and "$%" in usage
    assert list(sections) == ["module gauge", "usage", "read"]
    assert "level(Station)" in sections["read"] and "metres" not in sections["read"]
    assert_every_line_kept("src/gauge.erl", USAGE_ERL)
