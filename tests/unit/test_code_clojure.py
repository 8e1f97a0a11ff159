"""Clojure (a library's sources: Debian's lib*-clojure packages ship them in their jars,
core.async's in libcore-async-clojure; held out as nu70b). Their documentation is the
docstrings and `;;` comments, and `.clj`/`.cljs` had not been read at all: core.async's 29
files were no document: 7 of its 10 questions refused, the rest answered from its README
(newuser70)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse as load

# Written here in the shape of a channel library's file: a namespace whose name sits on
# the line after its metadata, functions with docstrings (one with a line that opens like
# a definition, one a private function with metadata before its name), a character `\"`
# that opens no string, a multimethod's methods one after another, a protocol.
SOURCE = b""";; Copyright the harbour authors.

(ns ^{:skip-wiki true}
  harbour.tides
  (:require [harbour.impl :as impl]))

(def quote-char \\")

;; Tides are read once a day.
(defn next-high-water
  "Returns the time of the next high water at quay.
(defn not-a-definition []
  inside the docstring)
Times are in UTC."
  [quay]
  (get @tide-table quay))

(defn- ^:private ^String refresh-table
  "Reads the table again; never blocks."
  [table]
  (reset! table {}))

(defmulti berth :kind)

(defmethod berth :ferry [ship]
  (:ro-ro ship))

(defmethod berth :tanker [ship]
  (:pipeline ship))

(defprotocol Dock
  (moor [dock ship] "Moors ship at dock."))
"""

HEADINGS = (
    "ns harbour.tides",
    "def quote-char",
    "defn next-high-water",
    "defn- refresh-table",
    "defmulti berth",
    "defmethod berth",
    "defprotocol Dock",
)


def test_clojure_files_are_indexed_by_default() -> None:
    include = PathFilter(DEFAULT_INCLUDE)
    assert include.includes("src/clojure/core/async.clj")
    assert include.includes("src/cljs/core/async.cljs")
    assert include.includes("src/harbour/shared.cljc")


def test_clojure_is_split_at_its_definitions_with_their_docstrings() -> None:
    chunks = chunk_document(load("harbour/tides.clj", SOURCE))
    by_path: dict[str, str] = {}
    for chunk in chunks:
        by_path[chunk.heading_path] = by_path.get(chunk.heading_path, "") + chunk.text
    assert tuple(by_path) == HEADINGS
    # the namespace's name on the line after its metadata heads the code before the
    # first definition, the licence comment with it
    assert "Copyright the harbour authors" in by_path["ns harbour.tides"]
    high = by_path["defn next-high-water"]
    # the comment above and the whole docstring go with the function; a docstring's line
    # opening with `(defn` is no definition, and the character `\"` above opened no string
    assert "read once a day" in high and "inside the docstring" in high
    assert "Times are in UTC" in high
    assert "never blocks" in by_path["defn- refresh-table"]
    berth = by_path["defmethod berth"]  # a multimethod's methods: one section
    assert ":ro-ro" in berth and ":pipeline" in berth
    assert "Moors ship at dock" in by_path["defprotocol Dock"]


def test_a_namespace_whose_metadata_holds_its_docstring_is_headed_by_its_name() -> None:
    # as Clojure's own `clojure.string`: a `:doc` over lines, naming another namespace
    # and holding braces, before the name
    source = b"""(ns ^{:doc "Tide utilities.

It is poor form to (:use harbour.tides). Use require:

(ns your.namespace.here
  (:require [harbour.tides :as tides]))

Tables look like {:quay {:high 4.1}}."
       :author "A. Harbourmaster"}
  harbour.tides
  (:require [clojure.string :as str]))

(defn high [] 4.1)
"""
    chunks = chunk_document(load("harbour/tides.clj", source))
    assert chunks[0].heading_path == "ns harbour.tides"
    assert "poor form" in chunks[0].text


def test_a_file_loaded_into_another_namespace_is_headed_by_it() -> None:
    source = b";; Printing tide tables.\n\n(in-ns 'harbour.tides)\n\n(defn print-table [t] t)\n"
    chunks = chunk_document(load("harbour/tides_print.clj", source))
    assert [chunk.heading_path for chunk in chunks] == ["in-ns harbour.tides", "defn print-table"]


def test_a_leiningen_project_file_is_headed_by_its_project() -> None:
    """Every Leiningen project has a `project.clj` of one `defproject` form, its name,
    version, description and dependencies: it had been one `(untitled)` chunk (the three
    in clj-time 0.15.2's, core.match 1.0.0's and cheshire 5.11.0's Debian jars, review71)."""
    source = (
        b'(defproject harbour/tides "0.4.1"\n'
        b'  :description "Tide tables for a harbour."\n'
        b'  :dependencies [[org.clojure/clojure "1.11.1"]])\n'
    )
    (chunk,) = chunk_document(load("project.clj", source))
    assert chunk.heading_path == "defproject harbour/tides"
    assert "Tide tables for a harbour." in chunk.text


# Written here in the shapes of Debian's Clojure jars: a walkthrough of forms under
# `;;;;` headings (core.async's `walkthrough.clj`), a banner closed by its semicolons
# (core.async's `;;;;;;;;;; ops ;;;;;;;;;;`), a title boxed by rules (tools.reader's), a
# Markdown heading under a rule (core.match's `;; ## Bind Node`), and a `;;;` top-level
# comment that is a sentence, no heading.
HEADED = b""";; This walkthrough introduces the berths.

(ns harbour.walk)

;;;; MOORINGS

;; Use `moor` to tie up a boat:
(moor :north)

;;;; CASTING OFF

(cast-off :north)

;;;;;;;;;;;;;;;;;;;; ops ;;;;;;;;;;;;;;;;;;;;

(defn dredge "Deepens a berth." [berth] berth)

;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;
;; helpers
;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;

(defn- depth [berth] 12)

;;; these are down here because they alias core fns, don't want accidents above

(defn reduce [f init ch] init)

;; -----------------------------------------------------------------------------
;; ## Tide Node

(defrecord TideNode [height])
"""


def test_comment_headings_head_the_forms_below_them() -> None:
    """A `;;;;` heading, a banner and a boxed title head the forms below them: core.async's
    walkthrough.clj, all top-level forms under five `;;;;` headings, had been one
    `(untitled)` section, and async.clj's `ops` banner was a comment inside the function
    above it (readers73). A `;;;` sentence is a comment, as Clojure's style guide says."""
    chunks = chunk_document(load("walk.clj", HEADED))
    by_path = {chunk.heading_path: chunk.text for chunk in chunks}
    assert list(by_path) == [
        "ns harbour.walk",
        "MOORINGS",
        "CASTING OFF",
        "ops > defn dredge",
        "helpers > defn- depth",
        "helpers > defn reduce",
        "Tide Node > defrecord TideNode",
    ]
    assert "(moor :north)" in by_path["MOORINGS"] and "cast-off" not in by_path["MOORINGS"]
    assert any("these are down here" in text for text in by_path.values())  # kept as text


def test_a_script_with_no_namespace_is_headed_by_its_file_name() -> None:
    """review74: an example script that `require`s what it uses, with no `ns` form (the
    four `examples/ex-*.clj` of core.async's doc folder, held out in nu70b), opened with
    an `(untitled)` chunk."""
    source = (
        b"(require '[harbour.tides :as tides :refer [table]])\n\n"
        b"(defn high-water [t]\n  (apply max (table t)))\n"
    )
    chunks = chunk_document(load("examples/ex-tides.clj", source))
    headings = [chunk.heading_path for chunk in chunks]
    assert headings == ["ex-tides.clj", "defn high-water"], headings
    assert "(require '[harbour.tides" in chunks[0].text
