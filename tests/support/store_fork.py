"""A forked daemon's first vector store worker, and a forked process's first ChromaDB
probe reader, forked too rather than executed.

Each daemon start runs a store worker (`python -m ragd.index.store_worker`, started by
daemon/ragd/index/store_process.py), and an executed one imports ChromaDB afresh: ≈ 1.2
CPU s, about 170 times in `make test`. A daemon forked by the tests' fork server
(fork_server.py) has ChromaDB imported already. So `prepare`, called in that forked
child just before it runs `ragd`, forks once more: a spare, the daemon's child, which
waits on a socket pair; and it puts `Spare.launch` in `store_process.launch`. The
daemon's first worker start sends the spare the worker's arguments, its environment and
the worker's end of the daemon's socket pair, and the spare runs
`store_worker.main` with them. Any later start (a worker that died, was killed when
stuck, or one whose environment the spare cannot stand for) is executed, as ragd does.

Why forking here is safe where forking a running daemon would not be: the spare is
forked before any daemon code has run, by a process with one thread (a child of the
single-threaded fork server) that holds no lock, has started no thread, made no ZeroMQ
context or socket and opened no database: only modules are imported (ragd's own store
modules among them, after the daemon's environment is set), and the descriptors are the
log, /dev/null and the new socket pair. The spare then waits in one `recv` and does
nothing else until it is used, so it takes no lock either, and it closes every other
descriptor as the executed worker's `pass_fds` would. The daemon's threads, sockets and
open stores come after the fork, and nothing of them reaches the spare; what the two
share is copy-on-write memory. ragd itself never forks its worker (`launch` stays
`execute_worker`): only this harness, which knows the state its process was forked in.

What the spare keeps of an executed worker: it is the daemon's child (the daemon reaps
it, kills it when it is stuck, and the tests find it among the daemon's children by its
command line, which it rewrites to the executed one's); it dies with the daemon (its
parent-death signal follows the daemon's main thread, which forked it, where an
executed one's follows the store's thread: both end only when the daemon does); its
environment, umask, resource limits and nice value are the daemon's at the start, sent
with the request (`inherited`: ragd sets its umask and raises two limits after the
spare was made; a state the spare cannot take on is executed instead); its
capabilities, user namespace and `sitecustomize` hook are the daemon's, all set before
`prepare`; SIGHUP is back to its default (ragd holds it in the daemon while it starts).
A start whose environment differs in what an import reads (fork_server.READ_AT_IMPORT)
from the environment ChromaDB was imported under is executed.

RAGD_TEST_FORK_STORE=0 turns it off for a run (every worker executed; the test process
reads it, fork_server.ForkServer.spawn).

The probe's reader (index/dense_probe.py: `python -m ragd.index.dense_probe`, ≈ 1 CPU s
executed, nearly all of it importing ChromaDB) is made the same way, by a second spare
(`Spare.launch_reader`, put in `dense_probe.launch`), for the two kinds of forked process
that probe: a `ragd check` the tests fork (tests/support/daemon.py, `forked_command`) and
a daemon started again after a SIGKILL (its store was not sealed, so its start probes).
The spare is sent the child's ends of three pipes for its stdin, stdout and stderr, runs
the module as `-m` would (`__main__`, the same arguments, its command line rewritten), and
`ForkedReader` gives the reader `Popen.communicate` over them. Other daemons get no such
spare: unused, it would outlive a restart in place as a child the new image never reaps.
RAGD_TEST_FORK_PROBE=0 executes every reader.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from ragd.index.dense_probe import ReaderProcess
    from ragd.index.store_process import WorkerProcess

MAX_MESSAGE = 1 << 20
MODULE = "ragd.index.store_worker"
PROBE_MODULE = "ragd.index.dense_probe"
READY = b"ready"  # the spare took the daemon's state on and runs the worker
READY_WAIT_S = 30.0
LIMITS = tuple(getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_"))

ImportEnv = Callable[[Mapping[str, str]], dict[str, str]]


class ForkedWorker:
    """The spare once it runs as the worker: `subprocess.Popen`'s names that
    store_process uses (pid, poll, wait, kill), for a child this process reaps itself."""

    def __init__(self, pid: int, module: str = MODULE) -> None:
        self.pid = pid
        self.args = [sys.executable, "-m", module]
        self.returncode: int | None = None
        self._lock = threading.Lock()  # one waitpid at a time (the store's threads)

    def poll(self) -> int | None:
        with self._lock:
            return self._poll()

    def _poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: dead, status unknown (as Popen)
                self.returncode = 0
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                import subprocess

                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            delay = min(delay * 2, 0.05)
            time.sleep(delay)
        return code

    def kill(self) -> None:
        with self._lock:  # not a pid reaped meanwhile (and perhaps used again)
            if self._poll() is None:
                os.kill(self.pid, signal.SIGKILL)


class Spare:
    """The daemon's side of one spare child: used by the first start it is fit for only."""

    def __init__(self, control: socket.socket, pid: int, import_env: ImportEnv) -> None:
        self._control: socket.socket | None = control
        self.pid = pid
        self._import_env = import_env
        self._forked_under = import_env(os.environ)
        self._lock = threading.Lock()

    def take(self, args: list[str], env: dict[str, str], fds: list[int]) -> bool:
        """Have the spare run with `args`, `env` and the descriptors `fds` (it takes on
        the rest of this process's state, `inherited`); False when it is used already,
        gone, or cannot stand for a process started now with `env` (then it is ended and
        reaped here, not left a zombie, and the caller executes one)."""
        with self._lock:
            control, self._control = self._control, None
        if control is None:
            return False
        with control:
            if self._import_env(env) == self._forked_under:
                request = {"args": args, "env": env, **inherited()}
                try:
                    control.settimeout(READY_WAIT_S)
                    socket.send_fds(control, [json.dumps(request).encode()], fds)
                    if control.recv(MAX_MESSAGE) == READY:
                        return True
                except OSError:  # the spare is gone (or hung: killed below)
                    pass
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        return False

    def launch(self, args: list[str], fd: int) -> WorkerProcess:
        """store_process.launch: the spare, if unused and fit for `os.environ`; else the
        executed worker."""
        from ragd.index import store_process

        env = os.environ | {"ANONYMIZED_TELEMETRY": "False"}  # as execute_worker's
        if self.take(args[1:], env, [fd]):
            return ForkedWorker(self.pid)
        return store_process.execute_worker(args, fd)

    def launch_reader(self, args: list[str]) -> ReaderProcess:
        """dense_probe.launch: the spare, if unused and fit for `os.environ`, its stdin,
        stdout and stderr piped as execute_reader's; else the executed reader."""
        from ragd.index import dense_probe

        env = os.environ | {"ANONYMIZED_TELEMETRY": "False"}  # as execute_reader's
        pipes = [os.pipe() for _ in range(3)]  # close-on-exec, as Popen's
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        try:
            taken = self.take(args, env, theirs)
        finally:
            for fd in theirs:
                os.close(fd)
        if taken:
            return ForkedReader(self.pid, PROBE_MODULE, pipes[0][1], pipes[1][0], pipes[2][0])
        for fd in (pipes[0][1], pipes[1][0], pipes[2][0]):
            os.close(fd)
        return dense_probe.execute_reader(args)


class ForkedReader(ForkedWorker):
    """The probe's spare once it runs as the reader: what dense_probe.Reader uses of
    `subprocess.Popen` (communicate, poll, kill, returncode), over the three pipes."""

    def __init__(self, pid: int, module: str, stdin: int, stdout: int, stderr: int) -> None:
        super().__init__(pid, module)
        self._stdin: int | None = stdin
        self._output = {stdout: bytearray(), stderr: bytearray()}
        self._open = [stdout, stderr]

    def communicate(
        self, input: bytes | None = None, timeout: float | None = None
    ) -> tuple[bytes, bytes]:
        """Popen.communicate's: write `input`, close stdin, read both streams to their end
        and wait for the exit; TimeoutExpired (nothing lost: call it again) past `timeout`."""
        import selectors
        import subprocess

        deadline = None if timeout is None else time.monotonic() + timeout
        if self._stdin is not None:
            with contextlib.suppress(BrokenPipeError):  # it ended without reading: as Popen
                view = memoryview(input or b"")
                while view:
                    view = view[os.write(self._stdin, view) :]
            os.close(self._stdin)
            self._stdin = None
        with selectors.DefaultSelector() as selector:
            for fd in self._open:
                selector.register(fd, selectors.EVENT_READ)
            while self._open:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
                for key, _ in selector.select(left):
                    fd = key.fd
                    data = os.read(fd, 1 << 16)
                    if data:
                        self._output[fd] += data
                    else:
                        selector.unregister(fd)
                        os.close(fd)
                        self._open.remove(fd)
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        stdout, stderr = self._output.values()
        return bytes(stdout), bytes(stderr)


def inherited() -> dict[str, object]:
    """What of this process an executed worker inherits at its start and the spare,
    forked earlier, must be given: the umask (ragd sets 0o077), the resource limits
    (ragd raises the open files' and the file size's soft limits) and the calling
    thread's nice value (Linux keeps one per thread)."""
    status = Path("/proc/self/status").read_text()  # the umask, unchanged by reading it
    umask = next(line.split()[1] for line in status.splitlines() if line.startswith("Umask:"))
    return {
        "umask": int(umask, 8),
        "limits": [[which, *resource.getrlimit(which)] for which in LIMITS],
        "nice": os.getpriority(os.PRIO_PROCESS, threading.get_native_id()),
    }


def take_on(request: dict[str, Any]) -> None:
    """In the spare: become what an executed worker started now would be (`inherited`)."""
    os.umask(request["umask"])
    for which, soft, hard in request["limits"]:
        if resource.getrlimit(which) != (soft, hard):
            resource.setrlimit(which, (soft, hard))
    if os.getpriority(os.PRIO_PROCESS, 0) != request["nice"]:
        os.setpriority(os.PRIO_PROCESS, 0, request["nice"])
    os.environ.clear()
    os.environ.update(request["env"])


def prepare(import_env: ImportEnv, store: bool = True, reader: bool = True) -> None:
    """In the forked daemon (or `ragd check`), one thread, its environment set, just
    before `ragd` runs: fork the spares, one for the store's first worker and one for the
    first ChromaDB probe's reader, and have ragd use them (module docstring)."""
    from ragd.index import dense_probe, store_process

    if store:
        store_process.launch = Spare(*_fork_spare(_run_worker, 1), import_env).launch
    if reader:
        dense_probe.launch = Spare(*_fork_spare(_run_reader, 3), import_env).launch_reader


Run = Callable[[dict[str, Any], list[int]], int]


def _fork_spare(run: Run, fds: int) -> tuple[socket.socket, int]:
    """Fork a spare that will `run` the request it is sent with `fds` descriptors: this
    process's end of its socket pair and its pid."""
    from ragd.core import parent_death

    prctl = parent_death.libc_prctl()  # looked up before the fork
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    daemon = os.getpid()
    pid = os.fork()
    if pid == 0:
        ours.close()
        parent_death.arm(signal.SIGKILL, prctl)
        if os.getppid() != daemon:
            os._exit(0)
        _wait_to_serve(theirs, run, fds)
    theirs.close()
    return ours, pid


def _wait_to_serve(control: socket.socket, run: Run, count: int) -> NoReturn:
    """The spare: close what an executed child would not have, wait for the request,
    then `run` it. Exits when the daemon closes its end unused."""
    code = 1
    try:
        keep = control.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        message, fds, _, _ = socket.recv_fds(control, MAX_MESSAGE, count)
        if not message or len(fds) != count:
            os._exit(0)
        request = json.loads(message)
        try:
            take_on(request)
        except (OSError, ValueError) as exc:  # the daemon executes a worker instead
            control.send(f"not taken on: {exc}".encode())
            os._exit(0)
        control.send(READY)
        control.close()
        code = run(request, fds)
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc()
    os._exit(code)


def _run_worker(request: dict[str, Any], fds: list[int]) -> int:
    args = [str(fds[0]), *request["args"]]
    show_command_line([sys.executable, "-m", MODULE, *args])
    from ragd.index import store_worker

    return store_worker.main(args)


def _run_reader(request: dict[str, Any], fds: list[int]) -> int:
    """`python -m ragd.index.dense_probe ARGS` with the three pipes as its stdin, stdout
    and stderr: the module run as __main__, as -m runs it."""
    import runpy

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    show_command_line([sys.executable, "-m", PROBE_MODULE, *request["args"]])
    sys.argv = ["-m", *request["args"]]  # runpy puts the module's path first, as -m does
    try:
        runpy.run_module(PROBE_MODULE, run_name="__main__", alter_sys=True)
    except SystemExit as end:
        code = end.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    return 0


def show_command_line(words: list[str]) -> None:
    """Make /proc/self/cmdline read `words` (as many whole words as fit in the room the
    process's own command line had; the first three always do: the fork server's
    command line, this one's, names the interpreter and a longer script path)."""
    import ctypes

    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (proc(5))
    text = b""
    for word in words:
        if len(text) + len(word.encode()) + 1 > end - start:
            break
        text += word.encode() + b"\0"
    ctypes.memmove(start, text.ljust(end - start, b"\0"), end - start)
