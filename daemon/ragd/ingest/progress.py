"""What `rag status` says of a burst of indexing: files and bytes done of total, each file once.

Work is measured in bytes: a file's size is given when it is queued (the scan and the
watcher have it from a stat), and its bytes count as done when its work really ends. One
1,578-window changelog is most of what is left when 640 one-paragraph files are done; a
count of files would call that "almost finished".

The writer sets slow files aside (`hold`) and finishes them later (`release`), so the job
that took a file can return long before the file is done. The rules that keep every file
counted once:

- a file is counted by its newest job: a job queued for a path that is still running or
  set aside takes the count and the bytes over from it (the older one ends adding
  nothing; a log being embedded while its next version waited was in the total twice);
- a slow file is done at `release`, not when the job that set it aside returns;
- set-aside work that is superseded (a newer version, a delete, a forget) was no work:
  its bytes leave the total;
- a job that finds its file already set aside and unchanged (`covered`) hands the count
  back to that slow file and adds no bytes of its own;
- a file done again in the same burst (a log applied version after version) replaces
  what its earlier version added: its bytes and its count are in once;
- a forgotten root leaves the burst whole (`forget_root`): its files queued, under way,
  set aside and already done. `rag forget R; rag ingest R` while another root kept the
  burst going showed R's files twice (each ingest's once), and bytes of R's work still
  under way at the forget credited again to the ingest after it.

`Ledger` is not thread-safe on its own: the work queue calls it under its lock.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field


@dataclass(eq=False)
class Flight:
    """A job the writer took, until its work ends: what it adds to `Progress` then."""

    # The queue's job (matched by equality; not imported: the queue imports this module),
    # or None for a file set aside that no job of this queue took.
    job: Hashable | None
    path: tuple[str, str]  # (root, relpath)
    size: int  # bytes, as queued
    counted: bool  # counted as a file in `Progress.total`
    held: bool = False  # set aside by the writer: ends at `release`
    returned: bool = False  # the job that took it has returned (`Ledger.returned`)


@dataclass
class Progress:
    """One burst of work, from the queue turning non-empty until it drains."""

    total: int = 0  # files (a folder's scan or a forget is not one)
    done: int = 0
    chunks: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    started: float = field(default_factory=time.monotonic)
    # When the writer took the burst's first job: rates are measured from here, as the
    # time before it (loading the model at start-up, the debounce) is no indexing.
    working_since: float | None = None
    # What each root's files added to `done` and `bytes_done`, so a forget can take it out.
    done_by_root: Counter[str] = field(default_factory=Counter)
    bytes_done_by_root: Counter[str] = field(default_factory=Counter)
    # Files and bytes done in this burst for roots forgotten since: no longer in done or
    # total, but the time they took is, so the rates (and the ETA) still count them.
    forgotten_done: int = 0
    forgotten_bytes_done: int = 0
    # Each file done in this burst: (size, counted) as it was credited.
    credited: dict[tuple[str, str], tuple[int, bool]] = field(default_factory=dict)

    def credit(self, flight: Flight, chunks: int) -> None:
        root = flight.path[0]
        # A file done again in this burst (a log applied version after version) counts
        # once, as its newest version: each version's bytes were added to what is done
        # and to the total (44 MB of 48 MB for one 4 MB log still being written).
        again = self.credited.get(flight.path)
        if again is not None:
            size, counted = again
            self.total -= counted
            self.bytes_total -= size
            self._add_done(root, -counted, -size)
        self.credited[flight.path] = (flight.size, flight.counted)
        self._add_done(root, flight.counted, flight.size)
        self.chunks += chunks

    def _add_done(self, root: str, files: int, size: int) -> None:
        """`files` and `size` bytes more done, for the whole burst and for `root`."""
        self.done += files
        self.bytes_done += size
        self.done_by_root[root] += files
        self.bytes_done_by_root[root] += size

    def take_out(self, root: str) -> None:
        """What `root`'s files added when done leaves done and total."""
        done, size = self.done_by_root.pop(root, 0), self.bytes_done_by_root.pop(root, 0)
        self.credited = {path: c for path, c in self.credited.items() if path[0] != root}
        self.done -= done
        self.total -= done
        self.bytes_done -= size
        self.bytes_total -= size
        self.forgotten_done += done
        self.forgotten_bytes_done += size

    def uncount(self, flight: Flight) -> None:
        """The flight's work turned out to be none (superseded, or counted elsewhere)."""
        self.total -= flight.counted
        self.bytes_total -= flight.size
        flight.counted, flight.size = False, 0


class Ledger:
    """The progress of one work queue: what each job taken adds when its work ends."""

    def __init__(self) -> None:
        self.progress = Progress()
        self._flights: list[Flight] = []  # taken and not ended: a batch, plus slow files

    def queued(
        self, path: tuple[str, str], size: int, counted: bool, was: tuple[int, bool]
    ) -> None:
        """A job for `path` queued, or re-queued with a new size (`was`: its size and
        count before)."""
        p = self.progress
        p.bytes_total += size - was[0]
        p.total += counted - was[1]
        if counted and not was[1]:
            for flight in self._open(path):
                p.uncount(flight)  # the newest job carries the file, and its bytes

    def taken(self, job: Hashable, path: tuple[str, str], size: int, counted: bool) -> None:
        self._flights.append(Flight(job, path, size, counted))
        if self.progress.working_since is None:
            self.progress.working_since = time.monotonic()

    def returned(self, job: Hashable | None, chunks: int) -> None:
        """The writer is done with `job` (None: the oldest job taken); a file it set aside
        is done only at `release`."""
        for flight in self._flights:
            if not flight.returned and (job is None or flight.job == job):
                flight.returned = True
                if not flight.held:
                    self._flights.remove(flight)
                    self.progress.credit(flight, chunks)
                return

    def underway(self) -> int:
        """Files the writer has taken into the batch it is on: read and planned one after
        another, then embedded and stored together, and only then done. A first batch of
        40 files held `rag ingest` at "0/47 files" for 40 s with nothing else said
        (newuser44)."""
        return sum(f.counted and not f.held and not f.returned for f in self._flights)

    def hold(self, root: str, relpath: str) -> Flight:
        flight = next(self._running((root, relpath)), None)
        if flight is None:  # not taken from the queue: counted from here on
            flight = Flight(None, (root, relpath), 0, True, returned=True)
            self._flights.append(flight)
            self.progress.total += 1
        flight.held = True
        return flight

    def release(self, flight: Flight, chunks: int, superseded: bool) -> None:
        if flight in self._flights:
            self._flights.remove(flight)
        if superseded:
            self.progress.uncount(flight)
        else:
            self.progress.credit(flight, chunks)

    def covered(self, root: str, relpath: str) -> None:
        running = next(self._running((root, relpath)), None)
        if running is None:
            return
        held = next((f for f in self._open((root, relpath)) if f.held), None)
        if held is not None and running.counted and not held.counted:
            # the count and the bytes go back to it
            held.counted, running.counted = True, False
            held.size, running.size = running.size, 0
        # (No file set aside: the job put back in the queue carries the file.)
        self.progress.uncount(running)

    def forget_root(self, root: str, queued: Iterable[tuple[int, bool]]) -> None:
        """`root` left the watched set: its jobs still `queued` (size, counted: the queue
        dropped them), its flights (each ends adding nothing) and its files done leave
        the burst, so an ingest of it after this counts each of its files once."""
        p = self.progress
        for size, counted in queued:
            p.total -= counted
            p.bytes_total -= size
        for flight in self._flights:
            if flight.path[0] == root:
                p.uncount(flight)
        p.take_out(root)

    def _open(self, path: tuple[str, str]) -> Iterator[Flight]:
        """This file's flights not ended (running or set aside), newest first."""
        return (f for f in reversed(self._flights) if f.path == path)

    def _running(self, path: tuple[str, str]) -> Iterator[Flight]:
        """This file's jobs being run now (not set aside, not returned), newest first."""
        return (f for f in self._open(path) if not f.held and not f.returned)
