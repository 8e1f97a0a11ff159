"""Common Lisp (a library's sources as Debian's cl-* packages ship them, Alexandria's in
/usr/share/common-lisp/source; held out as nu66b). Their documentation is the docstrings
and `;` comments, and `.lisp` had not been read at all: Alexandria's 26 files were no
document, and every question was refused (newuser66)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse as load

# Written here in the shape of a utility library's file: the package line, functions and
# macros with docstrings (one with a line that opens like a definition), a setf function,
# a generic with three methods, a forward-declared variable, a condition.
SOURCE = b"""(in-package :harbour)

;; Tides are read once a day.
(defun next-high-water (quay &key (units :metres))
  "Returns the time of the next high water at QUAY.
(defun not-a-definition ()
  \\"inside the docstring\\")
Times are in UTC."
  (gethash quay *tide-table*))

(defvar *tide-table*)

(defmacro with-tide-table ((var quay) &body body)
  "Binds VAR to the tide table of QUAY around BODY."
  `(let ((,var (table-of ,quay))) ,@body))

(defun (setf next-high-water) (time quay)
  (setf (gethash quay *tide-table*) time))

(defgeneric refresh (table))

(defmethod refresh ((table list))
  (list table #\\"))

(defmethod refresh ((table hash-table))
  (clrhash table))

(DEFMETHOD refresh ((table vector))
  (coerce table 'list))

(define-condition no-tide-table (error)
  ((quay :initarg :quay)))
"""

HEADINGS = (
    "defun next-high-water",
    "defmacro with-tide-table",
    "defun (setf next-high-water)",
    "defgeneric refresh",
    "defmethod refresh",
    "DEFMETHOD refresh",
    "define-condition no-tide-table",
)


def test_common_lisp_files_are_indexed_by_default() -> None:
    include = PathFilter(DEFAULT_INCLUDE)
    assert include.includes("source/alexandria/lists.lisp")
    assert include.includes("source/alexandria/alexandria.asd")


def test_common_lisp_is_split_at_its_definitions_with_their_docstrings() -> None:
    chunks = chunk_document(load("harbour/tides.lisp", SOURCE))
    by_path: dict[str, str] = {}
    for chunk in chunks:
        by_path[chunk.heading_path] = by_path.get(chunk.heading_path, "") + chunk.text
    assert tuple(by_path) == HEADINGS
    high = by_path["defun next-high-water"]
    # the package line alone before it is read with it: alone it was a one-line chunk
    # (nu66b), `in-package :harbour` holding `(in-package :harbour)` and nothing else
    assert high.startswith("```commonlisp\n(in-package :harbour)\n")
    # the comment above and the whole docstring go with the function; a docstring's
    # line opening with `(defun` is no definition; the forward `defvar` heads nothing
    assert "read once a day" in high and "inside the docstring" in high
    assert "Times are in UTC" in high and "(defvar *tide-table*)" in high
    # a character `#\\"` opens no string: the method after it is found, its kind read in
    # capitals too (and headed as written)
    assert "(table list)" in by_path["defmethod refresh"]
    assert "(clrhash table)" in by_path["defmethod refresh"]  # two methods, one section
    assert "(coerce table 'list)" in by_path["DEFMETHOD refresh"]


def test_an_asdf_system_is_headed_by_its_name() -> None:
    system = (
        b'(defsystem "harbour"\n  :description "Tide tables."\n  :components ((:file "tides")))\n'
    )
    chunks = chunk_document(load("harbour.asd", system))
    assert [chunk.heading_path for chunk in chunks] == ['defsystem "harbour"']


def test_in_package_with_more_before_the_first_definition_still_heads_it() -> None:
    """Code beside the package line (a `declaim`, an `export`) keeps its own section,
    headed by the package as before."""
    source = b"(in-package :harbour)\n\n(export '(tide))\n(declaim (inline tide))\n\n"
    source += b"(defun tide () 1)\n"
    chunks = chunk_document(load("harbour/quays.lisp", source))
    assert [chunk.heading_path for chunk in chunks] == ["in-package :harbour", "defun tide"]
