"""Loading the model without importing what the libraries import only for functions ragd
never calls.

`import sentence_transformers` is most of a daemon's start (docs/performance.md, "Start →
READY"), and part of it is modules no embedding reaches: sentence-transformers' similarity
helpers import scikit-learn for `pairwise_distances` (scikit-learn then imports most of
SciPy), and transformers' object-detection losses import SciPy's optimizers for
`linear_sum_assignment`. Each is bound by name at import time and called only by code the
daemon never runs (Manhattan and Euclidean similarity, training losses).

While `deferring()` is in force, each such module that is not imported yet is a stand-in
in `sys.modules`: the names of DEFERRED are functions that import the real module at
their first call and call its function, and any other name read from the stand-in imports
the real module there and then (module `__getattr__`), so a library that asks for more than
is named here gets the real thing, only later. On leaving, the stand-ins are taken out of
`sys.modules`, so any later import is the real module's. Nothing here changes what is
computed: a deferred function called is the real one, called with the same arguments.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

# module → the names the model's libraries import from it at import time
DEFERRED: Mapping[str, tuple[str, ...]] = {
    "sklearn.metrics": ("pairwise_distances",),  # sentence_transformers.util.similarity
    "scipy.optimize": ("linear_sum_assignment",),  # transformers.loss.loss_for_object_detection
}

_LOCK = threading.Lock()


class StandIn(ModuleType):
    """A module not imported yet: its named functions import it when called."""

    def __init__(self, name: str, names: tuple[str, ...]) -> None:
        super().__init__(name, f"{name}, imported when first used (ragd.index.deferred_imports)")
        # A spec, so `importlib.util.find_spec(name)` answers instead of raising.
        self.__spec__ = importlib.machinery.ModuleSpec(name, None)
        for attribute in names:
            setattr(self, attribute, _deferred(name, attribute))

    def __getattr__(self, attribute: str) -> Any:
        # Only for names not set above (dunder lookups included): the real module's.
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return getattr(real(self.__name__), attribute)


def real(name: str) -> ModuleType:
    """The real module `name`, imported now if only its stand-in was there."""
    with _LOCK:
        if isinstance(sys.modules.get(name), StandIn):
            del sys.modules[name]
    return importlib.import_module(name)


def _deferred(module: str, attribute: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(real(module), attribute)(*args, **kwargs)

    call.__name__ = call.__qualname__ = attribute
    call.__doc__ = f"{module}.{attribute}, imported at its first call"
    return call


@contextlib.contextmanager
def deferring(deferred: Mapping[str, tuple[str, ...]] = DEFERRED) -> Iterator[list[str]]:
    """Stand-ins for the modules of `deferred` not imported yet, for as long as the block
    runs (yields their names); a module already imported is left as it is."""
    placed: list[str] = []
    with _LOCK:
        for name, names in deferred.items():
            if name not in sys.modules:
                sys.modules[name] = StandIn(name, names)
                placed.append(name)
    try:
        yield placed
    finally:
        with _LOCK:
            for name in placed:
                if isinstance(sys.modules.get(name), StandIn):
                    del sys.modules[name]
