"""A restart in place (`os.execv`, same pid) waits for the children the old image left and
for no other (core/inherited_children.py).

reap48: the old image's vector store worker, and its parse workers, ended at the exec
and stayed `<defunct>` for the daemon's life. A first fix (df629bb, reverted) waited for
every child the new image had at `Daemon.start`, and took the exit status of a store
worker the new image had already started (the tests' fork server starts it before any
ragd code): StoreProcess read a SIGKILLed worker as "exit status 0". Now the old image
names what it leaves, with each one's start time, and only those are waited for.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from ragd.core.inherited_children import (
    MARK_ENV,
    Child,
    children,
    ending,
    mark_for_exec,
    reap_inherited,
    take_mark,
)
from ragd.core.proc_stat import proc_stat

WAIT_S = 30.0  # a generous bound for a child to end and be reaped: never a speed claim


def spawn(code: str) -> tuple[int, int]:
    """A child no Popen owns (so nothing else waits for it), running `code` with its
    stdin the read end of a pipe: (pid, the pipe's write end)."""
    read, write = os.pipe()
    actions = [(os.POSIX_SPAWN_DUP2, read, 0)]
    pid = os.posix_spawn(
        sys.executable, [sys.executable, "-c", code], os.environ, file_actions=actions
    )
    os.close(read)
    return pid, write


def gone(pid: int) -> bool:
    """Reaped: no /proc entry left (a zombie still has one)."""
    deadline = time.monotonic() + WAIT_S
    while proc_stat(pid) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_the_mark_names_this_process_children_once_and_leaves_the_environment() -> None:
    pid, pipe = spawn("import os; os.read(0, 1)")
    try:
        env: dict[str, str] = {}
        named = mark_for_exec(env)
        mine = [child for child in named if child.pid == pid]
        stat = proc_stat(pid)
        assert stat is not None and len(mine) == 1
        assert mine[0].start_ticks == stat.start_ticks
        assert mine[0].what == os.path.basename(sys.executable)
        assert pid in [child.pid for child in children()]
        taken = take_mark(env)
        assert MARK_ENV not in env  # no child of the new image inherits it
        assert [child.pid for child in taken if child.pid == pid] == [pid]
        assert take_mark(env) == []
    finally:
        os.close(pipe)
        os.waitpid(pid, 0)


def test_no_children_no_mark() -> None:
    env = {MARK_ENV: "left over"}
    with_children = bool(children())  # the tests' fork server may be one
    mark_for_exec(env)
    assert (MARK_ENV in env) == with_children and env.get(MARK_ENV) != "left over"


def test_only_a_named_child_of_this_process_started_when_named_is_taken() -> None:
    pid, pipe = spawn("import os; os.read(0, 1)")
    try:
        stat = proc_stat(pid)
        parent = proc_stat(os.getppid())
        assert stat is not None and parent is not None
        mark = [
            [pid, stat.start_ticks + 1, "a reused pid"],  # another process's start time
            [os.getppid(), parent.start_ticks, "not our child"],
            [2**22 + 1, 1, "gone"],  # above pid_max's default: no such process
            [pid, stat.start_ticks, "the child"],
        ]
        env = {MARK_ENV: json.dumps(mark)}
        assert take_mark(env) == [Child(pid, stat.start_ticks, "the child")]
    finally:
        os.close(pipe)
        os.waitpid(pid, 0)


@pytest.mark.parametrize("text", ["", "not json", "5", '{"a": 1}', "[[1, 2]]", '[["x", 1, "y"]]'])
def test_a_malformed_mark_names_nothing_and_is_removed(text: str) -> None:
    env = {MARK_ENV: text}
    assert take_mark(env) == [] and MARK_ENV not in env


def test_each_named_child_is_reaped_on_a_thread_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ends = spawn("import os; os.read(0, 1); raise SystemExit(3)")
    killed = spawn("import os; os.read(0, 1)")
    mark = []
    for n, (pid, _) in enumerate((ends, killed)):
        stat = proc_stat(pid)
        assert stat is not None
        mark.append([pid, stat.start_ticks, f"child{n}"])
    env = {MARK_ENV: json.dumps(mark)}
    with caplog.at_level(logging.INFO, logger="ragd"):
        assert [child.pid for child in reap_inherited(env)] == [ends[0], killed[0]]  # at once
        os.close(ends[1])
        os.kill(killed[0], signal.SIGKILL)
        assert gone(ends[0]) and gone(killed[0])
        os.close(killed[1])
        deadline = time.monotonic() + WAIT_S
        while len(caplog.records) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    lines = sorted(record.getMessage() for record in caplog.records)
    assert lines == [
        f"reaped child0 (pid {ends[0]}), left by the previous image at the restart in place: "
        "exit status 3",
        f"reaped child1 (pid {killed[0]}), left by the previous image at the restart in place: "
        "killed by SIGKILL",
    ]


def test_a_child_reaped_already_is_said_nothing_of(caplog: pytest.LogCaptureFixture) -> None:
    pid, pipe = spawn("pass")
    stat = proc_stat(pid)
    assert stat is not None
    env = {MARK_ENV: json.dumps([[pid, stat.start_ticks, "it"]])}

    def taken_elsewhere(_pid: int, _options: int) -> tuple[int, int]:
        raise ChildProcessError

    with caplog.at_level(logging.INFO, logger="ragd"):
        assert len(reap_inherited(env, wait=taken_elsewhere)) == 1
        for thread in threading.enumerate():
            if thread.name == f"ragd-reap-{pid}":
                thread.join(WAIT_S)
    assert not [r for r in caplog.records if "reaped" in r.getMessage()]
    os.close(pipe)
    os.waitpid(pid, 0)


def test_ending_in_words() -> None:
    assert ending(0) == "exit status 0"
    assert ending(7 << 8) == "exit status 7"
    assert ending(signal.SIGKILL) == "killed by SIGKILL"


# The new image: started its own child before it took the mark (as the tests' fork server
# starts a daemon's store worker before any ragd code), then took the mark, then killed its
# own child. Its own child's exit status must stay its own; the inherited one is reaped.
AFTER_EXEC = """
import os, signal, subprocess, sys, time
from ragd.core.inherited_children import MARK_ENV, reap_inherited
from ragd.core.proc_stat import proc_stat
own = subprocess.Popen([sys.executable, '-c', 'import os; os.read(0, 1)'], stdin=subprocess.PIPE)
inherited = reap_inherited()
own.kill()
code = own.wait()
deadline = time.monotonic() + 30
while any(proc_stat(c.pid) is not None for c in inherited) and time.monotonic() < deadline:
    time.sleep(0.02)
left = [c.pid for c in inherited if proc_stat(c.pid) is not None]
print(len(inherited), left, code, MARK_ENV in os.environ, flush=True)
"""


def test_a_restart_in_place_reaps_what_the_old_image_left_and_not_its_own_children() -> None:
    before_exec = (
        "import os, subprocess, sys\n"
        "from ragd.core.inherited_children import mark_for_exec\n"
        "r, w = os.pipe()\n"
        # the child ends when the pipe's write end closes: at the exec (close-on-exec)
        "subprocess.Popen([sys.executable, '-c', 'import os; os.read(0, 1)'], stdin=r)\n"
        "os.close(r); os.set_inheritable(w, False)\n"
        "mark_for_exec()\n"
        f"os.execv(sys.executable, [sys.executable, '-c', {AFTER_EXEC!r}])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", before_exec], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    # One child inherited and reaped; its own child's SIGKILL read as such (not 0); the
    # mark gone from the new image's environment.
    assert out.stdout.split() == ["1", "[]", f"-{int(signal.SIGKILL)}", "False"], out
