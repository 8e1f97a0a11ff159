"""`rag mcp` still reads its host while every worker thread is busy (attack62).

The SDK reads the host's stdin and writes its stdout through `anyio.wrap_file`: each line
a thread from anyio's default limiter, 40 threads, which the tool calls share. With 41
`ask`s waiting on a hung model server, the reader waited for a thread that only a
finished call would free: the host's `notifications/cancelled` for all of them were not
read, no `cancel` reached the daemon, the 4 hung model calls ran to their deadline
(60 s; none hung up) and the next ask took 52 s. Measured: 40 asks cancelled, all 4
hung calls hung up; 41, none."""

from __future__ import annotations

import threading

import anyio
import anyio.to_thread

from ragcli.mcp_lines import MAX_IN_FLIGHT
from ragcli.mcp_server import cancellable


def test_a_line_is_still_read_while_every_request_admitted_holds_a_thread() -> None:
    released = threading.Event()

    def hung(stop: threading.Event) -> None:  # an ask on a hung model server, till stopped
        stop.wait(30)
        released.set()

    async def main() -> bool:
        read = False
        async with anyio.create_task_group() as group:
            for _ in range(MAX_IN_FLIGHT):  # as many as `rag mcp` hands the SDK at once
                group.start_soon(cancellable, hung)
            await anyio.sleep(0.5)
            with anyio.move_on_after(5):
                # the SDK's stdin reader: a readline on a thread of the same limiter
                read = await anyio.to_thread.run_sync(lambda: True)
            group.cancel_scope.cancel()  # the host's cancels: every `stop` set
        return read

    assert anyio.run(main)
    assert released.wait(5)
