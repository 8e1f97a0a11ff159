"""Emacs Lisp (an Emacs package's `.el` files, as ELPA and Debian's elpa-* packages ship
them; company-mode 0.9.13 held out as nu61b). Its documentation is the files' own header,
`;;; Commentary:` and docstrings, and `.el` had not been read at all: the 40 files of
company-mode were no document, and every question was refused (newuser61)."""

from __future__ import annotations

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse as load

# Written here in the package conventions' shape (a summary line, Commentary, Code).
SOURCE = b""";;; tide-mode.el --- show the next tide in the mode line  -*- lexical-binding: t -*-

;; Author: A. Harbour

;;; Commentary:

;; Turn on `tide-mode' to see when the next high water is due.  The
;; quay is read from `tide-quay'.

;;; Code:

(require 'cl-lib)

(defcustom tide-quay "north"
  "The quay whose tides are shown."
  :type 'string)

;;;###autoload
(define-minor-mode tide-mode
  "Show the next tide in the mode line."
  :global t)

;; The table is refreshed once a day.
(defun tide-next-high-water (quay)
  "Return the time of the next high water at QUAY."
  (cdr (assoc quay tide--table)))

(cl-defstruct (tide-entry (:constructor tide-entry-create))
  time height)

(defalias 'tide-next #'tide-next-high-water)

(ert-deftest tide-next-is-a-time ()
  (should (tide-next "north")))

(provide 'tide-mode)
;;; tide-mode.el ends here
"""


# The file's summary line heads its header and Commentary; each definition its own kind
# and name.
HEADINGS = (
    "show the next tide in the mode line",
    "defcustom tide-quay",
    "define-minor-mode tide-mode",
    "defun tide-next-high-water",
    "cl-defstruct tide-entry",
    "defalias tide-next",
    "ert-deftest tide-next-is-a-time",
)


def test_emacs_lisp_files_are_indexed_by_default() -> None:
    documents = PathFilter(DEFAULT_INCLUDE)
    assert documents.includes("site-lisp/tide-mode.el")


def test_emacs_lisp_is_split_at_its_definitions_with_the_comments_above_them() -> None:
    document = load("tide-mode.el", SOURCE)
    chunks = chunk_document(document)
    by_path = {chunk.heading_path: chunk.text for chunk in chunks}
    assert tuple(by_path) == HEADINGS and len(chunks) == len(HEADINGS)
    # the Commentary is the file's own text, under its summary line
    assert "see when the next high water is due" in by_path[HEADINGS[0]]
    # the autoload cookie and the comment above a definition go with it
    assert ";;;###autoload" in by_path["define-minor-mode tide-mode"]
    assert "refreshed once a day" in by_path["defun tide-next-high-water"]
    assert "refreshed once a day" not in by_path["define-minor-mode tide-mode"]


# A keymaps file as evil's `evil-maps.el` is written: runs of `define-key` at the margin,
# a forward declaration above a definition.
KEYMAPS = b""";;; tide-maps.el --- default keymaps for tide-mode  -*- lexical-binding: t -*-

;;; Code:

(defvar tide-quay)

;;; Normal state

(define-key tide-normal-map "n" 'tide-next)
(define-key tide-normal-map "p" 'tide-previous)
(define-key tide-normal-map "q" 'tide-quit)

;;; Chart state

(define-key tide-chart-map "z" 'tide-zoom)
(define-key tide-chart-map "Z" 'tide-unzoom)

(defun tide-bind-quay (key)
  "Bind KEY to show `tide-quay'."
  (local-set-key key #'tide-show))
"""

KEYMAP_HEADINGS = (
    "default keymaps for tide-mode",
    "define-key tide-normal-map",
    "define-key tide-chart-map",
    "defun tide-bind-quay",
)


def test_a_run_of_define_key_lines_is_one_section_and_a_forward_defvar_none() -> None:
    # Each `define-key` line had been a chunk of its own (evil-maps.el: 384 chunks, 363 of
    # them one line) and `(defvar tide-quay)` one too (review63).
    chunks = chunk_document(load("tide-maps.el", KEYMAPS))
    by_path = {chunk.heading_path: chunk.text for chunk in chunks}
    assert len(chunks) == len(by_path) == len(KEYMAP_HEADINGS)
    assert tuple(by_path) == KEYMAP_HEADINGS
    assert "(defvar tide-quay)" in by_path["default keymaps for tide-mode"]
    normal = by_path["define-key tide-normal-map"]
    assert "'tide-next" in normal and "'tide-quit" in normal and "tide-zoom" not in normal


# The opening of vim's Greek tutor (`/usr/share/vim/vim90/tutor/tutor.el`, ISO-8859-7).
GREEK_TUTOR = """===============================================================================
=    Κ αλ ω σ ή ρ θ α τ ε    σ τ ο   V I M   T u t o r    -    Έκδοση 1.5     =
===============================================================================

     Ο Vim είναι ένας πανίσχυρος συντάκτης που έχει πολλές εντολές, πάρα
     πολλές για να εξηγήσουμε σε μία περιήγηση όπως αυτή. Αυτή η περιήγηση
     σχεδιάστηκε για να περιγράψει ικανοποιητικά τις εντολές που θα σας
     κάνουν να χρησιμοποιείτε εύκολα τον Vim σαν έναν γενικής χρήσης συντάκτη.
"""


def test_a_greek_text_named_el_is_read_as_text_not_emacs_lisp() -> None:
    """`.el` is also Greek's code: vim's `tutor.el` was one `(untitled)` block of Lisp once
    `*.el` was read by default (review63)."""
    for encoding in ("utf-8", "iso-8859-7"):
        document = load("tutor.el", GREEK_TUTOR.encode(encoding))
        assert document.kind in ("text", "markdown") and "```" not in document.text
    assert "πανίσχυρος συντάκτης" in load("tutor.el", GREEK_TUTOR.encode()).text
    # Lisp stays Lisp, one form long too (a package's `-pkg.el`).
    assert "```elisp" in load("tide-pkg.el", b'(define-package "tide" "1.0" "Tides.")\n').text
