"""Python code between two definitions is its own section, named by what it assigns.

A held-out run on httpx's source found its defaults (`DEFAULT_LIMITS = Limits(...)`) under
`class Proxy > def __repr__`: a section ran up to the next definition, so module code after
a class was filed under that class's last method, and "what is the default …?" could not
find it by its name or its place."""

from __future__ import annotations

import re

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats import code
from ragd.ingest.formats.code import parse
from tests.support.code_sections import sections_of

CONFIG = b'''"""Configuration objects."""
import os


class Proxy:
    def __init__(self, url):
        self.url = url

    def __repr__(self):
        return f"Proxy({self.url!r})"


# Used when the caller passes nothing.
DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0)
DEFAULT_LIMITS = Limits(max_connections=100, max_keepalive_connections=20)
DEFAULT_MAX_REDIRECTS = 20
DEFAULT_POOL = None


def helper():
    return 1


if __name__ == "__main__":
    helper()
'''


def sections(text: str) -> dict[str, str]:
    """Each Markdown heading → the text under it (a `#` inside a code fence is Python)."""
    out: dict[str, str] = {}
    heading, fenced = "", False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif line.startswith("#") and not fenced:
            heading = line.lstrip("#").strip()
            continue
        out[heading] = out.get(heading, "") + line + "\n"
    return out


def test_module_code_after_a_class_is_not_filed_under_its_last_method() -> None:
    document = parse("httpx/_config.py", CONFIG)
    parts = sections(document.text)
    assert "DEFAULT_LIMITS" not in parts["def __repr__"]
    defaults = parts["DEFAULT_TIMEOUT_CONFIG, DEFAULT_LIMITS, DEFAULT_MAX_REDIRECTS, …"]
    assert "# Used when the caller passes nothing." in defaults  # its comment goes with it
    assert "max_connections=100" in defaults and "DEFAULT_POOL = None" in defaults
    assert "if __name__" in parts["module code (if)"]
    assert "return 1" in parts["def helper"] and "if __name__" not in parts["def helper"]


def test_every_line_of_the_file_is_kept_once() -> None:
    document = parse("httpx/_config.py", CONFIG)
    kept = [
        line for line in document.text.splitlines() if line and not line.startswith(("#", "```"))
    ]
    source = [
        line for line in CONFIG.decode().splitlines() if line.strip() and not line.startswith("#")
    ]
    assert sorted(kept) == sorted(source)


VIPER = b"""package viper

// RemoteProvider stores the configuration of a remote key/value store.
type RemoteProvider interface {
	Provider() string
}

var _ RemoteProvider = &defaultRemoteProvider{}

// SupportedExts are universally supported extensions.
var SupportedExts = []string{"json", "toml", "yaml"}

var (
	_ fmt.Stringer = Mode(0)
	_ fmt.Stringer = Kind(0)
)

var (
	// ErrFileClosed is returned by any read or write after Close.
	ErrFileClosed = errors.New("File is closed")
	ErrOutOfRange = errors.New("out of range")
	defaultMerge  = map[string]int{
		"depth": 2,
	}
	ErrTooLarge = errors.New("too large")
)

func Reset() {}
"""


def test_go_declarations_after_a_definition_are_not_filed_under_it() -> None:
    """newuser39 on viper's source: `var SupportedExts = […]`, the answer to "which config
    formats can viper read?", was cited as `type RemoteProvider`, the type above it."""
    parts = sections(parse("viper/viper.go", VIPER).text)
    assert "SupportedExts" not in parts["type RemoteProvider"]
    assert "// SupportedExts are universally" in parts["var SupportedExts"]  # with its comment
    # A group is named by the names it declares at its own indent, not a value's lines.
    group = parts["var ErrFileClosed, ErrOutOfRange, defaultMerge, …"]
    assert "ErrTooLarge" in group and '"depth": 2' in group
    # A `_` check (single or a group of them) stays with the type it checks.
    assert "var _ RemoteProvider" in parts["type RemoteProvider"]
    assert "_ fmt.Stringer = Kind(0)" in parts["var SupportedExts"]
    assert "func Reset() {}" in parts["func Reset"]
    kept = [line for line in parse("viper/viper.go", VIPER).text.splitlines()]
    assert sorted(line for line in kept if line and not line.startswith(("## ", "```"))) == (
        sorted(line for line in VIPER.decode().splitlines() if line)
    )


def test_a_go_group_never_closed_is_named_by_its_own_lines_only() -> None:
    """A `var (` with no `)` (a file cut short, code mid-edit) ends where the next
    definition starts: the names of a function's body below it are not the group's."""
    source = b"package p\n\nvar (\n\tA = 1\n\nfunc Run() {\n\tx := 1\n\tprintln(x)\n}\n"
    parts = sections(parse("p.go", source).text)
    assert set(parts) == {"package p", "var A", "func Run"}, list(parts)
    assert "x := 1" in parts["func Run"]


COBRA = b"""// Copyright 2013-2023 The Cobra Authors
//
// Package cobra is a commander providing a simple interface to create powerful CLIs.
package cobra

import (
	"fmt"
	"os"
)

// Command is just that, a command for your application.
type Command struct {
	Use string
}
"""


def test_a_go_files_preamble_is_headed_by_its_package_clause() -> None:
    """The package clause, its doc comment and the imports were headed `(untitled)`
    (review40): as code between definitions is named by what it declares, the code before
    the first one is named by the package it declares. With no clause: `(untitled)`."""
    parts = sections(parse("cobra/command.go", COBRA).text)
    assert list(parts) == ["package cobra", "type Command"], list(parts)
    preamble = parts["package cobra"]
    assert "// Package cobra is a commander" in preamble and '"os"' in preamble
    headings = [c.heading_path for c in chunk_document(parse("cobra/command.go", COBRA))]
    assert headings == ["package cobra", "type Command"]
    no_clause = b'// a fragment\nimport "fmt"\n\nfunc Run() {}\n'
    assert "package" not in " ".join(sections(parse("frag.go", no_clause).text))


class _CountingMatch:
    """A pattern that counts the lines it is asked about."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0

    def match(self, line: str) -> re.Match[str] | None:
        self.calls += 1
        return self.pattern.match(line)


def test_each_line_is_read_for_a_go_groups_names_at_most_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Linear by construction: a file of `var (` lines (each opens a group no `)` closes)
    had each group read the GROUP_LINES_READ lines after it, 400 times the file."""
    counting = _CountingMatch(code._GO_MEMBER)
    monkeypatch.setattr(code, "_GO_MEMBER", counting)
    lines = 2 * code.GROUP_LINES_READ
    parse("p.go", b"var (\n\tA = 1\n" * lines)
    assert counting.calls <= 2 * lines


ETCKEEPER = b"""#!/bin/sh
set -e
conf="$ETCKEEPER_CONF_DIR/etckeeper.conf"

usage() {
	echo "usage: etckeeper command [-d directory]" >&2
	exit 1
}

if [ -z "$VCS" ]; then
	echo "Please configure a VCS in $conf" >&2
	exit 1
fi

die() { echo "$*" >&2; exit 1; }
[ -n "$1" ] || usage

# Writes the hook; its body holds braces of its own.
write_hook() {
	cat > hook <<END
if true; then { echo nested; }; fi
END
	chmod +x hook
}
# end of helpers

try_trace() (
	output=$(eval $add_env '"$@"' 2>&1; rc=$?; printf 'x'; exit $rc)
)
case $# in
0) usage ;;
esac

lsscripts() {
	ls "$1"
"""


def test_a_shell_scripts_commands_after_a_function_are_not_filed_under_it() -> None:
    """etckeeper's main program (the VCS check, the dispatch to `$command.d`) followed its
    one function, `usage`, and was cited as `usr/bin/etckeeper:usage` (newuser44): a
    section ran to the next definition. A function ends at its closing `}` at the margin
    (or on its one line); the commands after it are `script code`."""
    document = parse("usr/bin/etckeeper", ETCKEEPER)
    assert document.text.count(f"## {code.SCRIPT_CODE}") == 3
    parts = sections(document.text)
    assert "exit 1\n}" in parts["usage"] and "Please configure" not in parts["usage"]
    assert "Please configure a VCS" in parts[code.SCRIPT_CODE]
    assert '[ -n "$1" ] || usage' in parts[code.SCRIPT_CODE]
    assert "exit 1; }" in parts["die"] and "usage" not in parts["die"]
    # Nothing but comments after a function: they stay with it, no section of their own.
    assert "chmod +x hook\n}\n# end of helpers" in parts["write_hook"]
    # A body run in a subshell closes with `)` at the margin, not at `0) usage ;;`.
    assert "exit $rc)\n)" in parts["try_trace"] and "case $#" not in parts["try_trace"]
    assert "0) usage ;;" in parts[code.SCRIPT_CODE]
    # A body never closed (a cut file) runs to the end, as before.
    assert 'ls "$1"' in parts["lsscripts"]
    kept = [line for line in document.text.splitlines() if not line.startswith(("## ", "```"))]
    assert [line for line in kept if line] == [
        line for line in ETCKEEPER.decode().splitlines() if line
    ]


ANSIBLE_MODULE = (
    b'''#!/usr/bin/python
"""The module."""
from __future__ import annotations

# The options, as ansible-doc shows them.
DOCUMENTATION = r\'\'\'
module: mongodb_shard
short_description: Add or remove shards from a MongoDB cluster
options:
'''
    + b"".join(
        f"  option_{n}:\n    description: the option number {n}\n".encode() for n in range(8)
    )
    + b"""\'\'\'

EXAMPLES = r\'\'\'
"""
    + b"".join(
        f"- name: Add shard rs{n}\n  mongodb_shard: shard=rs{n}\n".encode() for n in range(8)
    )
    + b"""\'\'\'

import os
HAS_PYMONGO = True


def main():
    pass


TABLE = {
"""
    + b"".join(f"    'key{n}': {n},\n".encode() for n in range(20))
    + b"}\n"
)


def test_a_long_module_level_assignment_heads_itself() -> None:
    """An Ansible module's documentation is its `DOCUMENTATION` and `EXAMPLES` strings
    before its first function; it had been cited as `(untitled)` (newuser53: 38 % of
    community.mongodb's plugin text). A long assignment after a definition heads itself
    too, and the short statements after one are headed by what they assign."""
    by_heading = sections_of("mongodb_shard.py", ANSIBLE_MODULE)
    assert list(by_heading) == [
        "(untitled)",
        "DOCUMENTATION",
        "EXAMPLES",
        "HAS_PYMONGO",
        "def main",
        "TABLE",
    ]
    assert "# The options, as ansible-doc shows them." in by_heading["DOCUMENTATION"]
    assert "short_description: Add or remove shards" in by_heading["DOCUMENTATION"]
    assert "- name: Add shard rs7" in by_heading["EXAMPLES"]
    assert "import os" in by_heading["HAS_PYMONGO"]
    assert "'key19': 19" in by_heading["TABLE"]


def test_statements_before_a_long_assignment_are_headed_by_their_own_names() -> None:
    """After a definition, `x = 1` before a long `DOC` is its own section, headed by its
    name alone: it had been `x, DOC, y`, names of the sections after it (attack53b: 153
    headings in 140 of the 1,406 `.py` files of site-packages whose sections changed)."""
    source = b"def f():\n    pass\n\n\nx = 1\nDOC = '''\n" + b"line\n" * 16 + b"'''\ny = 2\n"
    text = parse("m.py", source).text
    assert sections(text).keys() == {"def f", "x", "DOC", "y"}
    assert "x = 1" in sections(text)["x"]
