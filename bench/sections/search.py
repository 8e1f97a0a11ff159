"""(f) search latency inside the daemon over one persistent ZeroMQ connection, and what a
keyless `ask` adds: the gate, then (when it passes) the quotes chosen from the page, whose
units are embedded for each answer."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import corpus
from common import Plan, ms, say
from harness import BenchDaemon, summary


def bench_search(daemon: BenchDaemon, plan: Plan) -> dict[str, Any]:
    say(f"(f) {plan.queries} hybrid searches over one persistent connection")
    asks = corpus.queries(plan.seed, plan.queries + 200)
    warm, timed, per_mode = asks[:20], asks[20 : 20 + plan.queries], asks[-100:]
    for query in warm:
        daemon.call("search", query=query, top_k=5)

    def timed_calls(op: str, items: Sequence[dict[str, Any]]) -> tuple[list[float], int]:
        latencies, empty = [], 0
        for args in items:
            started = time.perf_counter()
            reply = daemon.call(op, **args)
            latencies.append(time.perf_counter() - started)
            empty += op == "search" and not reply["results"]
        return latencies, empty

    hybrid, empty = timed_calls("search", [{"query": q, "top_k": 5} for q in timed])
    out: dict[str, Any] = {"hybrid": ms(hybrid) | {"empty_results": empty}}
    for mode in ("vector", "bm25"):
        latencies, _ = timed_calls(
            "search", [{"query": q, "top_k": 5, "mode": mode} for q in per_mode]
        )
        out[mode] = ms(latencies)
    pings, _ = timed_calls("ping", [{}] * 200)
    out["ping_round_trip"] = summary(pings, scale=1000.0, digits=3)
    out["keyless_ask"] = keyless_asks(daemon, asks[20 : 20 + min(plan.queries, 60)])
    return out


def keyless_asks(daemon: BenchDaemon, questions: Sequence[str]) -> dict[str, Any]:
    """`ask` round trips (the bench's daemon has no key: quotes), apart by the gate's
    verdict: a refusal stops at the gate, an answer embeds the page's units too."""
    by_verdict: dict[str, list[float]] = {"answered": [], "refused": []}
    for question in questions:
        started = time.perf_counter()
        reply = daemon.call("ask", question=question, top_k=5)
        elapsed = time.perf_counter() - started
        by_verdict["refused" if reply.get("refused") else "answered"].append(elapsed)
    return {verdict: ms(times) for verdict, times in by_verdict.items() if times}
