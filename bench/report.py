"""The table bench/run.py prints: a header about the machine and the run, then one block per
section (a)–(g), each drawn by its own function from bench/out/results.json's figures."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class Table:
    def __init__(self, results: dict[str, Any], only: str) -> None:
        self.r = results
        self.only = only
        self.lines: list[str] = []

    def head(self, key: str, title: str, *columns: str) -> bool:
        """Start a section; False (after printing why) when it did not run or failed."""
        if key not in self.only:
            return False
        self.lines.append("")
        self.row(title, *columns, indent="")
        if "error" in self.r.get(key, {"error": "not measured"}):
            self.lines.append(f"    FAILED: {self.r.get(key, {}).get('error', 'not measured')}")
            return False
        return True

    def row(self, label: str, *cells: str, indent: str = "    ") -> None:
        width = 48 - len(indent)
        text = f"{indent}{label:<{width}}" + "".join(f" {c:>14}" for c in cells)
        self.lines.append(text.rstrip())

    def note(self, text: str) -> None:
        self.lines.append(f"    {text}")

    def background(self, *samples: tuple[str, dict[str, Any] | None]) -> None:
        parts = [
            f"{label}{s['other_cores']:.2f}"
            + (f" (+{s['steal_cores']:.2f} steal)" if s.get("steal_cores", 0) >= 0.05 else "")
            for label, s in samples
            if s
        ]
        if parts:
            self.note("other processes' load, cores: " + ", ".join(parts))


def max_background(results: dict[str, Any]) -> float:
    loads = [
        value.get("other_cores", 0.0)
        for section in results.values()
        if isinstance(section, dict)
        for key, value in section.items()
        if key.startswith("background") and isinstance(value, dict)
    ]
    return max(loads, default=0.0)


def ms_cells(stats: dict[str, Any], keys: Sequence[str] = ("median", "p90")) -> list[str]:
    if not stats.get("n"):
        return ["—"] * len(keys)
    return [f"{stats[k]:.1f} ms" for k in keys]


def s_cells(stats: dict[str, Any]) -> list[str]:
    if not stats.get("n"):
        return ["—", "—"]
    return [f"{stats[k] / 1000:.3f} s" for k in ("median", "p90")]


def header(t: Table, report: dict[str, Any]) -> None:
    m, plan = report["machine"], report["plan"]
    bf16 = "yes" if m["bf16"]["avx512_bf16"] or m["bf16"]["amx_bf16"] else "no"
    t.lines += [
        f"ragd benchmarks · {report['date']} · {m['cpu']} · {m['usable_cores']} cores "
        f"(bf16 matmul: {bf16}) · {m['memory_gb']} GB · Python {m['python']} · "
        f"torch {m['torch']} · ragd {m['ragd']}",
        f"{'quick' if report['quick'] else 'full'} run: {plan['files']} generated files, "
        f"{plan['cli_runs']} CLI runs, {plan['reps']} edits per kind of save, seed "
        f"{plan['seed']}; took {report['duration_s'] / 60:.1f} min",
    ]
    busiest = max_background(report["results"])
    if busiest >= 0.3:
        t.lines.append(
            f"NOTE: other processes kept up to {busiest:.1f} of {m['usable_cores']} cores busy "
            "during this run (per section below): wall-clock figures are inflated by it."
        )


def cli(t: Table, a: dict[str, Any]) -> None:
    t.row("python -c pass  (baseline)", *ms_cells(a["python_pass"]))
    t.row('python -c "import zmq"  (pyzmq alone)', *ms_cells(a["python_import_zmq"]))
    t.row("rag status  (client + round trip)", *ms_cells(a["rag_status"]))
    t.row("rag search QUESTION", *ms_cells(a["rag_search"]))
    t.row("rag ÷ python -c pass", f"{a['ratio_rag_to_python_pass']:.2f}×")
    t.row("rag search − rag status", f"{a['search_share_ms']:.1f} ms")
    t.row("target", f"≤ {a['target_median_ms']} ms")
    t.background(("", a.get("background")))


def freshness(t: Table, b: dict[str, Any]) -> None:
    for key, label in (("in_place_write", "in-place write"), ("atomic_save", "atomic save")):
        s = b[key]
        lost = f", {s['timeouts']} timed out" if s["timeouts"] else ""
        t.row(f"{label} (n={s['n']}{lost})", *s_cells(s))
    t.row("target", f"≤ {b['target_median_s']:.1f} s")
    t.background(("", b.get("background")))


def ingest(t: Table, c: dict[str, Any]) -> None:
    gen = c["corpus"]
    t.note(
        f"{gen['files']} files ({gen['min_bytes']}–{gen['max_bytes']} B, "
        f"{gen['bytes'] / 1e6:.1f} MB) → {c['chunks']} chunks, {c['windows']} windows, "
        f"{c['word_pieces']:,} word pieces; {c['precision']}, batch {c['batch_size']}"
    )
    t.row(
        f"ragd: ingest call → idle ({c['daemon_seconds']:.1f} s)",
        f"{c['daemon_chunks_per_s']:.1f}",
        f"{c['daemon_word_pieces_per_s']:,}",
    )
    t.row(
        f"raw SentenceTransformer.encode, same windows ({c['raw_encode_seconds']:.1f} s)",
        f"{c['raw_chunks_per_s']:.1f}",
        f"{c['raw_word_pieces_per_s']:,}",
    )
    t.row("ratio ragd ÷ raw (wall time)", f"{c['ratio'] * 100:.1f} %")
    t.row(
        "ratio by CPU time (raw ÷ daemon CPU s)",
        f"{c['ratio_cpu_time'] * 100:.1f} %",
        f"{c['raw_encode_cpu_seconds']:.0f}/{c['daemon_cpu_seconds']:.0f} s",
    )
    t.row("target", f"≥ {c['target_ratio'] * 100:.0f} %")
    t.note(
        f"check: embeddings computed {c['embeddings_computed']} = distinct windows "
        f"{c['windows']}; chunks {c['chunks']} (daemon) / {c['chunks_in_process']} "
        f"(in-process); {c['errors']} file errors"
    )
    t.background(("ingest ", c.get("background_during_ingest")), ("raw ", c.get("background")))


def incremental(t: Table, d: dict[str, Any]) -> None:
    goal, edit = d["targets"], d["one_paragraph_edit"]
    t.row(
        f"one-paragraph edit ({d['file_chunks']}-chunk file)",
        str(edit["computed"]),
        str(edit["reused"]),
        f"≤ {goal['edit']}",
    )
    spread = d["edits_across_file"]
    t.row(
        f"{len(spread['computed'])} such edits across the file: median / max",
        f"{spread['median']} / {spread['max']}",
        "",
        f"≤ {goal['edit']}",
    )
    t.row("rename", str(d["rename"]["computed"]), str(d["rename"]["reused"]), "0")
    for key, label in (("touch", "touch (new mtime)"), ("same_bytes_save", "same-bytes save")):
        seen = "" if d[key]["rechecked_by_daemon"] else " [no re-check seen]"
        t.row(label + seen, str(d[key]["computed"]), str(d[key]["reused"]), "0")
    t.note(
        f"chunks changed per edit (chunker view): "
        f"{', '.join(str(e['chunks_changed']) for e in spread['detail'])}; "
        f"embeddings: {', '.join(map(str, spread['computed']))}"
    )


def memory(t: Table, e: dict[str, Any]) -> None:
    rows = [(f"after indexing {e['files']} files", e["after_indexing"])]
    if "after_searches" in e:
        rows.append(("after the (f) searches", e["after_searches"]))
    if "sample_daemon" in e:
        rows.append((f"sample_corpus ({e['sample_daemon']['chunks']} chunks)", e["sample_daemon"]))
    for label, mem in rows:
        t.row(label, f"{mem['rss_mb']:.0f} MB", f"{mem['peak_rss_mb']:.0f} MB")


def search(t: Table, f: dict[str, Any]) -> None:
    keys = ("median", "p90", "p99")
    t.row(f"hybrid (n={f['hybrid']['n']})", *ms_cells(f["hybrid"], keys))
    for mode in ("vector", "bm25"):
        t.row(f"{mode} only (n={f[mode]['n']})", *ms_cells(f[mode], keys))
    ping = f["ping_round_trip"]
    t.row(f"ping: IPC + loop (n={ping['n']})", *(f"{ping[k]:.2f} ms" for k in keys))
    for verdict, times in f.get("keyless_ask", {}).items():
        t.row(f"keyless ask, {verdict} (n={times['n']})", *ms_cells(times, keys))
    t.background(("", f.get("background")))


def precision(t: Table, g: dict[str, Any]) -> None:
    for key, label in (("sample_corpus", "sample_corpus"), ("long_windows", "long windows")):
        e = g[key]
        t.row(
            f"{label}: {e['chunks']} chunks, {e['word_pieces_per_window']:.0f} pieces/window",
            f"{e['float32']['chunks_per_s']:.1f}/s",
            f"{e['bfloat16']['chunks_per_s']:.1f}/s",
            f"{e['speedup_bf16']:.2f}×",
        )
    f32, b16 = g["float32"], g["bfloat16"]
    t.row(
        f"hit@5, dense only ({f32['questions']} answerable)",
        f"{f32['hit_at_5']:.3f}",
        f"{b16['hit_at_5']:.3f}",
    )
    cos = g["cosine_f32_bf16"]
    t.row("cosine bf16 vs f32 (mean / min)", f"{cos['mean']:.4f}", f"{cos['min']:.4f}")
    t.background(("", g.get("background")))
    t.note(f"→ {g['recommendation']}")
    if "auto" in g:
        t.note(f"→ embed_precision auto here: {g['auto']['precision']} ({g['auto']['reason']})")


def first_index(t: Table, h: dict[str, Any]) -> None:
    a = h["a"]
    rows = (
        ("(a) encode the text once, ≤ 254 pieces", a),
        ("(a′) CLI agent: chunks cut at 256 pieces", h["a_agent"]),
        ("(b) ragd, fresh data + cache dir → settled", h["b"]),
        ("(c) ragd restarted → settled", h["c"]),
    )
    for label, run in rows:
        ratio = f"{run['cpu_s'] / a['cpu_s']:.2f}×"
        t.row(label, f"{run['cpu_s']:.1f} s", f"{run['wall_s']:.1f} s", ratio)
    b, c = h["targets"]["b_over_a_cpu"], h["targets"]["c_over_a_cpu"]
    t.note(f"→ targets in CPU time: (b)/(a) ≤ {b}, (c)/(a) ≤ {c}")


def start(t: Table, i: dict[str, Any]) -> None:
    for name, step in i["steps"].items():
        t.row(name, f"{step['wall_s']:.2f} s", f"{step['cpu_s']:.2f} s")
    t.row(
        f"READY after exec (median of {i['restarts']})",
        f"{i['ready_after_exec_s']:.2f} s",
        f"{i['cpu_to_ready_s']:.2f} s",
    )
    t.row("+ the vector index probe (a child)", "", f"{i['children_cpu_to_ready_s']:.2f} s")
    t.row("spawn → `status` past starting", f"{i['status_ready_s']:.2f} s", "")
    t.background(("", i.get("background")))
    t.note(f"→ target: READY ≤ {i['target_ready_s']:g} s (wall, warm page cache)")


# section → (title, column headings, how to draw its figures)
BLOCKS: dict[str, tuple[str, tuple[str, ...], Callable[[Table, dict[str, Any]], None]]] = {
    "a": ("(a) `rag search`, whole process (wall)", ("median", "p90"), cli),
    "b": ("(b) save → searchable", ("median", "p90"), freshness),
    "c": ("(c) ingest throughput", ("chunks/s", "pieces/s"), ingest),
    "d": ("(d) embeddings computed", ("computed", "reused", "target"), incremental),
    "e": ("(e) daemon memory", ("VmRSS", "peak VmHWM"), memory),
    "f": ("(f) search round trip, persistent conn.", ("p50", "p90", "p99"), search),
    "g": ("(g) float32 vs bfloat16", ("float32", "bfloat16", "bf16 ÷ f32"), precision),
    "h": ("(h) first index", ("CPU", "wall", "CPU ÷ (a)"), first_index),
    "i": ("(i) start → READY, existing data dir", ("wall", "CPU"), start),
}


def render(report: dict[str, Any]) -> str:
    t = Table(report["results"], report["only"])
    header(t, report)
    for key, (title, columns, draw) in BLOCKS.items():
        if t.head(key, title, *columns):
            draw(t, report["results"][key])
    return "\n".join(t.lines)
