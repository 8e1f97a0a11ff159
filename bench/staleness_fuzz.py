"""A model-based fuzzer for "never stale": random file-system operations under a live
`ragd serve`, then the index compared with the disk.

    .venv/bin/python -m bench.staleness_fuzz --seeds 1-20 --bursts 15 --out /tmp/fuzz

One daemon on two roots (`r1`, `r2`) under a temporary folder, a folder `out` beside
them (outside the roots: folders moved out are edited there), and a git repository
`r1/repo` with two branches. Each seed draws its operations from `random.Random(seed)`
(the operations chosen are deterministic; the daemon's timing is not). Between bursts of
0–N operations, 0–300 ms apart (`--gap-ms`), the fuzzer polls
the index until it matches the model and the daemon is idle, at least a second after the
burst (`CONVERGE_S` at most; past it, a divergence is recorded with the operations that
led to it).

The model is what a user expects searchable, recomputed from the disk after each burst
(`expected`): every regular file under a root (never through a symbolic link: the default
`follow_symlinks = false`), outside `.git`, whose name is a Markdown or text note and no
editor's temporary, readable, with some text. Every note the fuzzer writes holds unique
tokens (`zq…`), one per write, so a file's indexed text (read through `documents` and `get`,
the MCP `get`'s op) must hold exactly the tokens of its current bytes; a token no expected
file holds any more (an old version, a deleted, ignored or unreadable file) must not be
found by a BM25 search (a sample of them per check).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import BenchDaemon, percentile

from ragd.core.config import in_capitals
from ragd.harness import private_daemon

TOKEN = re.compile(r"\bzq[a-z0-9]+\b")
NOTE_SUFFIXES = (".md", ".txt")
TEMP = re.compile(r"(\.swp|\.swo|~|\.tmp|\.part|\.bak)$")
CONVERGE_S = 20.0  # a burst not matched by then is a divergence
POLL_S = 0.1


@dataclass
class World:
    """The folders the operations act on and the tokens written so far."""

    base: Path
    rng: random.Random
    seed: int
    counter: int = 0
    written: set[str] = field(default_factory=set)
    tars: list[tuple[Path, Path]] = field(default_factory=list)  # (archive, folder extracted to)
    branch: str = "main"
    closed: list[Path] = field(default_factory=list)  # chmod 000 until opened again

    @property
    def roots(self) -> list[Path]:
        return [self.base / "r1", self.base / "r2"]

    @property
    def out(self) -> Path:
        return self.base / "out"

    @property
    def repo(self) -> Path:
        return self.base / "r1" / "repo"

    def token(self) -> str:
        self.counter += 1
        tok = f"zq{self.seed}x{self.counter}"
        self.written.add(tok)
        return tok

    def note(self) -> str:
        return f"# Note {self.counter}\n\nThis note is about {self.token()} and nothing else.\n"

    # -- what exists -------------------------------------------------------------------
    def _walk(self, top: Path, dirs: bool) -> list[Path]:
        found: list[Path] = []
        for folder, subdirs, files in os.walk(top):
            subdirs[:] = [d for d in subdirs if d != ".git"]
            here = Path(folder)
            if here == self.repo or self.repo in here.parents:
                continue  # the repository changes only by checkouts
            names = subdirs if dirs else files
            found += [
                here / n
                for n in names
                if here / n != self.repo and (not dirs or not (here / n).is_symlink())
            ]
        return found

    def files(self, everywhere: bool = False) -> list[Path]:
        tops = self.roots + ([self.out] if everywhere else [])
        return sorted(
            p for t in tops for p in self._walk(t, False) if p.is_file() and not p.is_symlink()
        )

    def folders(self, top: Path | None = None) -> list[Path]:
        tops = [top] if top else self.roots
        return sorted(
            p for t in tops for p in self._walk(t, True) if p.is_dir() and not p.is_symlink()
        )

    def any_folder(self) -> Path:
        return self.rng.choice(self.roots + self.folders())

    def new_name(self, folder: Path, suffix: str | None = None) -> Path:
        suffix = suffix or self.rng.choice(NOTE_SUFFIXES)
        return folder / f"n{self.counter}-{self.rng.randrange(1000)}{suffix}"


# -- operations --------------------------------------------------------------------------
# Each takes the world and returns a one-line description, or None when it had nothing to
# act on (then nothing was done).


def op_create(w: World) -> str:
    path = w.new_name(w.any_folder())
    path.write_text(w.note())
    return f"create {path}"


def pick_folder(w: World) -> Path | None:
    folders = w.folders()
    return w.rng.choice(folders) if folders else None


def pick_file(w: World) -> Path | None:
    """A file in a root; now and then one outside them (in a folder moved out)."""
    files = w.files(everywhere=w.rng.random() < 0.15)
    return w.rng.choice(files) if files else None


Act = Callable[[World, Path], "str | None"]


def on_file(act: Act) -> Callable[[World], str | None]:
    """The operation `act` on a file `pick_file` chooses (nothing when there is none)."""

    def op(w: World) -> str | None:
        f = pick_file(w)
        return None if f is None else act(w, f)

    return op


def on_folder(act: Act) -> Callable[[World], str | None]:
    """The operation `act` on a folder `pick_folder` chooses (nothing when there is none)."""

    def op(w: World) -> str | None:
        d = pick_folder(w)
        return None if d is None else act(w, d)

    return op


@on_file
def op_edit(w: World, f: Path) -> str | None:
    with contextlib.suppress(PermissionError):
        f.write_text(w.note())
    return f"edit {f}"


@on_file
def op_append(w: World, f: Path) -> str | None:
    with contextlib.suppress(PermissionError), open(f, "a") as out:
        out.write(f"\nAppended: {w.token()}.\n")
    return f"append {f}"


@on_file
def op_truncate(w: World, f: Path) -> str | None:
    with contextlib.suppress(PermissionError):
        f.write_bytes(b"")
    return f"truncate {f}"


@on_file
def op_atomic_save(w: World, f: Path) -> str | None:
    temp = f.parent / f"sed{w.rng.randrange(10**6):06d}"  # sed -i's name
    temp.write_text(w.note())
    os.rename(temp, f)
    return f"atomic-save {f} via {temp.name}"


@on_file
def op_rename(w: World, f: Path) -> str | None:
    kind = w.rng.choice(["within", "across", "root", "case"])
    if kind == "within":
        to = w.new_name(f.parent)
    elif kind == "case":
        to = f.with_name(f.name.swapcase())
        if to.exists():
            return None
    elif kind == "root":
        other = [r for r in w.roots if r not in f.parents]
        to = w.new_name(other[0] if other else w.roots[0], f.suffix)
    else:
        to = w.new_name(w.any_folder(), f.suffix)
    os.rename(f, to)
    return f"rename {f} -> {to}"


def op_hide(w: World) -> str | None:
    """To a name ragd ignores or does not index: `.x.swp`, a skipped suffix."""
    f = pick_file(w)
    if f is None or TEMP.search(f.name) or f.suffix == ".zzz":
        return None
    to = f.with_name(w.rng.choice([f".{f.name}.swp", f"{f.name}.zzz", f"{f.name}~"]))
    os.rename(f, to)
    return f"hide {f} -> {to.name}"


def op_unhide(w: World) -> str | None:
    hidden = [f for f in w.files() if TEMP.search(f.name) or f.suffix == ".zzz"]
    hidden = [f for f in hidden if not f.name.startswith("sed")]
    if not hidden:
        return None
    f = w.rng.choice(hidden)
    name = f.name.lstrip(".")
    for end in (".swp", ".zzz", "~"):
        name = name.removesuffix(end)
    to = f.with_name(name if name.endswith(NOTE_SUFFIXES) else name + ".md")
    if to.exists():
        return None
    os.rename(f, to)
    return f"unhide {f} -> {to.name}"


def op_mkdir_tree(w: World) -> str:
    top = w.any_folder() / f"d{w.counter}"
    top.mkdir()
    for depth in range(w.rng.randint(1, 3)):
        sub = top / "/".join(f"s{i}" for i in range(depth))
        sub.mkdir(parents=True, exist_ok=True)
        for _ in range(w.rng.randint(1, 2)):
            w.new_name(sub).write_text(w.note())
    return f"mkdir-tree {top}"


@on_folder
def op_move_folder(w: World, d: Path) -> str | None:
    target = w.any_folder()
    if target == d or d in target.parents:
        target = w.rng.choice(w.roots)
    to = target / f"m{w.counter}{w.rng.randrange(100)}"
    if d in to.parents:
        return None
    os.rename(d, to)
    return f"move-folder {d} -> {to}"


@on_folder
def op_folder_out(w: World, d: Path) -> str | None:
    to = w.out / f"{d.name}-{w.counter}"
    os.rename(d, to)
    return f"folder-out {d} -> {to}"


def op_folder_in(w: World) -> str | None:
    outside = [p for p in w.out.iterdir() if p.is_dir() and not p.is_symlink()]
    if not outside:
        return None
    d = w.rng.choice(outside)
    to = w.any_folder() / f"back{w.counter}{w.rng.randrange(100)}"
    os.rename(d, to)
    return f"folder-in {d} -> {to}"


@on_folder
def op_rmtree(w: World, d: Path) -> str | None:
    shutil.rmtree(d)
    return f"rm-rf {d}"


@on_folder
def op_recreate(w: World, d: Path) -> str | None:
    """A folder deleted and made again under its name with new notes."""
    shutil.rmtree(d)
    d.mkdir()
    w.new_name(d).write_text(w.note())
    return f"rm-rf+mkdir {d}"


def op_copy_tree(w: World) -> str:
    src = w.out / f"tree{w.counter}"
    (src / "inner").mkdir(parents=True)
    for folder in (src, src / "inner"):
        for _ in range(w.rng.randint(1, 3)):
            w.new_name(folder).write_text(w.note())
    to = w.any_folder() / f"copy{w.counter}"
    subprocess.run(["cp", "-r", str(src), str(to)], check=True)
    return f"cp-r {src.name} -> {to}"


def op_checkout(w: World) -> str:
    w.branch = "other" if w.branch == "main" else "main"
    run_git(w.repo, "checkout", "-q", "-f", w.branch)
    return f"git checkout {w.branch}"


@on_folder
def op_tar_create(w: World, d: Path) -> str | None:
    archive = w.out / f"snap{w.counter}.tar"
    subprocess.run(["tar", "cf", str(archive), "-C", str(d), "."], check=True)
    w.tars.append((archive, d))
    return f"tar c {d}"


def op_tar_extract(w: World) -> str | None:
    if not w.tars:
        return None
    archive, d = w.rng.choice(w.tars)
    if not d.is_dir():
        return None
    # Over existing files, with the archive's mtimes (tar's default).
    subprocess.run(["tar", "xf", str(archive), "-C", str(d)], check=False, capture_output=True)
    return f"tar x {archive.name} over {d}"


@on_file
def op_hardlink(w: World, f: Path) -> str | None:
    to = w.new_name(w.any_folder(), f.suffix)
    os.link(f, to)
    return f"ln {f} {to}"


def op_symlink(w: World) -> str | None:
    if w.rng.random() < 0.5:
        target: Path | None = pick_file(w)
        kind = "file"
    else:
        target, kind = pick_folder(w), "folder"
    if target is None:
        return None
    to = w.new_name(w.any_folder(), ".md" if kind == "file" else "")
    os.symlink(target, to)
    return f"ln -s {target} {to}"


def op_replace_by_link(w: World) -> str | None:
    """A file or folder replaced by a symbolic link of its name (to another note or
    folder), by `ln -sf` or by a link renamed over it; then a link by a file again."""
    links = [p for t in w.roots for p in t.rglob("*") if p.is_symlink()]
    if links and w.rng.random() < 0.4:
        link = w.rng.choice(links)
        temp = link.with_name(f"sed{w.rng.randrange(10**6):06d}")
        temp.write_text(w.note())
        os.rename(temp, link)
        return f"link->file {link}"
    f = pick_file(w) if w.rng.random() < 0.7 else pick_folder(w)
    target = pick_file(w)
    if f is None or target is None or target == f:
        return None
    if w.rng.random() < 0.5 and not f.is_dir():
        temp = f.with_name(f"sed{w.rng.randrange(10**6):06d}")
        os.symlink(target, temp)
        os.rename(temp, f)
        return f"mv link over {f} -> {target}"
    shutil.rmtree(f) if f.is_dir() else f.unlink()
    os.symlink(target, f)
    return f"replace {f} by link -> {target}"


def op_chmod(w: World) -> str | None:
    """Closed (`chmod 000`); opened again by `op_open` or at the burst's end, so other
    operations (by root, which may) act on it or inside it meanwhile."""
    f = pick_file(w) if w.rng.random() < 0.6 else pick_folder(w)
    if f is None:
        return None
    f.chmod(0)
    w.closed.append(f)
    return f"chmod 000 {f}"


def op_open(w: World) -> str | None:
    if not w.closed:
        return None
    f = w.closed.pop(w.rng.randrange(len(w.closed)))
    return open_again(f)


def open_again(f: Path) -> str:
    try:
        f.chmod(0o755 if f.is_dir() else 0o644)
    except OSError:  # moved or deleted meanwhile
        return f"chmod back {f}: gone"
    return f"chmod back {f}"


@on_file
def op_file_to_folder(w: World, f: Path) -> str | None:
    f.unlink()
    f.mkdir()
    w.new_name(f).write_text(w.note())
    return f"file->folder {f}"


@on_folder
def op_folder_to_file(w: World, d: Path) -> str | None:
    shutil.rmtree(d)
    d.write_text(w.note())
    return f"folder->file {d}"


@on_file
def op_touch(w: World, f: Path) -> str | None:
    with contextlib.suppress(PermissionError):
        os.utime(f)
    return f"touch {f}"


@on_file
def op_same_bytes(w: World, f: Path) -> str | None:
    with contextlib.suppress(PermissionError):
        f.write_bytes(f.read_bytes())
    return f"write-same {f}"


OPS = {
    "create": (op_create, 6),
    "edit": (op_edit, 5),
    "append": (op_append, 4),
    "truncate": (op_truncate, 1),
    "atomic-save": (op_atomic_save, 4),
    "rename": (op_rename, 5),
    "hide": (op_hide, 2),
    "unhide": (op_unhide, 2),
    "mkdir-tree": (op_mkdir_tree, 2),
    "move-folder": (op_move_folder, 2),
    "folder-out": (op_folder_out, 1),
    "folder-in": (op_folder_in, 1),
    "rm-rf": (op_rmtree, 1),
    "recreate": (op_recreate, 1),
    "cp-r": (op_copy_tree, 1),
    "checkout": (op_checkout, 1),
    "tar-c": (op_tar_create, 1),
    "tar-x": (op_tar_extract, 1),
    "hardlink": (op_hardlink, 1),
    "symlink": (op_symlink, 1),
    "replace-by-link": (op_replace_by_link, 1),
    "chmod": (op_chmod, 1),
    "chmod-back": (op_open, 1),
    "file->folder": (op_file_to_folder, 1),
    "folder->file": (op_folder_to_file, 1),
    "touch": (op_touch, 1),
    "same-bytes": (op_same_bytes, 1),
}


def run_git(repo: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="f", GIT_AUTHOR_EMAIL="f@x", GIT_COMMITTER_NAME="f")
    env["GIT_COMMITTER_EMAIL"] = "f@x"
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def setup(w: World) -> None:
    for folder in [*w.roots, w.out]:
        folder.mkdir(parents=True)
    for root in w.roots:
        for _ in range(3):
            w.new_name(root).write_text(w.note())
        sub = root / "sub"
        sub.mkdir()
        w.new_name(sub).write_text(w.note())
    w.repo.mkdir()
    run_git(w.repo, "init", "-q", "-b", "main")
    for i in range(4):
        (w.repo / f"page{i}.md").write_text(w.note())
    run_git(w.repo, "add", "-A")
    run_git(w.repo, "commit", "-q", "-m", "main")
    run_git(w.repo, "checkout", "-q", "-b", "other")
    (w.repo / "page0.md").write_text(w.note())  # changed
    (w.repo / "page1.md").unlink()  # gone on this branch
    (w.repo / "docs").mkdir()
    (w.repo / "docs" / "only-here.md").write_text(w.note())  # new
    run_git(w.repo, "add", "-A")
    run_git(w.repo, "commit", "-q", "-m", "other")
    run_git(w.repo, "checkout", "-q", "main")


# -- the model and the index -------------------------------------------------------------
def readable_text(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def expected(w: World) -> dict[str, set[str]]:
    """Source label → the tokens its indexed text must hold, from the disk."""
    model: dict[str, set[str]] = {}
    for root in w.roots:
        for folder, subdirs, files in os.walk(root):  # never follows links
            subdirs[:] = [d for d in subdirs if not d.startswith(".")]  # skip_folders' `.*`
            for name in files:
                path = Path(folder, name)
                if path.is_symlink() or name.startswith(".") or TEMP.search(name):
                    continue
                if not name.lower().endswith(NOTE_SUFFIXES) and not in_capitals(name):
                    continue  # (`COPY38`: a name in capitals is a document, as `README`)
                if name.startswith("sed") and "." not in name:
                    continue
                text = readable_text(path)
                if text is None or not text.strip():
                    continue
                model[f"{root.name}/{path.relative_to(root)}"] = set(TOKEN.findall(text))
    return model


def indexed(d: BenchDaemon) -> dict[str, set[str]]:
    docs = d.call("documents")["documents"]
    found: dict[str, set[str]] = {}
    for doc in docs:
        try:
            text = d.call("get", source=doc["source"])["text"]
        except Exception as exc:  # pruned between the two calls
            text = f"<{type(exc).__name__}>"
        found[doc["source"]] = set(TOKEN.findall(text))
    return found


def differences(model: dict[str, set[str]], index: dict[str, set[str]]) -> list[str]:
    out = []
    for src in sorted(model.keys() | index.keys()):
        want, got = model.get(src), index.get(src)
        if want is None:
            out.append(f"indexed but not expected: {src} {sorted(got or ())}")
        elif got is None:
            out.append(f"missing: {src} (wants {sorted(want)})")
        elif want != got:
            out.append(f"stale: {src} wants {sorted(want)} has {sorted(got)}")
    return out


def dead_found(d: BenchDaemon, w: World, model: dict[str, set[str]], n: int = 6) -> list[str]:
    live = set().union(*model.values()) if model else set()
    dead = sorted(w.written - live)
    out = []
    for tok in w.rng.sample(dead, min(n, len(dead))) if dead else []:
        hits = d.call("search", query=tok, mode="bm25", top_k=5)["results"]
        sources = [h["source"] for h in hits if tok in (h.get("text") or "")]
        if sources:
            out.append(f"dead token {tok} found in {sources}")
    return out


@dataclass
class Outcome:
    seed: int
    burst: int
    ops: list[str]
    converged_s: float | None
    problems: list[str]


def converge(d: BenchDaemon, w: World, ended: float) -> tuple[float | None, list[str]]:
    """Poll until the index matches the disk and the daemon is idle a second after
    `ended`; the seconds from `ended` to the first match that lasted, or None."""
    first_match: float | None = None
    problems: list[str] = []
    while True:
        now = time.monotonic()
        state = d.call("status")["state"]
        model = expected(w)
        problems = differences(model, indexed(d))
        if problems:
            first_match = None
        elif first_match is None:
            first_match = now
        if not problems and state == "idle" and now - ended >= 1.0:
            problems = dead_found(d, w, model)
            if not problems:
                return first_match - ended, []
            first_match = None
        if now - ended > CONVERGE_S:
            return None, [f"state {state}", *problems]
        time.sleep(POLL_S)


def daemon_action(d: BenchDaemon, w: World, kind: str) -> str:
    if kind == "ingest":
        target = w.rng.choice(w.roots + w.folders())
        d.call("ingest", path=str(target), timeout=60)
        return f"rag ingest {target}"
    if kind == "forget":
        root = w.rng.choice(w.roots)
        d.call("forget", root=root.name, timeout=60)
        time.sleep(w.rng.uniform(0, 0.3))
        d.call("ingest", path=str(root), timeout=60)
        return f"rag forget {root.name} then rag ingest it"
    if kind == "hup":
        d.proc.send_signal(signal.SIGHUP)  # type: ignore[union-attr]
        return "SIGHUP"
    if kind == "stop":
        d.proc.send_signal(signal.SIGSTOP)  # type: ignore[union-attr]
        return "SIGSTOP"
    raise ValueError(kind)


def still_closed(w: World) -> list[Path]:
    found = []
    for top in [*w.roots, w.out]:
        for folder, subdirs, files in os.walk(top):
            for name in subdirs + files:
                p = Path(folder, name)
                if not p.is_symlink() and stat.S_IMODE(p.lstat().st_mode) == 0:
                    found.append(p)
    return found


class UnprivilegedDaemon(BenchDaemon):
    """Through setpriv without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH when root, so a
    `chmod 000` closes a file or folder to the daemon as it does to a user's."""

    def command_prefix(self) -> list[str]:
        setpriv = shutil.which("setpriv")
        if os.geteuid() != 0 or setpriv is None:
            return []
        no_dac = "-dac_override,-dac_read_search"
        return [setpriv, "--bounding-set", no_dac, "--inh-caps", no_dac, "--"]


def run_seed(
    seed: int,
    bursts: int,
    max_ops: int,
    tmp: Path,
    daemon_ops: bool,
    only: set[str] | None,
    gap_s: float = 0.3,
    unprivileged: bool = False,
    weight: dict[str, float] | None = None,
) -> list[Outcome]:
    base = Path(tempfile.mkdtemp(prefix=f"fuzz{seed}-", dir=tmp))
    w = World(base / "w", random.Random(seed), seed)
    setup(w)
    env = private_daemon.isolated_env(base)
    env["RAG_EMBED_PRECISION"] = "float32"
    d = (UnprivilegedDaemon if unprivileged else BenchDaemon)(base, "fuzz", w.roots, env)
    d.start()
    d.wait_idle()
    outcomes: list[Outcome] = []
    names = [n for n in OPS if only is None or n in only]
    weights = [(weight or {}).get(n, OPS[n][1]) for n in names]
    try:
        for burst in range(bursts):
            ops: list[str] = []
            stopped_at = None
            for _ in range(w.rng.randint(0, max_ops)):
                if daemon_ops and w.rng.random() < 0.04:
                    kind = w.rng.choice(["ingest", "forget", "hup", "stop"])
                    if stopped_at is not None and kind in ("stop", "ingest", "forget"):
                        continue  # a stopped daemon's door answers "stopped", rightly
                    ops.append(daemon_action(d, w, kind))
                    if kind == "stop":
                        stopped_at = time.monotonic()
                else:
                    name = w.rng.choices(names, weights)[0]
                    try:
                        done = OPS[name][0](w)
                    except OSError as exc:  # raced its own earlier operation: said, no more
                        done = f"{name} failed ({exc})"
                    if done:
                        ops.append(done)
                time.sleep(w.rng.uniform(0, gap_s))
            while w.closed:  # every burst ends with all readable: the model reads as root
                ops.append(open_again(w.closed.pop()))
            ops += [open_again(p) for p in still_closed(w)]  # closed, then moved
            if stopped_at is not None:
                time.sleep(max(0.0, 5.0 - (time.monotonic() - stopped_at)))
                d.proc.send_signal(signal.SIGCONT)  # type: ignore[union-attr]
                ops.append("SIGCONT (after 5 s)")
            ended = time.monotonic()
            took, problems = converge(d, w, ended)
            outcomes.append(Outcome(seed, burst, ops, took, problems))
            mark = "ok " if not problems else "BAD"
            shown = f"{took:.2f} s" if took is not None else "never"
            print(f"seed {seed} burst {burst} {mark} {len(ops)} ops, matched {shown}", flush=True)
            if problems:
                print("  ops:\n    " + "\n    ".join(ops), flush=True)
                print("  problems:\n    " + "\n    ".join(problems[:20]), flush=True)
                break  # the rest of this seed would start from a wrong index
    finally:
        d.stop()
        log = d.log_path.read_text(errors="replace") if d.log_path.exists() else ""
        (tmp / f"seed{seed}.log").write_text(log)
        for p in base.rglob("*"):  # chmod'ed leftovers
            with contextlib.suppress(OSError):
                if not p.is_symlink():
                    p.chmod(stat.S_IRWXU | p.stat().st_mode)
        shutil.rmtree(base, ignore_errors=True)
    return outcomes


def seed_range(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out += list(range(int(low), int(high or low) + 1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--bursts", type=int, default=15)
    parser.add_argument("--max-ops", type=int, default=8)
    parser.add_argument("--gap-ms", type=float, default=300, help="at most this between operations")
    parser.add_argument("--daemon-ops", action="store_true", help="ingest/forget/SIGHUP/SIGSTOP")
    parser.add_argument("--unprivileged", action="store_true", help="daemon without CAP_DAC_*")
    parser.add_argument("--only", help="comma-separated operation names")
    parser.add_argument(
        "--weight",
        action="append",
        default=[],
        metavar="OP=N",
        help="an operation's weight instead of its default (repeatable): a mix of moves",
    )
    parser.add_argument("--out", type=Path, default=Path("/tmp/staleness-fuzz"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    weight = {op: float(n) for op, _, n in (w.partition("=") for w in args.weight)}
    unknown = set(weight) - set(OPS)
    if unknown:
        parser.error(f"no operation is called {sorted(unknown)}")
    outcomes: list[Outcome] = []
    for seed in seed_range(args.seeds):
        outcomes += run_seed(
            seed,
            args.bursts,
            args.max_ops,
            args.out,
            args.daemon_ops,
            only,
            args.gap_ms / 1000,
            args.unprivileged,
            weight,
        )
    times = [o.converged_s for o in outcomes if o.converged_s is not None]
    bad = [o for o in outcomes if o.problems]
    summary = {
        "bursts": len(outcomes),
        "divergences": len(bad),
        "converged_s": {
            "median": round(percentile(times, 50), 2),
            "p95": round(percentile(times, 95), 2),
            "max": round(max(times), 2) if times else None,
        },
    }
    print(json.dumps(summary))
    with open(args.out / "outcomes.jsonl", "a") as out:
        for o in outcomes:
            out.write(json.dumps(o.__dict__) + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
