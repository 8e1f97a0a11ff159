"""Request-argument validation: each op's handler reads its `args` through these.

A value of the wrong type, out of range, too long or not valid Unicode raises BadRequest
naming the key and what it must be, so the client's user sees what to fix; nothing here
knows about sockets or ops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ragproto.errors import BadRequest


def arg_str(
    args: dict[str, Any],
    key: str,
    required: bool = True,
    max_len: int = 4096,
    blank_ok: bool = False,
) -> str:
    """A string argument; `blank_ok` for names, where " " is a legal folder name."""
    value = args.get(key)
    if value is None and not required:
        return ""
    empty = not value if blank_ok else not (isinstance(value, str) and value.strip())
    if not isinstance(value, str) or (required and empty):
        raise BadRequest(f"'{key}' must be a non-empty string")
    if len(value) > max_len:
        raise BadRequest(f"'{key}' is longer than {max_len} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: JSON allows it, text tools do not
        raise BadRequest(f"'{key}' must be valid Unicode text") from None
    return value


def arg_int(args: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    value = args.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadRequest(f"'{key}' must be an integer from {lo} to {hi}")
    return value


def arg_float(
    args: dict[str, Any],
    key: str,
    default: float | None,
    lo: float = -math.inf,
    hi: float = math.inf,
) -> float | None:
    value = args.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequest(f"'{key}' must be a number")
    if not math.isfinite(value):  # NaN/Infinity parse as JSON here but are not numbers
        raise BadRequest(f"'{key}' must be a finite number")
    if not lo <= value <= hi:
        raise BadRequest(f"'{key}' must be from {lo:g} to {hi:g}")
    return float(value)


def arg_bool(args: dict[str, Any], key: str, default: bool = False) -> bool:
    value = args.get(key, default)
    if not isinstance(value, bool):
        raise BadRequest(f"'{key}' must be a boolean")
    return value


def arg_choice(args: dict[str, Any], key: str, choices: Sequence[str]) -> str:
    """One of `choices`; the first is the default."""
    value = args.get(key, choices[0])
    if value not in choices:
        raise BadRequest(f"'{key}' must be {', '.join(choices[:-1])} or {choices[-1]}")
    return str(value)


def arg_line_range(value: Any) -> tuple[int, int]:
    """`[start, end]`, two integers (their range is checked against the file later)."""
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise BadRequest("'lines' must be [start, end], two integers")
    return value[0], value[1]
