"""Crystal and Nim sources (held out as nu71a, Crystal 1.6's `http/`, and nu71b, Nim 1.6's
`collections/`, both as Debian 12 ships them). Their documentation is the `#` comments
above Crystal's definitions and the `##` comments inside Nim's routines; `.cr` and `.nim`
had not been read at all: both folders were no document, 7 and 10 of their 10 questions
refused (newuser71)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse as load
from ragd.ingest.parse_pool import shared_pool

# Written here in the shape of a Crystal standard-library file: one class a file, its
# methods with the comments above them, a private one, an abstract one in a module (no
# body, no `end`), a macro loop defining methods, an enum with a method.
CRYSTAL = b"""require "./quay"

# A harbour's pilot boat service.
class Harbour::Pilot
  # Sets how long to wait for a pilot before giving up, in minutes.
  def wait_limit=(minutes : Int32)
    @wait_limit = minutes
  end

  private def radio_channel : Int32
    16
  end

  {% for tide in %w(high low) %}
    def {{tide.id}}_water
      @tides[{{tide}}]
    end
  {% end %}

  module Berth
    # Moors the ship at this berth.
    abstract def moor(ship : Ship)

    def unmoor(ship : Ship)
      ship.free
    end
  end

  # How a ship is signalled in.
  enum Signal
    Flag
    Lamp

    def visible_at_night? : Bool
      lamp?
    end
  end
end
"""

CRYSTAL_HEADINGS = (
    "class Harbour::Pilot > def wait_limit=",
    "class Harbour::Pilot > def radio_channel",
    "class Harbour::Pilot",  # the macro loop's own lines: the class's code
    "class Harbour::Pilot > def {{tide.id}}_water",
    "class Harbour::Pilot > module Berth > def moor",
    "class Harbour::Pilot > module Berth > def unmoor",
    "class Harbour::Pilot > enum Signal",
    "class Harbour::Pilot > enum Signal > def visible_at_night?",
)

# A Nim module in the shape of the standard library's: licence, `##` module documentation
# in reST, a `type` section of two types, routines whose `##` documentation follows their
# signature, an operator in backquotes, an exported iterator.
NIM = b"""#
#            Harbour's Runtime Library
#        (c) Copyright 2024 A. Harbourmaster
#

## The `berths` module implements a `berth table`:idx: that
## maps quays to ships. See `quays module <quays.html>`_ too.
##
## Basic usage
## ===========
##
## Build the table once a season.

runnableExamples:
  let t = newBerthTable[int]()

##
## ----
##
## ## Hashing
## Quays are hashed by their number.

import std/hashes

type
  Berth*[T] = object
    ## One berth at a quay.
    ship: T
  BerthTable*[T] = ref object
    ## Berths by quay, in the order they were built.
    data: seq[Berth[T]]

proc getBerth*[T](t: BerthTable[T], quay: int, default: T): T =
  ## Retrieves the ship at `quay`. Otherwise, `default` is returned.
  result = default

func `$`*[T](b: Berth[T]): string =
  ## The berth as text.
  result = $b.ship

iterator emptyBerths*[T](t: BerthTable[T]): int =
  ## Yields every quay whose berth holds no ship.
  for i in 0 ..< t.data.len: yield i
"""

NIM_MODULE = "The berths module implements a berth table that maps quays to ships."
NIM_HEADINGS = (
    NIM_MODULE,
    f"{NIM_MODULE} > Basic usage",
    f"{NIM_MODULE} > Hashing",
    "type",
    "type > Berth*[T] = object",
    "type > BerthTable*[T] = ref",
    "proc getBerth",
    "func `$`",
    "iterator emptyBerths",
)


def _sections(name: str, data: bytes) -> dict[str, str]:
    by_path: dict[str, str] = {}
    for chunk in chunk_document(load(name, data)):
        by_path[chunk.heading_path] = by_path.get(chunk.heading_path, "") + chunk.text
    return by_path


def test_crystal_and_nim_files_are_indexed_by_default() -> None:
    include = PathFilter(DEFAULT_INCLUDE)
    assert include.includes("http/server/handlers/static_file_handler.cr")
    assert include.includes("collections/tables.nim")


def test_crystal_is_split_at_its_definitions_at_every_depth() -> None:
    by_path = _sections("harbour/pilot.cr", CRYSTAL)
    assert tuple(by_path) == CRYSTAL_HEADINGS
    # the class holds nothing before its first method: its lines, the comment above it
    # and the `require` go with that method's, the comment above it too
    first = by_path["class Harbour::Pilot > def wait_limit="]
    assert 'require "./quay"' in first and "pilot boat service" in first
    assert "how long to wait for a pilot" in first
    # an abstract method has no `end`: the method after it is its module's, not inside it
    assert "Moors the ship" in by_path["class Harbour::Pilot > module Berth > def moor"]
    assert "ship.free" in by_path["class Harbour::Pilot > module Berth > def unmoor"]
    assert "signalled in" in by_path["class Harbour::Pilot > enum Signal"]


def test_nim_is_split_at_its_routines_and_types_with_their_documentation() -> None:
    by_path = _sections("collections/berths.nim", NIM)
    assert tuple(by_path) == NIM_HEADINGS
    # the module's licence and documentation under its first sentence, reST marks out
    assert "Harbourmaster" in by_path[NIM_MODULE] and "maps quays" in by_path[NIM_MODULE]
    assert "in the order they were built" in by_path["type > BerthTable*[T] = ref"]
    assert "`default` is returned" in by_path["proc getBerth"]
    assert "holds no ship" in by_path["iterator emptyBerths"]


def test_a_nim_module_s_documentation_is_split_at_its_own_section_titles() -> None:
    # a reST title over its rule and a Markdown `## ## Title` (as tables.nim writes its
    # own), each with its text and examples; a rule alone (`## ----`) is no title
    by_path = _sections("collections/berths.nim", NIM)
    usage = by_path[f"{NIM_MODULE} > Basic usage"]
    assert "once a season" in usage and "newBerthTable" in usage and "----" in usage
    assert "hashed by their number" in by_path[f"{NIM_MODULE} > Hashing"]


# A routine one indent in under a `when` (or its `else:`) at the margin, as osproc.nim
# writes its Windows and POSIX halves: 1,783 routines in Debian 12's nim 1.6.10 are so,
# and each had been cited as the margin definition above the `when` (review72).
NIM_WHEN = b"""proc tideTable*(port: string): seq[int] =
  ## The day's tides at `port`.
  result = @[]

template lockAccess(p) =
  assert p.locked

when defined(windows):
  proc openSluice(gate: Gate) =
    ## Opens the sluice through the Windows driver.
    winOpen(gate.handle)

  proc closeSluice(gate: Gate) =
    winClose(gate.handle)
else:
  proc openSluice(gate: Gate) =
    ## Opens the sluice through a POSIX device file.
    posixOpen(gate.fd)
"""


def test_a_nim_routine_under_a_when_is_headed_by_itself_not_the_one_above() -> None:
    by_path = _sections("pure/sluices.nim", NIM_WHEN)
    assert "winOpen" not in by_path["template lockAccess"]
    windows = [path for path, text in by_path.items() if "winOpen" in text]
    posix = [path for path, text in by_path.items() if "posixOpen" in text]
    assert windows == ["when defined(windows): > proc openSluice"], by_path.keys()
    assert posix == ["else: > proc openSluice"], by_path.keys()
    assert "winClose" in by_path["when defined(windows): > proc closeSluice"]


# Written here in the shapes of Debian 12's crystal and nim files that had `(untitled)`
# chunks: a Crystal file whose requires sit in macro conditions above its class
# (`http/web_socket/protocol.cr`), one of macro code and no definition at the margin
# (`interpreter/instructions.cr`, 2,073 lines in `{% begin %}`), a Nim module with a
# licence and no `##` summary whose many small sections run past the section budget
# (`wrappers/odbcsql.nim`: `when`, `else:` and `type` sections of one line each).
CRYSTAL_REQUIRES = b"""require "socket"
{% if flag?(:without_openssl) %}
  require "crystal/digest/sha1"
{% else %}
  require "digest/sha1"
{% end %}

class Harbour::Signal
  def raise_flag
  end
end
"""
CRYSTAL_MACROS = b"""require "./repl"

# Every signal a pilot boat may send.
{% begin %}
  Harbour::Signals = {
    hoist: {code: 1},
    lower: {code: 2},
  }
{% end %}
"""
NIM_WRAPPER = b"#\n#    Harbour's wrapper, (c) the authors\n#\n" + b"".join(
    b"when defined(quay%d):\n  const berth%d* = %d\nelse:\n  const berth%d* = 0\n" % (n, n, n, n)
    for n in range(400)
)


def test_code_that_names_nothing_is_headed_by_the_file() -> None:
    """Crystal and Nim code before a file's first definition, or past the section budget
    in runs of sections that share no heading, had been cited `(untitled)`: 156 chunks of
    124 files of Debian 12's crystal 1.6.0 and 184 of 100 files of nim 1.6.10 (readers73).
    A Crystal file's requires and macro conditions go with its first definition, as a
    Ruby gem's requires do; other code is headed by the file's name (`instructions.cr`),
    and a Nim module's by the module (`module odbcsql`, as `import odbcsql` names it)."""
    requires = chunk_document(load("protocol.cr", CRYSTAL_REQUIRES))
    assert [chunk.heading_path for chunk in requires] == ["class Harbour::Signal > def raise_flag"]
    assert 'require "digest/sha1"' in requires[0].text
    macros = chunk_document(load("instructions.cr", CRYSTAL_MACROS))
    assert [chunk.heading_path for chunk in macros] == ["instructions.cr"]
    wrapper = chunk_document(load("lib/wrappers/odbcsql.nim", NIM_WRAPPER))
    paths = [chunk.heading_path for chunk in wrapper]
    assert paths[0] == "module odbcsql" and "(untitled)" not in paths, paths
    assert paths.count("module odbcsql") > 2  # the merged runs
    assert any("berth399" in chunk.text for chunk in wrapper)
    pooled = chunk_document(shared_pool().parse("lib/wrappers/odbcsql.nim", NIM_WRAPPER))
    assert [chunk.heading_path for chunk in pooled] == paths  # as the parse worker replies
