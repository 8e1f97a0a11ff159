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
        "def attrib",  # both overloads: one unit (a chunk each before)
        "class Session",
        "class Session > def get",
        "class Session > def cookies",
        "def session",
    ]
    assert "@overload\ndef attrib(default: None" in headed["def attrib"]
    assert "def attrib(default: _T, validator: Any = ...) -> _T: ..." in headed["def attrib"]
    assert "headers: dict[str, str]" in headed["class Session"]
    assert "def session() -> Session: ..." in headed["def session"]
    assert document.text.count("```python") == len(chunks)


OVERLOADED = b"""from typing import overload


class Ferry:
    @overload
    def fare(self, age: int) -> int: ...
    @overload
    def fare(self, age: None) -> None: ...
    @overload
    def fare(self, age: str) -> str: ...
    def fare(self, age):
        return age

    @property
    def captain(self) -> str:
        return self._captain

    @captain.setter
    def captain(self, name: str) -> None:
        self._captain = name

    def fare_table(self) -> dict: ...


@overload
def board(ticket: int) -> int: ...
@overload
def board(ticket: str) -> str: ...
def board(ticket):
    return ticket


BOARDING = "open"


def board_late(ticket): ...
"""


def test_the_overloads_of_one_name_are_one_unit_under_it() -> None:
    """Three `@overload`s and the implementation, in a class and at module level, a
    property's getter and setter: each name one section and one chunk, its signatures in
    order; a different name right after, or code between, starts a section of its own."""
    chunks = chunk_document(parse("ferry.py", OVERLOADED))
    assert [chunk.heading_path for chunk in chunks] == [
        "(untitled)",
        "class Ferry",
        "class Ferry > def fare",
        "class Ferry > def captain",
        "class Ferry > def fare_table",
        "def board",
        "BOARDING",
        "def board_late",
    ]
    headed = {chunk.heading_path: chunk.text for chunk in chunks}
    fare = headed["class Ferry > def fare"]
    assert fare.count("def fare(") == 4
    assert fare.index("age: int") < fare.index("age: None") < fare.index("age: str")
    assert "return age" in fare
    assert "@captain.setter" in headed["class Ferry > def captain"]
    assert headed["def board"].count("def board(") == 3


REDEFINED_IN_A_CLASS = b"""class Ferry:
    def fare(self) -> int:
        return 1

    # the old name kept for callers of 1.x
    legacy_fare = fare

    def fare(self) -> int:
        return 2
"""


def test_a_method_defined_again_after_other_code_is_its_own_unit() -> None:
    """In a class body too, code between two definitions of one name ends the run: a
    class's methods are written without the statements between them, so only the lines
    can tell (the run took `legacy_fare = fare` and the second `fare` with the first)."""
    chunks = chunk_document(parse("ferry.py", REDEFINED_IN_A_CLASS))
    headings = [chunk.heading_path for chunk in chunks]
    assert headings == ["class Ferry", "class Ferry > def fare", "class Ferry > def fare"], headings
    assert "return 1" in chunks[1].text and "return 2" not in chunks[1].text
    assert "return 2" in chunks[2].text
