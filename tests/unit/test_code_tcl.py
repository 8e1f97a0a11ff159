"""Tcl is cut at its definitions and headed by them.

tcllib 1.21 as Debian installs it (`/usr/share/tcltk/tcllib1.21`) was not indexed at all:
`*.tcl` was in no default pattern, and an included `.tcl` file was one `(untitled)` section
(newuser45). A `proc` at the margin is now headed by its name (`proc ::csv::split`, its
comment block above it kept with it), a `namespace eval`, a snit type and a TclOO class by
theirs with their procs and methods one level below, and the code before them by the
`package provide` line there (`package csv`), as Go's by its package clause."""

from __future__ import annotations

from ragd.ingest.formats.code import parse
from ragd.ingest.shebang import script_suffix
from tests.support.code_sections import assert_every_line_kept, sections_of

CSV_TCL = b"""# csv.tcl --
#
#\tTcl implementations of CSV reader and writer
#

package require Tcl 8.4
package provide csv 0.8.1

namespace eval ::csv {
    namespace export join split
}

# ::csv::join --
#
#\tTakes a list of values and generates a string in CSV format.

proc ::csv::join {values {sepChar ,} {delChar \\"}} {
    set out ""
    foreach val $values {
\tappend out $sep$val
    }
    return $out
}

# ::csv::split --
#
#\tSplit a string according to the rules for CSV processing.
proc ::csv::split {args} {
    # proc inside a comment, indented: no definition
    return [Split {*}$args]
}
"""

QUEUE_TCL = b"""package require TclOO

namespace eval ::struct::queue {
    variable counter 0

    # Drop every item of the queue.
    proc clear {name} {
        variable queues
        set queues($name) {}
    }

    proc size {name} {
        return 0
    }
}

oo::class create ::struct::queue::queue_oo {
    variable qat qret qadd

    constructor {} {
        set qat 0
    }

    # Return the front item without removing it.
    method peek {{count 1}} {
        return [lindex $qret $qat]
    }
}

proc ::logger::init {service} {
    namespace eval ::logger::tree::$service {
        variable enabled 1
    }

    # Set the level below which messages are dropped.
    proc setlevel {lv} {
        set enabled $lv
        proc ${lv}cmd args {}
    }

    proc delete {} {
        unset enabled
    }
    return ::logger::tree::$service
}

snit::type ::logger::service {
    option -level info
    method setlevel {level} {
        set options(-level) $level
    }
}
"""


def test_tcl_procs_are_headed_by_their_names_with_their_comment_blocks() -> None:
    sections = sections_of("csv.tcl", CSV_TCL)
    assert list(sections) == [
        "package csv",
        "namespace eval ::csv",
        "proc ::csv::join",
        "proc ::csv::split",
    ]
    assert "Tcl implementations of CSV reader and writer" in sections["package csv"]
    join = sections["proc ::csv::join"]
    assert "Takes a list of values and generates a string in CSV format." in join
    assert "append out $sep$val" in join
    split = sections["proc ::csv::split"]
    assert "Split a string according to the rules for CSV processing." in split
    assert "proc inside a comment" in split  # an indented comment line heads nothing


def test_procs_and_methods_inside_a_namespace_or_class_are_its_members() -> None:
    sections = sections_of("queue.tcl", QUEUE_TCL)
    assert list(sections) == [
        "(untitled)",  # no `package provide` before the first definition
        "namespace eval ::struct::queue",
        "namespace eval ::struct::queue > proc clear",
        "namespace eval ::struct::queue > proc size",
        "oo::class create ::struct::queue::queue_oo",
        "oo::class create ::struct::queue::queue_oo > constructor",
        "oo::class create ::struct::queue::queue_oo > method peek",
        "proc ::logger::init",
        "proc ::logger::init > proc setlevel",
        "proc ::logger::init > proc delete",
        "snit::type ::logger::service",
        "snit::type ::logger::service > method setlevel",
    ]
    # A proc's own procs are its members; one deeper in stays in the proc it is in.
    setlevel = sections["proc ::logger::init > proc setlevel"]
    assert "Set the level below which messages are dropped." in setlevel
    assert "proc ${lv}cmd args {}" in setlevel
    assert "return ::logger::tree::$service" in sections["proc ::logger::init > proc delete"]
    assert "variable enabled 1" in sections["proc ::logger::init"]
    clear = sections["namespace eval ::struct::queue > proc clear"]
    assert "Drop every item of the queue." in clear
    assert "variable counter 0" in sections["namespace eval ::struct::queue"]
    peek = sections["oo::class create ::struct::queue::queue_oo > method peek"]
    assert "Return the front item without removing it." in peek
    assert "option -level info" in sections["snit::type ::logger::service"]


def test_every_line_of_a_tcl_file_is_kept_once_at_its_own_line_number() -> None:
    assert_every_line_kept("csv.tcl", CSV_TCL)
    assert_every_line_kept("queue.tcl", QUEUE_TCL)


def test_words_kept_in_a_tcl_file() -> None:
    """Every word of the file is in the Markdown the reader writes, in order."""
    for name, data in (("csv.tcl", CSV_TCL), ("queue.tcl", QUEUE_TCL)):
        written = parse(name, data).text.split()
        words = data.decode().split()
        at = 0
        for word in words:
            at = written.index(word, at) + 1  # raises if a word was dropped or reordered


def test_a_tclsh_script_with_no_suffix_is_read_as_tcl() -> None:
    assert script_suffix(b"#!/usr/bin/env tclsh\n## -*- tcl -*-\n") == ".tcl"
    assert script_suffix(b"#!/usr/bin/tclsh8.6\n") == ".tcl"
    assert script_suffix(b"#!/usr/bin/wish\n") == ".tcl"
    script = b"#!/usr/bin/env tclsh\npackage require csv\n\nproc usage {} {\n    puts usage\n}\n"
    sections = sections_of("csvcut", script)
    assert list(sections) == ["(untitled)", "proc usage"]


def test_a_tcl_file_s_header_is_headed_by_its_summary_or_package_index() -> None:
    """tcllib's `json_write.tcl` says `package provide` at its end: its header is headed by
    the summary under `# json_write.tcl --`; a `pkgIndex.tcl` by the package it indexes
    (newuser64: 12 of 23 files of six tcllib modules had opened `(untitled)`)."""
    header = b"# json_write.tcl --\n#\n#\tCommands for the generation of JSON.\n#\n\n"
    proc = b"proc ::json::write::string {s} {\n    return $s\n}\n"
    sections = sections_of("json_write.tcl", header + b"package require Tcl 8.5\n\n" + proc)
    assert list(sections) == ["Commands for the generation of JSON.", "proc ::json::write::string"]
    index = b"if {![package vsatisfies [package provide Tcl] 8.4]} {return}\n"
    index += b"package ifneeded csv 0.8.1 [list source [file join $dir csv.tcl]]\n"
    assert list(sections_of("pkgIndex.tcl", index)) == ["package csv"]
    plain = sections_of("x.tcl", b"# (c) 2007 A. Author\n\npackage require Tcl 8.5\n\n" + proc)
    assert list(plain) == ["(untitled)", "proc ::json::write::string"]


GAUGE_TCL = b"""package provide gauge 1.0

proc ::gauge::usage {} {
    puts "Usage: gauge station
# of the tide, read each hour
proc not_a_proc {} {}
"
    set quote \\"
    regexp {" *} $quote
}

# reads a station's level --
# the hour's level, in metres
proc ::gauge::read {station} {
    return [level $station]
}
"""


def test_a_quoted_word_over_lines_holds_no_proc_and_no_comment() -> None:
    """A usage text over lines whose lines open with `#` and read `proc not_a_proc` at the
    margin is the string's (before: `proc not_a_proc` headed a section inside it, and the
    usage proc's last lines went with it); an escaped quote and a `"` inside braces open
    no string, and the comment block above `::gauge::read` is still its own."""
    sections = sections_of("gauge.tcl", GAUGE_TCL)
    assert list(sections) == ["package gauge", "proc ::gauge::usage", "proc ::gauge::read"]
    usage = sections["proc ::gauge::usage"]
    assert "proc not_a_proc" in usage and "regexp" in usage
    assert "in metres" in sections["proc ::gauge::read"]
    assert_every_line_kept("gauge.tcl", GAUGE_TCL)
