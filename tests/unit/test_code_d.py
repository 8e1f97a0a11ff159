"""D sources (`*.d`), in the shape of Phobos's modules (held out as nu73b: Phobos 2.100's
`std/container/` and `std/digest/` as Debian 12 ships them with LDC). Their documentation
is the ddoc comments above each declaration; `.d` was in no default pattern and no reader
knew it: the folder was no document, all 10 answerable questions refused (newuser73)."""

from __future__ import annotations

import pytest

from ragd.core.config import DEFAULT_INCLUDE
from ragd.core.no_text import is_no_text
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import SkipFile
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse as load

MODULE = """// Written for the tests.
/**
This module provides a `TideTable` (aka harbour log), kept sorted by time.

License: Boost License 1.0.
*/
module std.harbour.tides;

import std.range.primitives;

enum blockSize = 512;

static assert(blockSize > 0);

extern (C) void function(int) onTide;

/++
Retired:
auto oldTides(int days)
{
}
+/

/**
Keeps the day's tides in order. The highest is `front`.
 */
struct TideTable(Store, alias less = "a < b")
if (isRandomAccessRange!Store)
{
    version (StdUnittest)
    {
        bool arrayEqual(T[] arr)
        {
            return true;
        }
    }

    /// Builds a table over the given store.
    this(Store s, size_t initialSize = size_t.max)
    {
        _store = s;
    }

/**
Returns the highest tide, which is the front of the table.
     */
    @property ElementType!Store front() const
    {
        return _store.front;
    }

    static private Node allocate()
    {
        return new Node;
    }
}

/// Makes a table from a store, the largest tide first.
TideTable!(Store, less) tideTable(alias less = "a < b", Store)(Store s)
{
    enum help = "
ubyte[4] notADefinition(int x)
";
    return TideTable!(Store, less)(s);
}

///
unittest
{
    auto t = tideTable([4, 7, 3]);
    assert(t.front == 7);
}
"""


def _sections(name: str, text: str) -> dict[str, str]:
    by_path: dict[str, str] = {}
    for chunk in chunk_document(load(name, text.encode())):
        by_path[chunk.heading_path] = by_path.get(chunk.heading_path, "") + chunk.text
    return by_path


def test_a_d_module_is_included_by_default() -> None:
    assert PathFilter(DEFAULT_INCLUDE).includes("std/container/binaryheap.d")


def test_a_d_module_is_split_at_its_types_functions_and_members() -> None:
    by_path = _sections("std/harbour/tides.d", MODULE)
    table = "struct TideTable"
    assert list(by_path) == [
        "module std.harbour.tides",
        table,
        f"{table} > this()",
        f"{table} > front()",
        f"{table} > allocate()",
        "tideTable()",
    ], list(by_path)
    # the module's ddoc (above its `module` line) is headed by the module
    assert "kept sorted by time" in by_path["module std.harbour.tides"]
    # each declaration's ddoc comment goes with it, its inner lines without `*` too
    assert "The highest is `front`." in by_path[table]
    assert "arrayEqual" in by_path[table]  # a test helper one indent deeper is no member
    assert "Builds a table over the given store." in by_path[f"{table} > this()"]
    assert "Returns the highest tide" in by_path[f"{table} > front()"]
    # the documented unittest after a function is its example
    function = by_path["tideTable()"]
    assert "the largest tide first" in function and "assert(t.front == 7)" in function
    assert "notADefinition" in function  # a line in a string is no definition
    assert "oldTides" in by_path["module std.harbour.tides"]  # nor one in a /+ +/ comment


def test_a_unittest_after_a_struct_is_the_struct_s_example_not_its_members() -> None:
    text = (
        "/// A digest of tides.\nstruct TideDigest\n{\n    /// Starts it.\n"
        "    void start()\n    {\n    }\n}\n\n///\n@safe unittest\n{\n"
        "    void useTheDigest(T)(ref T digest)\n    {\n        digest.start();\n    }\n"
        "    TideDigest d;\n    useTheDigest(d);\n}\n\nvoid after(int x)\n{\n}\n"
    )
    by_path = _sections("std/harbour/digest.d", text)
    assert list(by_path) == ["struct TideDigest", "struct TideDigest > start()", "after()"]
    assert "useTheDigest(d)" in by_path["struct TideDigest"]
    assert "useTheDigest" not in by_path["struct TideDigest > start()"]


def test_a_make_dependency_file_is_not_a_document() -> None:
    # what `gcc -MD` writes next to each object of a C project's build
    deps = "build/tide.o build/tide.d: src/tide.c src/tide.h \\\n /usr/include/stdio.h\n"
    with pytest.raises(SkipFile) as skipped:
        load("build/tide.d", deps.encode())
    assert is_no_text(str(skipped.value)), skipped.value
    # D whose first line has a colon is D
    assert _sections("x.d", "import std.stdio : writeln;\nvoid main()\n{\n}\n")


def test_d_code_that_names_nothing_is_headed_by_its_module_or_file_never_untitled() -> None:
    """review74: a DTrace script (`*.d` too, no `module` line, no D definitions) was one
    `(untitled)` chunk; Phobos's `deprecated module std.experimental.checkedint;` was not
    read as its module line, and core.sys.windows.ocidl's many one-line interfaces, merged
    past the section budget, were `(untitled)` (57 such chunks in LDC 1.30's 674 files)."""
    dtrace = (
        "#!/usr/sbin/dtrace -s\n/*\n * Count the tides each process reads.\n */\n"
        '#pragma D option quiet\n\nsyscall::read:entry\n/execname != "dtrace"/\n{\n'
        "\t@tides[execname] = count();\n}\n"
    )
    by_path = _sections("probes/tides.d", dtrace)
    # (read as DTrace since readers75: its probe clause heads its own section)
    assert list(by_path) == ["tides.d", "syscall::read:entry"], list(by_path)
    assert "Count the tides each process reads." in by_path["tides.d"]
    deprecated = (
        "/**\n * This module is now deprecated, use std.harbour.\n */\n"
        'deprecated("use std.harbour") module std.experimental.tides;\n\n'
        "public import std.harbour;\n"
    )
    assert list(_sections("std/experimental/tides.d", deprecated)) == [
        "module std.experimental.tides"
    ]
    interfaces = "module core.sys.windows.tides;\n\n" + "".join(
        f"interface ITide{i} : IUnknown {{}}\n\n" for i in range(400)
    )
    headings = list(_sections("core/sys/windows/tides.d", interfaces))
    assert "(untitled)" not in " ".join(headings) and headings, headings


def test_an_attribute_or_type_constructor_with_parentheses_names_no_function() -> None:
    """review74: `@safe pure nothrow @nogc package(std):` (an attribute label over the rest
    of the module) was headed `package()` and cut the module there, and a variable
    `extern immutable(char)* tide_version;` was a function `immutable()`: 360 such
    headings over LDC 1.30's Phobos and druntime."""
    text = (
        "module std.internal.tides;\n\n@safe pure nothrow @nogc package(std):\n\n"
        "enum tideTable = [1, 2, 3];\n\nextern immutable(char)* tide_version;\n\n"
        "/// The tide at `hour`.\nint tideAt(int hour)\n{\n    return tideTable[hour];\n}\n"
    )
    by_path = _sections("std/internal/tides.d", text)
    assert list(by_path) == ["module std.internal.tides", "tideAt()"], list(by_path)
    assert "package(std):" in by_path["module std.internal.tides"]
    assert "tide_version" in by_path["module std.internal.tides"]


def test_a_dependency_file_of_a_program_or_library_is_not_a_document() -> None:
    """review74: the rule's targets had to be objects or `.d` files, so the dependency file
    of a program (`gcc -MMD -o tides tides.c`: `tides: tides.c tides.h`) or of cargo's
    uplifted binaries and libraries (`target/debug/tides.d`) was read as D, a chunk of file
    names; a D file whose first line has a colon is still D."""
    for name, deps in (
        ("tides.d", "tides: tides.c tides.h\n"),
        ("target/debug/tides.d", "/src/tides/target/debug/tides: /src/tides/src/main.rs\n"),
        ("target/debug/libtides.d", "/src/t/target/debug/libtides.rlib: /src/t/src/lib.rs \\\n"),
    ):
        with pytest.raises(SkipFile):
            load(name, deps.encode())
    for d_code in (
        "class Tide : std.harbour.Base\n{\n    int height;\n}\n",
        "private:\nint tideAt(int hour)\n{\n    return hour;\n}\n",
        "// Tides: the table below.\nimmutable tides = [1, 2];\n",
    ):
        assert _sections("tides.d", d_code), d_code


TOKEN_STRINGS = """module std.harbour.mixins;

/// Generates the tide accessors.
enum tideAccessors = q{
int highTide(int day)
{
    return day;
}
};

/// The same, as a heredoc.
enum lowTides = q"EOS
string quoted(int day)
{
    return "ebb";
}
int lowTide(int day)
{
}
EOS";

/// And in brackets, which nest.
enum slackTides = q"(
int slackTide(int day) (nested)
{
}
)";

/// Mixes them in.
void mixTides()
{
    mixin(tideAccessors);
}
"""


def test_code_in_a_token_string_or_a_delimited_string_is_no_declaration() -> None:
    """nu73b: D's `q{ … }` token strings and `q"EOS … EOS"` / `q"( … )"` delimited strings
    were not read as strings (a `q"…"` only as far as its first inner `"`), so code in one
    at the margin headed a section of its own."""
    by_path = _sections("std/harbour/mixins.d", TOKEN_STRINGS)
    assert list(by_path) == ["module std.harbour.mixins", "mixTides()"], list(by_path)
    text = by_path["module std.harbour.mixins"]
    for kept in ("int highTide(int day)", "int lowTide(int day)", "int slackTide(int day)"):
        assert kept in text  # the strings' code is kept, under the declaration holding it


BRACES_IN_STRINGS = """module std.harbour.log;

/// Generates the tide logger: its strings, characters and comments hold braces.
enum tideLogger = q{
void logTide(int day)
{
    write("}");  // closes nothing: }
    write('}', `}`, r"}");
    /* } */ /+ } +/
}
void highWater(int day)
{
}
};

/// Mixes it in.
void mixLogger()
{
    mixin(tideLogger);
}
"""


def test_a_brace_in_a_string_or_comment_inside_a_token_string_is_no_brace() -> None:
    """fixes74 read `q{ … }` as a string by counting its braces, those inside a string, a
    character or a comment in it too: `q{ write("}"); }` ended at that `"}"`, and the code
    after it at the margin (still in the token string) headed sections (readers75). A token
    string holds D's tokens, and a brace in one of its strings is text."""
    by_path = _sections("std/harbour/log.d", BRACES_IN_STRINGS)
    assert list(by_path) == ["module std.harbour.log", "mixLogger()"], list(by_path)
    assert "void highWater(int day)" in by_path["module std.harbour.log"]


# In the shape of Erlang/OTP's DTrace examples (Debian 12's erlang-runtime-tools,
# runtime_tools/examples/*.d): a usage comment, a licence, then probe clauses.
DTRACE = """/* example usage: dtrace -q -s /path/to/berths.d */
/*
 * Licensed under the Harbour Licence.
 */

#pragma D option quiet

BEGIN
{
    printf("Tracing berths... Hit Ctrl-C to end.\\n");
}

/* a ship is moored: its berth and the tide */
harbour*:::berth-moor
/arg2 == 0/
{
    @moored[copyinstr(arg0)] = count();
}

harbour*:::berth-moor
/arg2 != 0/
{
    printf("moored at high water %s\\n", copyinstr(arg0));
}

syscall::read:entry,
syscall::write:entry
/execname == "harbour"/
{
    @io[probefunc] = count();
}
"""


def test_a_dtrace_script_is_read_by_its_probe_clauses_not_as_d() -> None:
    """review74 left it: a DTrace script is named `.d` too, and was read as D, one section
    headed by its file's name (Erlang/OTP's 11 DTrace examples, each one chunk). It is
    told by what it holds (a `#!…dtrace` line, `#pragma D`, a probe description
    `provider:module:function:name` at the margin) and each probe clause heads its
    section, with the comments above it; clauses of one probe in a row are one section,
    and a probe list its first probe's (readers75)."""
    by_path = _sections("examples/berths.d", DTRACE)
    assert list(by_path) == [
        "berths.d",
        "BEGIN",
        "harbour*:::berth-moor",
        "syscall::read:entry, syscall::write:entry",
    ], list(by_path)
    assert "Licensed under the Harbour Licence." in by_path["berths.d"]
    moor = by_path["harbour*:::berth-moor"]
    assert "a ship is moored: its berth and the tide" in moor
    assert "moored at high water" in moor
    script = "#!/usr/sbin/dtrace -s\n\nsyscall::open:entry\n{\n    trace(copyinstr(arg0));\n}\n"
    assert list(_sections("opens.d", script)) == ["opens.d", "syscall::open:entry"]
