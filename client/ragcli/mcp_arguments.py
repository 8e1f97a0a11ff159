"""`rag mcp`'s tool arguments held to the JSON types their schemas declare.

The SDK validates arguments with pydantic in lax mode, which converts what JSON keeps
apart: `true` became the integer 1 and `"3"` the integer 3, so `get` with
`start_line: true` returned the document from line 1 as if that had been asked. A
number with no fraction (`3.0`) is an integer in JSON Schema's terms and is let
through; a boolean, a string or `3.5` where an integer is wanted is an error naming the
argument. Standard library only.
"""

from __future__ import annotations

import json
from typing import Any


def wrong_types(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """The first argument whose value is not of its declared type, said in one line
    ("get: start_line must be an integer, not true"); None when all are."""
    properties = schema.get("properties") or {}
    for name, value in arguments.items():
        declared = types_of(properties.get(name) or {})
        if "integer" in declared and not _integer(value) and not _allowed_null(declared, value):
            return f"{tool}: {name} must be an integer, not {_json(value)}"
    return None


def types_of(prop: dict[str, Any]) -> set[str]:
    """The JSON types a property's schema allows: its `type`, or each `anyOf` branch's."""
    found: set[str] = set()
    for branch in [prop, *(prop.get("anyOf") or [])]:
        kind = branch.get("type")
        found.update([kind] if isinstance(kind, str) else kind or [])
    return found


def _integer(value: Any) -> bool:
    if isinstance(value, bool):  # a bool is an int to Python, never to JSON
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _allowed_null(declared: set[str], value: Any) -> bool:
    return value is None and "null" in declared


def _json(value: Any) -> str:
    """The value as the caller wrote it in JSON, shortened."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def refused_in_one_line(tool: str, errors: list[Any]) -> str:
    """The SDK's schema refusals (pydantic's `ValidationError.errors()`) said in one line,
    each naming the argument and what was given: `search: top_k: input should be less
    than or equal to 50 (got 1000000000)`. The SDK's own text ran over four lines with a
    link, and quoted a question of megabytes back in part."""
    said = []
    for error in errors:
        where = ".".join(str(part) for part in error.get("loc") or ()) or "arguments"
        text = str(error.get("msg") or "invalid")
        line = f"{where}: {text[:1].lower()}{text[1:]}"
        if error.get("type") != "missing":
            line += f" (got {_given(error.get('input'))})"
        said.append(line)
    return f"{tool}: " + "; ".join(said)


def _given(value: Any) -> str:
    if isinstance(value, str) and len(value) > 40:
        return f"a string of {len(value):,} characters"
    return _json(value)
