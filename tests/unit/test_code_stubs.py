"""Python type stubs (`.pyi`): included by default and read by the code reader as Python,
so a stub package's signatures are sections headed `class > def` (attrs ships ten, the
`types-*` packages are nothing else). A stub is Python with `...` bodies: one-line
definitions, `@overload` stacks, annotated attributes."""

from __future__ import annotations

from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats import module_name
from ragd.ingest.loaders import parse

STUB = b"""from typing import Any, overload

_T = TypeVar("_T")

@overload
def attrib(default: None = ..., validator: None = ...) -> Any: ...
@overload
def attrib(default: _T, validator: Any = ...) -> _T: ...

class Session:
    headers: dict[str, str]
    def get(self, url: str, *, timeout: float | None = ...) -> Response: ...
    @property
    def cookies(self) -> CookieJar: ...

def session() -> Session: ...
"""


def test_stubs_are_included_and_read_as_python() -> None:
    assert "*.pyi" in CODE_PATTERNS
    assert PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS).includes("attr/__init__.pyi")
    assert module_name("attr/__init__.pyi") == "code"


def test_a_stub_is_headed_by_its_classes_and_signatures() -> None:
    document = parse("attr/__init__.pyi", STUB)
    chunks = chunk_document(document)
    headed = {chunk.heading_path: chunk.text for chunk in chunks}
    assert [chunk.heading_path for chunk in chunks] == [
        "(untitled)",  # imports and the TypeVar before the first definition
        "def attrib",
        "def attrib",
        "class Session",
        "class Session > def get",
        "class Session > def cookies",
        "def session",
    ]
    overloads = [chunk.text for chunk in chunks if chunk.heading_path == "def attrib"]
    assert "@overload\ndef attrib(default: None" in overloads[0]
    assert "def attrib(default: _T, validator: Any = ...) -> _T: ..." in overloads[1]
    assert "headers: dict[str, str]" in headed["class Session"]
    assert "def session() -> Session: ..." in headed["def session"]
    assert document.text.count("```python") == len(chunks)
