"""Which ops the server loop answers itself: only those whose cost does not grow with the
index. `stats` read and sorted every file's row there (0.5 s and 1.4 MB at 20,000 files)
and held every other request meanwhile (attack48b: a search waited 14 s behind four
clients polling `stats`); it runs on the search pool now."""

from __future__ import annotations

from typing import Any

from ragd.serve.routes import table


class Anything:
    """Stands in for the handlers: each attribute is a distinct callable."""

    def __getattr__(self, name: str) -> Any:
        def handler(*_: object) -> str:
            return name

        return handler


def test_only_bounded_ops_run_on_the_loop() -> None:
    lanes = {route.op: route.lane for route in table(Anything(), Anything(), Anything())}  # type: ignore[arg-type]
    assert lanes["stats"] == "search"
    assert {op for op, lane in lanes.items() if lane == "loop"} == {
        "ping",
        "status",
        "chat_reset",
        "cancel",  # a dict look-up, and a socket shut down
    }
