"""PHP and Lua are cut at their definitions and headed by them.

league/commonmark 2.3.9 as Debian installs it (`/usr/share/php/League/CommonMark`, 283
files) was read one `(untitled)` section a file: a 500-line `Parser/Cursor.php` was cited
as `Cursor.php:(untitled)` with lines 156–224, whatever method the passage was in
(newuser40). A PHP class (a PSR-4 file holds one) is now headed `class Cursor`, each of its
methods `class Cursor > function advance`, with the doc comment above it; Lua's functions
(`function List:append`, `local function makelist`, `path.mkdir = function`) are headed as
Go's are, and the code before them by LDoc's `@module` or `@classmod` tag (`module pl.path`),
as Go's by its package clause."""

from __future__ import annotations

from tests.support.code_sections import assert_every_line_kept, sections_of

CURSOR = b"""<?php

declare(strict_types=1);

namespace League\\CommonMark\\Parser;

use League\\CommonMark\\Exception\\UnexpectedEncodingException;

/**
 * A cursor over one line of input.
 */
final class Cursor
{
    public const INDENT_LEVEL = 4;

    private string $line;

    public function __construct(string $line)
    {
        $this->line = $line;
    }

    /**
     * Move the cursor forwards by the given number of characters.
     */
    #[\\ReturnTypeWillChange]
    public function advanceBy(int $characters): void
    {
        $sorter = function (string $a, string $b): int {
            return $a <=> $b;
        };
        $helper = new class {
            public function tabWidth(): int
            {
                return 4;
            }
        };
    }

    private static function &lookup(string $key): array
    {
        return self::$cache[$key];
    }
}
"""

HELPERS = b"""<?php

interface Renderer
{
    public function render(Node $node): string;
}

function render_all(array $nodes): string
{
    return '';
}
"""

LIST_LUA = b"""--- Python-style list class.
-- @classmod pl.List
local List = {}

local function makelist(t)
    return setmetatable(t, List)
end

--- Add an item to the end of the list.
-- @param i An item
function List:append(i)
    self[#self + 1] = i
    return self
end

function List.range(start, finish)
    return makelist({})
end

return List
"""


def test_a_php_class_is_headed_by_its_name_and_each_method_by_its_own() -> None:
    sections = sections_of("Cursor.php", CURSOR)
    assert list(sections) == [
        "(untitled)",
        "class Cursor",
        "class Cursor > function __construct",
        "class Cursor > function advanceBy",
        "class Cursor > function lookup",
    ]
    assert "A cursor over one line of input." in sections["class Cursor"]
    assert "INDENT_LEVEL = 4" in sections["class Cursor"]
    method = sections["class Cursor > function advanceBy"]
    assert "Move the cursor forwards" in method  # its doc comment and attribute go with it
    assert "#[\\ReturnTypeWillChange]" in method
    # A closure's and an anonymous class's methods, deeper in, stay in the method.
    assert "function tabWidth" in method
    assert "$sorter = function" in method


def test_every_line_of_a_php_file_is_kept_once_at_its_own_line_number() -> None:
    assert_every_line_kept("Cursor.php", CURSOR)


def test_a_php_interface_and_a_function_are_headed_too() -> None:
    sections = sections_of("helpers.php", HELPERS)
    assert "interface Renderer > function render" in sections
    assert "function render_all" in sections
    assert "return '';" in sections["function render_all"]


def test_lua_functions_are_headed_with_their_doc_comments() -> None:
    sections = sections_of("List.lua", LIST_LUA)
    assert "function makelist" in sections
    assert "function List.range" in sections
    append = sections["function List:append"]
    assert "Add an item to the end of the list." in append
    assert "self[#self + 1] = i" in append
    assert "@classmod pl.List" in sections["class pl.List"]  # LDoc's tag heads the preamble


# Penlight 1.13.1's path.lua (Debian's lua-penlight) writes some of its functions as
# assignments; they were the tail of `function err_func` (newuser43).
PATH_LUA = b"""--[[--
Path manipulation and file queries.

@module pl.path
]]
local lfs = require 'lfs'

local function err_func(name, err)
  return ("%s failed: %s"):format(name, err)
end

--- Lua iterator over the entries of a given directory.
-- @function dir
path.dir = lfs.dir

--- Creates a directory.
-- @function mkdir
path.mkdir = function(d)
  local ok, err = lfs.mkdir(d)
  if not ok then return ok, err_func("mkdir", err) end
  return ok
end

local render = function (self, env) return self.text end
path.functional = functional_style
path.sep = '/'

function path.splitpath(P)
  return P:match("^(.-)([^/]*)$")
end
"""


def test_lua_functions_assigned_to_a_name_are_headed_by_it() -> None:
    sections = sections_of("path.lua", PATH_LUA)
    assert list(sections) == [
        "module pl.path",
        "function err_func",
        "function path.mkdir",
        "function render",
        "function path.splitpath",
    ]
    assert "Path manipulation and file queries." in sections["module pl.path"]
    assert "path.dir = lfs.dir" in sections["function err_func"]  # an alias is no function
    mkdir = sections["function path.mkdir"]
    assert "Creates a directory." in mkdir  # its doc comment goes with it
    assert 'err_func("mkdir", err)' in mkdir
    assert "path.functional = functional_style" in sections["function render"]


def test_every_line_of_a_lua_module_is_kept_once_at_its_own_line_number() -> None:
    assert_every_line_kept("path.lua", PATH_LUA)


def test_a_lua_script_without_a_module_tag_keeps_an_untitled_preamble() -> None:
    script = b"-- which.lua: find a program on PATH\nlocal path = require 'pl.path'\n\n"
    script += b"local function which(name)\n  return path.exists(name)\nend\n"
    sections = sections_of("which.lua", script)
    assert list(sections) == ["(untitled)", "function which"]


KOTLIN = b"""package harbour

import java.time.Duration

/** A berth booked by the week. */
data class Berth(val id: Int) {
    /** Weeks left on the booking. */
    fun weeksLeft(today: Int): Int {
        val later = fun(x: Int): Int { return x + 1 }
        return later(today)
    }

    override fun toString(): String = "Berth($id)"

    companion object {
        fun create(): Berth = Berth(0)
    }
}

fun <T : Comparable<T>> sortBerths(items: List<T>): List<T> = items.sorted()

fun String.isBerthCode(): Boolean = startsWith("B")
"""

SWIFT = b"""import Foundation

/// A tide table read from tides.csv.
public struct TideTable {
    let rows: [Double]

    /// The height at an hour.
    public func height(at hour: Int) -> Double {
        return rows[hour]
    }

    @discardableResult
    mutating func append(_ value: Double) -> Int {
        return rows.count
    }
}

func loadTides() -> TideTable {
    return TideTable(rows: [])
}
"""

SCALA = b"""package harbour

/** Moorings by the season. */
final case class Mooring(id: Int) {
  /** The fee for a season. */
  def fee(season: String): Int = 100

  override def toString: String = s"Mooring($id)"
}

object Moorings {
  def all(): Seq[Mooring] = Seq.empty
}
"""


def test_kotlin_swift_and_scala_types_are_headed_with_their_functions() -> None:
    """Read by default since chunker 65, each file was one `(untitled)` section too."""
    kotlin = sections_of("Berth.kt", KOTLIN)
    assert "Weeks left on the booking." in kotlin["class Berth > fun weeksLeft"]
    assert "val later = fun(x: Int)" in kotlin["class Berth > fun weeksLeft"]
    assert "class Berth > fun toString" in kotlin
    assert "fun create()" in kotlin["class Berth > fun toString"]  # deeper in: stays
    assert "items.sorted()" in kotlin["fun sortBerths"]
    assert "startsWith" in kotlin["fun String.isBerthCode"]
    swift = sections_of("TideTable.swift", SWIFT)
    assert "The height at an hour." in swift["struct TideTable > func height"]
    assert "rows.count" in swift["struct TideTable > func append"]
    assert "@discardableResult" in swift["struct TideTable > func append"]
    assert "@discardableResult" not in swift["struct TideTable > func height"]
    assert "TideTable(rows: [])" in swift["func loadTides"]
    scala = sections_of("Mooring.scala", SCALA)
    assert "The fee for a season." in scala["class Mooring > def fee"]
    assert "Seq.empty" in scala["object Moorings > def all"]
