"""(e) daemon memory (VmRSS, VmHWM), read after indexing and after the (f) searches."""

from __future__ import annotations

from harness import BenchDaemon


def memory(daemon: BenchDaemon) -> dict[str, float]:
    values = daemon.memory_kb()
    return {
        "rss_mb": round(values.get("VmRSS", 0) / 1024, 1),
        "peak_rss_mb": round(values.get("VmHWM", 0) / 1024, 1),
    }
