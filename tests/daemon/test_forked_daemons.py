"""The tests' daemons are forked from a process with the heavy stack imported
(tests/support/fork_server.py): each is given what an executed `ragd serve` would have
been given, exits as Popen would report it, and a start whose environment the imports
would read differently is executed instead."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.daemon.test_hostile_files import NO_DAC, SETPRIV, UnprivilegedDaemon
from tests.support.daemon import BIN, Daemon, base_env, fork_server, wait_for
from tests.support.fork_server import ForkedProcess
from tests.support.hung_stat import HungStat
from tests.support.processes import is_live, live_children
from tests.support.slow_parse import slow_parse_env


@pytest.fixture
def server_on() -> None:
    if fork_server() is None:
        pytest.skip("RAGD_TEST_FORK=0: every daemon is executed")


def corpus(tmp: Path) -> Path:
    root = tmp / "docs"
    root.mkdir()
    (root / "quay.md").write_text("# Quay\n\nThe QUAY41 bell rings at every departure.\n")
    return root


STORE_WORKER = "ragd.index.store_worker"


def channels(pid: int) -> set[str]:
    """The sockets and pipes `pid` holds open ("socket:[inode]", "pipe:[inode]")."""
    links = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        # One closed between the listing and the read is not held (the server receives
        # and closes a log descriptor per start: seen once as FileNotFoundError).
        with contextlib.suppress(FileNotFoundError):
            links.add(os.readlink(fd))
    return {link for link in links if link.startswith(("socket:", "pipe:"))}


def umask_and_limits(pid: int) -> tuple[str, str]:
    proc = Path(f"/proc/{pid}")
    umask = next(line for line in (proc / "status").read_text().splitlines() if "Umask:" in line)
    return umask, (proc / "limits").read_text()


def test_a_forked_daemon_is_given_what_an_executed_one_is(tmp_path: Path, server_on: None) -> None:
    root = corpus(tmp_path)
    (root / "oven.md").write_text("# Oven\n\nThe rye loaves bake for forty minutes.\n")
    d = Daemon(tmp_path, [root], env={"RAG_LOG_LEVEL": "debug"}).start()
    assert isinstance(d.proc, ForkedProcess)
    proc = Path(f"/proc/{d.proc.pid}")
    assert os.readlink(proc / "cwd") == str(tmp_path)
    assert os.readlink(proc / "fd" / "0") == os.devnull
    assert os.readlink(proc / "fd" / "1") == os.readlink(proc / "fd" / "2") == str(d.log_path)
    d.wait_searchable("QUAY41", "quay.md")
    # Its model, handed over from the server's load (fork_server.hand_over_model), embeds:
    # a question sharing no word with either note finds the right one by its vector.
    d.wait_searchable("rye", "oven.md")
    found = d.search("When is the harbour signal sounded?", 2, mode="vector")["results"]
    assert [r["source"] for r in found] == ["quay.md", "oven.md"], found
    # The server's own sockets and pipes (its socket to us, its wake-up pipe) are not
    # passed on: an executed daemon inherits none of ours either.
    server = fork_server()
    assert server is not None
    assert not channels(server.proc.pid) & channels(d.proc.pid)
    # Nor modules an executed daemon does not import (the server defers them as it does).
    assert not deferred_libraries(d.proc.pid)
    # Its settings came from its own environment, read after the fork.
    assert " DEBUG " in d.log()
    # Its store worker (tests/support/store_fork.py): the daemon's child, forked from the
    # spare made before any daemon code ran unless RAGD_TEST_FORK_STORE=0, and holding
    # what an executed one holds: no socket or pipe of the daemon's or the server's.
    (worker,) = live_children(d.proc.pid, STORE_WORKER)
    forked = str(server.cwd).encode() in Path(f"/proc/{worker}/environ").read_bytes()
    assert forked == (os.environ.get("RAGD_TEST_FORK_STORE", "1") != "0")
    assert os.readlink(f"/proc/{worker}/fd/0") == os.devnull
    assert os.readlink(f"/proc/{worker}/fd/2") == str(d.log_path)
    assert not channels(worker) & (channels(d.proc.pid) | channels(server.proc.pid))
    # The umask and the limits ragd set after the spare was made (0o077, raised soft limits).
    assert umask_and_limits(worker) == umask_and_limits(d.proc.pid)
    assert d.stop() == 0
    wait_for(lambda: not is_live(worker, STORE_WORKER), 30, "the store worker to end")
    d.start()
    d.kill9()
    assert d.proc.returncode == -signal.SIGKILL  # Popen's convention for a signal


def test_what_the_imports_read_decides_fork_or_exec(tmp_path: Path, server_on: None) -> None:
    server = fork_server()
    assert server is not None
    env = base_env(tmp_path)
    assert server.can_fork(env)
    # Ours and paths differ per test: read at run time, after the fork.
    assert server.can_fork(env | {"RAG_TOP_K": "7", "HOME": str(tmp_path / "elsewhere")})
    for name, value in [("OMP_NUM_THREADS", "1"), ("LANG", "C"), ("HF_HOME", str(tmp_path))]:
        assert not server.can_fork(env | {name: value}), name
    # What importing the stack sets itself is the same whether this process has imported
    # it yet (a component test's in-process model) or not: before, a model loaded here
    # after the server started made every later start executed. scikit-learn sets these
    # two; the server no longer imports it (fork_server.deferring), ragd's embedder does not.
    import sklearn  # noqa: F401  (sets them in this process)

    set_by_import = {k: os.environ[k] for k in ("KMP_DUPLICATE_LIB_OK", "KMP_INIT_AT_FORK")}
    without = {k: v for k, v in env.items() if k not in set_by_import}
    assert server.can_fork(without | set_by_import) and server.can_fork(without)
    assert not server.can_fork(without | {"KMP_INIT_AT_FORK": "TRUE"})  # another value
    # Our own `sitecustomize` hooks on PYTHONPATH are imported by the child itself; any
    # other folder there could change what the imports find.
    assert server.can_fork(env | slow_parse_env("slow-*.md", 1))
    assert server.can_fork(env | HungStat(tmp_path, "hung-*").env())
    assert not server.can_fork(env | {"PYTHONPATH": str(tmp_path)})


def test_a_forked_daemon_runs_the_hook_on_its_pythonpath(tmp_path: Path, server_on: None) -> None:
    """The stalled-mount hook (tests/support/hung_stat.py) given through PYTHONPATH: the
    forked child imports it as an executed daemon's start-up would, so its stats hang."""
    docs = corpus(tmp_path)
    (docs / "hung-notes.md").write_text("# Notes\n\nThe walk that lists this file hangs.\n")
    hung = HungStat(tmp_path, "hung-*")
    d = Daemon(tmp_path, [docs], env=hung.env()).start()
    try:
        assert isinstance(d.proc, ForkedProcess)
        wait_for(hung.entered, 60, "the daemon's stat of hung-notes.md to hang")
        assert hung.calls() == ["hung-notes.md"]
        hung.release()
        d.wait_searchable("QUAY41", "quay.md")
    finally:
        hung.release()
        assert d.stop() == 0


def test_a_start_the_server_cannot_give_is_executed(tmp_path: Path, server_on: None) -> None:
    d = Daemon(tmp_path, [corpus(tmp_path)], env={"OMP_NUM_THREADS": "1"}).start()
    assert isinstance(d.proc, subprocess.Popen)
    d.wait_searchable("QUAY41", "quay.md")
    # An executed daemon imports the model's libraries itself: having loaded the model,
    # indexed and searched, it has not imported scikit-learn or SciPy's optimizers, which
    # they import only for functions it never calls (ragd/index/deferred_imports.py).
    assert d.proc.pid and not deferred_libraries(d.proc.pid)
    assert d.stop() == 0


def deferred_libraries(pid: int) -> set[str]:
    """The compiled modules of scikit-learn and scipy.optimize that `pid` has loaded."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    files = {line.split()[-1] for line in maps if "/site-packages/" in line}
    return {f for f in files if "/sklearn/" in f or "/scipy/optimize/" in f}


def capabilities(status: str) -> dict[str, str]:
    """The Cap* lines of a /proc/PID/status text."""
    return dict(line.split(":\t") for line in status.splitlines() if line.startswith("Cap"))


def test_a_daemon_without_root_s_file_capabilities_is_forked_without_them(
    tmp_path: Path, server_on: None
) -> None:
    """`UnprivilegedDaemon` runs `ragd` through `setpriv` when executed; forked, the child
    drops the two capabilities itself and must hold the very sets setpriv leaves, and so
    must the parse workers it executes (the bounding set keeps them from coming back)."""
    if os.geteuid() != 0 or not UnprivilegedDaemon(tmp_path, []).command_prefix():
        pytest.skip("no capabilities to drop: not root, or setpriv cannot drop them here")
    assert SETPRIV is not None
    through_setpriv = subprocess.run(
        [SETPRIV, "--bounding-set", NO_DAC, "--inh-caps", NO_DAC, "cat", "/proc/self/status"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected = capabilities(through_setpriv)
    assert expected != capabilities(Path("/proc/self/status").read_text())  # something dropped
    d = UnprivilegedDaemon(tmp_path, [corpus(tmp_path)]).start()
    try:
        assert isinstance(d.proc, ForkedProcess)
        assert capabilities(Path(f"/proc/{d.proc.pid}/status").read_text()) == expected
        d.wait_searchable("QUAY41", "quay.md")  # parsed by a worker the daemon executed
        workers = [
            pid
            for pid in Path(f"/proc/{d.proc.pid}/task").glob("*/children")
            for pid in pid.read_text().split()
        ]
        assert workers, "the daemon has no parse worker"
        for pid in workers:
            assert capabilities(Path(f"/proc/{pid}/status").read_text()) == expected, pid
    finally:
        assert d.stop() == 0


def test_a_forked_ragd_check_and_its_forked_probe_reader_say_what_executed_ones_say(
    tmp_path: Path, server_on: None
) -> None:
    """`ragd check` is forked by the tests (Daemon.ragd) and its ChromaDB probe's reader
    from a spare (store_fork.py): the same report and exit status as the executed
    command and reader give, for a sound vector index and for one that will not open
    (the reader's error read from its stderr)."""
    d = Daemon(tmp_path, [corpus(tmp_path)]).start()
    d.wait_searchable("QUAY41", "quay.md")
    assert d.stop() == 0
    args = ("check", "--data-dir", str(d.data_dir), "--json")

    def both() -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
        forked = d.forked_command(args, 120)
        assert forked is not None, "a check in the daemon's environment is forked"
        executed = subprocess.run(
            [str(BIN / "ragd"), *args], env=d.env, capture_output=True, text=True, timeout=120
        )
        return forked, executed

    forked, executed = both()
    assert forked.returncode == executed.returncode == 0, forked.stdout + forked.stderr
    assert json.loads(forked.stdout) == json.loads(executed.stdout)
    assert json.loads(forked.stdout)["dense_vectors"] == 1

    sqlite = d.data_dir / "chroma" / "chroma.sqlite3"
    sqlite.write_bytes(b"not a database" * 512)
    forked, executed = both()
    assert forked.returncode == executed.returncode != 0, forked.stdout + forked.stderr
    said = json.loads(forked.stdout)
    assert said == json.loads(executed.stdout)
    assert any("vector index" in line for line in said["problems"]), said
