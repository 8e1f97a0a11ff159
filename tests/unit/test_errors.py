"""The error tree: one module, one class per wire type, the exit codes derived from it."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.serve.arguments import arg_bool, arg_choice, arg_float, arg_int, arg_str
from ragproto.errors import (
    ERROR_EXIT_CODES,
    WIRE_ERRORS,
    BadRequest,
    ExitCode,
    ModelRequestError,
    NotServing,
    RagError,
    WireError,
)
from tests.support.sources import REPO, our_sources

# What users and scripts depend on: a wire type's name and its `rag` exit code.
DOCUMENTED = {
    "bad_request": 5,
    "unknown_op": 5,
    "version_mismatch": 5,
    "not_found": 5,
    "not_a_file": 5,
    "outside_roots": 2,
    "forbidden": 5,
    "shutting_down": 3,
    "starting": 3,
    "stopped": 3,
    "busy": 4,
    "no_space": 1,
    "internal": 1,
    "model_auth": 6,
    "model_unavailable": 7,
    "model_invalid_output": 8,
}


def subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    return found.union(*(subclasses(c) for c in found)) if found else found


def test_wire_types_and_exit_codes_are_unchanged() -> None:
    assert {k: int(v) for k, v in ERROR_EXIT_CODES.items()} == DOCUMENTED


def test_every_wire_class_names_a_listed_type() -> None:
    for cls in subclasses(WireError):
        assert cls.type_name in WIRE_ERRORS, cls
        assert cls.__doc__, f"{cls.__name__} has no docstring"
    # the one shared name: the client raises BadRequest for a model's 4xx
    assert ModelRequestError.type_name == "bad_request"
    assert ModelRequestError.exit_code == BadRequest.exit_code


def test_the_client_raises_the_class_a_reply_names() -> None:
    for name, cls in WIRE_ERRORS.items():
        error = WireError.from_reply(name, "why")
        assert type(error) is cls and str(error) == "why"
        assert error.exit_code == ERROR_EXIT_CODES[name]
    starting = WireError.from_reply("starting", "loading")
    assert isinstance(starting, NotServing) and starting.exit_code == ExitCode.NOT_RUNNING
    newer = WireError.from_reply("from_the_future", "a newer daemon")
    assert newer.type_name == "from_the_future" and newer.exit_code == ExitCode.ERROR


def classes_outside_the_tree() -> Iterator[tuple[Path, ast.ClassDef]]:
    """Every class defined in our packages and the bench, except in ragproto/errors.py."""
    home = REPO / "shared" / "ragproto" / "errors.py"  # this checkout's, not the import's
    for path in our_sources():
        if path != home:
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef):
                    yield path, node


def test_no_error_class_outside_the_tree() -> None:
    """Every RagError subclass lives in ragproto/errors.py (one tree, one place)."""
    ours = {cls.__name__ for cls in subclasses(RagError)} | {"RagError"}
    strays = [
        f"{path.relative_to(REPO)}: {node.name}"
        for path, node in classes_outside_the_tree()
        if {b.id for b in node.bases if isinstance(b, ast.Name)} & ours
    ]
    assert not strays


def test_every_other_exception_is_listed_in_the_docs() -> None:
    """An exception class outside the tree is one of the documented internal ones
    (docs/architecture.md, "Errors"): nothing is raised on purpose that nobody listed."""
    errors_section = (REPO / "docs/architecture.md").read_text().split("## Errors", 1)[1]
    errors_section = errors_section.split("\n## ", 1)[0]
    listed = set(re.findall(r"`(\w+)`", errors_section))
    found = exception_classes()
    assert {"SkipFile", "OutOfMemory", "Held"} <= found, "the scan is broken"
    assert sorted(found - listed) == []


def exception_classes() -> set[str]:
    """Names of the exception classes outside the tree: a class whose base is a built-in
    exception, or (at any depth) one of these (`OutOfMemory(SkipFile)` too)."""
    bases = {
        node.name: {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
        for _, node in classes_outside_the_tree()
    }
    found = {
        name
        for name, of in bases.items()
        if any(
            isinstance(getattr(builtins, b, None), type)
            and issubclass(getattr(builtins, b), BaseException)
            for b in of
        )
    }
    while True:
        more = {name for name, of in bases.items() if of & found} - found
        if not more:
            return found
        found |= more


def test_arguments_name_the_key_and_the_rule() -> None:
    args = {"q": " ", "n": True, "x": float("nan"), "flag": "yes", "mode": "fuzzy"}
    for check, rule in (
        (lambda: arg_str(args, "q"), "'q' must be a non-empty string"),
        (lambda: arg_int(args, "n", 1, 1, 9), "'n' must be an integer from 1 to 9"),
        (lambda: arg_float(args, "x", None), "'x' must be a finite number"),
        (lambda: arg_bool(args, "flag"), "'flag' must be a boolean"),
        (lambda: arg_choice(args, "mode", ("a", "b", "c")), "'mode' must be a, b or c"),
    ):
        with pytest.raises(BadRequest, match=rule):
            check()
    assert arg_choice({}, "mode", ("a", "b")) == "a"
    assert arg_bool({}, "flag") is False
