"""A panic in native code, told apart from an interrupt or an exit.

pyo3 raises a Rust panic (tantivy's, on a damaged index) as `PanicException`, a
BaseException like KeyboardInterrupt and SystemExit, so `except Exception` lets it through:
a request's handler ended with `handler returned no reply` and nothing of ours in the log,
and a damaged index's open escaped its own repair (attack73). Its class is made when it is
first raised, so it is known by name.
"""

from __future__ import annotations


def panicked(exc: BaseException) -> bool:
    """Whether `exc` is a panic in native code that pyo3 raised."""
    return type(exc).__name__ == "PanicException"


def failed(exc: BaseException) -> bool:
    """Whether `exc` is a failure to handle — any Exception, or a native panic — rather
    than an interrupt or an exit to pass on."""
    return isinstance(exc, Exception) or panicked(exc)
