"""Which units of a program's source count as a licence notice (extractive's
LICENCE_NOTICE_PENALTY): a unit whose comment lines hold a licence's words, like the Apache
header over every Go file of cobra. Not a unit whose code names a licence too, beside a
comment: packaging's `__about__.py` (its header, then `__version__ = "21.3"` in the
same unit) or a `setup.cfg` table (`version = 21.3`, `license = …` under a `#` comment) is
the answer to "what version is this?", and was put after the file's other code."""

from __future__ import annotations

from ragd.ingest.formats import code
from ragd.query.candidates import candidates_of
from ragd.query.extractive import _is_licence_notice, _licence_notices
from ragd.query.question import analyse
from tests.support.chunks import make_chunk

LICENCE_HEADER = """```go
// Copyright 2013-2023 The Cobra Authors
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package cobra

import (
	"fmt"
	"os"
)
```
"""
ABOUT = """```python
# This file is dual licensed under the terms of the Apache License, Version
# 2.0, and the BSD License. See the LICENSE file in the root of this repository
# for complete details.
__all__ = ["__title__", "__version__", "__license__"]
__title__ = "packaging"
__version__ = "21.3"
__license__ = "BSD-2-Clause or Apache-2.0"
```
"""
SETUP_CFG = """```ini
[metadata]
name = packaging
# the version the release carries
version = 21.3
license = BSD-2-Clause or Apache-2.0
description = Core utilities for Python packages
```
"""


def marked(source: str, text: str, question: str) -> list[float]:
    candidates = candidates_of([make_chunk(source, "(untitled)", text)])
    return list(_licence_notices(analyse(question), candidates))


def test_a_header_of_licence_comments_is_a_notice() -> None:
    marks = marked("cobra/active_help.go", LICENCE_HEADER, "How do I add an active help message?")
    assert len(marks) > 2 and marks[:2] == [1, 1]  # the header's runs of comment lines
    assert not any(marked("cobra/active_help.go", LICENCE_HEADER, "Under which license is cobra?"))


def test_code_naming_a_licence_beside_a_comment_is_no_notice() -> None:
    asked = "Which version of packaging is this?"
    assert marked("packaging/__about__.py", ABOUT, asked) == [0]
    assert marked("setup.cfg", SETUP_CFG, asked) == [0]


FLASK_INIT = '''```python
"""Flask is a microframework.

:copyright: 2010 Pallets
:license: BSD-3-Clause, see LICENSE for more details.
"""
from .app import Flask
```
'''
TIDE_VERSION = """```python
# Copyright (c) 2020 The Tide authors.
__version__ = "1.2.3"
```
"""
HEADER_OVER_A_REQUIRE = """```javascript
/*
 * Copyright (c) 2020 The Tide authors.
 * Licensed under the MIT License.
 */
const fs = require("fs");
```
"""


def test_a_licence_in_a_module_docstring_is_a_notice() -> None:
    """Pallets' modules (and requests') carry their notice as docstring fields,
    `:copyright:` and `:license:`, not as comments: it was read as code naming a licence
    and kept its score (review40)."""
    marks = marked("flask/__init__.py", FLASK_INIT, "How do I create a Flask app?")
    assert marks == [1], marks
    assert marked("flask/__init__.py", FLASK_INIT, "What licence is Flask under?") == [0]


def test_a_header_over_the_files_own_values_is_no_notice() -> None:
    """A copyright line right above `__version__ = "1.2.3"` in one unit: no licence word
    in the code, so it was a notice, and the answer to "which version?" went last
    (review40). A unit is a notice when its notice lines outnumber the values its code
    sets; a long header over one `require` stays one."""
    assert marked("tide/__init__.py", TIDE_VERSION, "Which version of tide is this?") == [0]
    assert marked("tide/index.js", HEADER_OVER_A_REQUIRE, "How does tide read files?") == [1]


def test_a_notice_is_read_in_every_comment_the_code_reader_knows() -> None:
    """One list of comment openers (formats.code.COMMENT_OPENERS), which the code reader
    keeps above a definition and the keyless answerer reads a notice in, plus INI's `;`
    for the answerer alone: two near-twin lists had drifted apart by that `;` (review40),
    and by each language's own (LINE_COMMENTS: Erlang's `%`, newuser65)."""
    own = [opener for openers in code.LINE_COMMENTS.values() for opener in openers]
    for opener in (*code.COMMENT_OPENERS, ";", *own):  # Erlang's `%%` (newuser65)
        assert _is_licence_notice(f"{opener} Copyright 2020 The Tide authors."), opener
    assert not _is_licence_notice("Copyright 2020 The Tide authors.")  # no comment: prose
    assert code.is_comment("  // a note") and not code.is_comment("; not Go's comment")
