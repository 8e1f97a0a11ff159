"""The `ask` and `chat_reset` ops: retrieve → gate → answer.

The gate runs first and alone decides whether any model is called: below the support
floor the reply is the fixed refusal and no request leaves the machine. Above it, the
configured `Answerer` writes the answer (query/answerers.py: Claude, an OpenAI-compatible
server, or quotes from the documents); API keys never leave the daemon (not in replies,
not in logs). Chat sessions keep their memory here, keyed by a client-chosen id.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from ragd.engine.components import Components, Startup
from ragd.query.answerers import Answerer, build_answerer, choose_backend
from ragd.query.chat_memory import ChatMemory
from ragd.query.follow_up import found_with_subject, searched_text
from ragd.query.neighbours import around_the_best, listed
from ragd.query.types import ChatTurn
from ragd.serve.arguments import arg_bool, arg_float, arg_int, arg_str
from ragd.serve.scoping import resolve_scope
from ragd.serve.server import Request, Responder
from ragd.serve.views import answer_reply, refused_reply, result_json
from ragproto.errors import BadRequest
from ragproto.protocol import (
    MAX_QUESTION_CHARS,
    MIN_SCORE_MAX,
    MIN_SCORE_MIN,
    TOP_K_MAX,
    TOP_K_MIN,
    WAIT_INTERVAL_S,
)

if TYPE_CHECKING:
    import numpy as np

    from ragd.core.config import LiveSettings, Settings
    from ragd.index.embedder import PieceFold

log = logging.getLogger("ragd.serve.ask")

MAX_SESSIONS = 64
LEANS_ON = 'note: searched together with the chat\'s subject, "{subject}" (/reset forgets it)'
# A chat's question that says earlier ones were asked (`turn`), on a session this daemon
# does not know: it restarted since (systemd, an upgrade, a data dir replaced) or let the
# conversation go to make room (MAX_SESSIONS). Said, not answered as if it remembered.
FORGOTTEN = (
    "note: this chat's earlier questions are not remembered (ragd restarted, or let the "
    "conversation go to make room): this one is answered on its own"
)
MAX_TURN = 1_000_000
MODEL_WITHOUT_KEY = (
    "note: --model has no effect: answers are extractive (quoted from the documents; "
    "ragd has no ANTHROPIC_API_KEY and no openai_base_url), so no model is called"
)


class AskService:
    """`ask` and `chat_reset`: owns the answerers, their settings and the chat sessions."""

    def __init__(self, startup: Startup, settings: LiveSettings) -> None:
        self.startup = startup
        self.settings = settings  # read at use: a reload changes `top_k` and the answerer
        self._sessions: OrderedDict[str, ChatMemory] = OrderedDict()
        self._lock = threading.Lock()
        # The answerer and the settings it was built from: built again once they change.
        self._answerer: tuple[Settings, Answerer] | None = None
        self._waits = WaitFrames()

    # -- the answerer --------------------------------------------------------------
    def answerer(self) -> Answerer:
        """The configured answerer, built on first use and after a reload changed the
        settings (model, API address, timeout, retries, context budget); raises
        ModelAuthError if they pin a backend that cannot work, e.g. claude without a key."""
        settings = self.settings.current
        with self._lock:
            if self._answerer is None or self._answerer[0] is not settings:
                answerer = build_answerer(settings, self._embed, self._fold_pieces)
                self._answerer = (settings, answerer)
            return self._answerer[1]

    def model_deadline_s(self) -> float:
        """The most a model answer can take with the settings in force (the answerer is
        built from the same ones)."""
        from ragd.query.model_answerer import total_deadline_s  # the answerer needs it too

        settings = self.settings.current
        return total_deadline_s(settings.api_timeout_s, settings.api_max_retries)

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self.startup.require().embedder.embed(texts, lane="query")

    def _fold_pieces(self, texts: list[str], fold: PieceFold) -> np.ndarray:
        return self.startup.require().embedder.fold_pieces(texts, fold, lane="query")

    # -- sessions ----------------------------------------------------------------
    def memory(self, session: str) -> tuple[ChatMemory | None, bool]:
        """The session's memory, and whether it is new (this daemon never saw it)."""
        if not session:
            return None, False
        with self._lock:
            # `is None`, not `or`: a memory that kept no turn (every question refused, or
            # each turn over the budget) is falsy, and still holds the chat's subject.
            memory = self._sessions.pop(session, None)
            new = memory is None
            if memory is None:
                memory = ChatMemory()
            self._sessions[session] = memory
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
            return memory, new

    def chat_reset(self, request: Request) -> dict[str, Any]:
        session = arg_str(request.args, "session", max_len=128)
        with self._lock:
            self._sessions.pop(session, None)
        return {"reset": True}

    # -- ask ---------------------------------------------------------------------
    def ask(self, request: Request, responder: Responder) -> None:
        components = self.startup.require()
        quoting = choose_backend(self.settings.current).kind == "extractive"
        # A model call may outlast the client's silence bound (ASK_TIMEOUT_S): until its
        # own deadline has passed (FRAMES_SPAN), `wait` frames keep the client listening
        # for the error that names the API; past that (a handler stuck for good) the
        # client's bound ends the wait.
        # They start with the retrieval: on a busy machine it can wait seconds behind the
        # floor's idle-time measurement (the first frame came at retrieval + a quarter of
        # the deadline, past a 9 s client's bound). The first answer also builds the
        # answerer, which imports its SDK (≈ 1.5 CPU s): the frames cover that too.
        for_s = None if quoting else self.model_deadline_s()
        with self._waits.during(responder, for_s):
            reply = self._answer(components, request.args, responder, quoting)
        responder.final(reply)  # after the frames stopped: none comes after the final one

    def _answer(
        self, components: Components, args: dict[str, Any], responder: Responder, quoting: bool
    ) -> dict[str, Any]:
        """Retrieve, gate and answer: the final reply (deltas streamed as they come)."""
        question = arg_str(args, "question", max_len=MAX_QUESTION_CHARS)
        top_k = arg_int(args, "top_k", self.settings.current.top_k, TOP_K_MIN, TOP_K_MAX)
        floor = arg_float(args, "min_score", None, MIN_SCORE_MIN, MIN_SCORE_MAX)
        model = args.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise BadRequest("'model' must be a non-empty string")
        json_mode = arg_bool(args, "json")
        memory, new = self.memory(str(args.get("session") or ""))
        turn = arg_int(args, "turn", 0, 0, MAX_TURN)  # the chat's earlier questions
        # Said, not silently ignored: the keyless answerer calls no model.
        notes = [MODEL_WITHOUT_KEY] if model is not None and quoting else []
        if memory is not None and new and turn > 0:
            notes.append(FORGOTTEN)
        scope = resolve_scope(
            args,
            components.roots,
            components.stores.manifest,
            self.settings.current.disk_deadline_s,
        )
        searched = question
        asked_in = scope.keys if scope else []
        if memory is not None:
            memory.within(asked_in)
            searched = searched_text(question, memory.subject)
        search = functools.partial(
            components.retriever.search,
            top_k=top_k,
            floor=floor,
            scope=scope.keys if scope else None,
        )
        result = search(searched)
        best = result.chunks[0].text if result.chunks else ""
        if searched != question and not found_with_subject(question, best):
            # "What about bicycles?": the subject's own passages won (query/follow_up.py)
            searched = question
            result = search(question)
        if memory is not None:
            if searched == question:
                memory.subject = question
            else:
                notes.append(LEANS_ON.format(subject=memory.subject))
        if result.note:  # the vector store could not be asked: BM25 only, as search says
            notes.append(f"note: {result.note}")
        sources = [result_json(i, c) for i, c in enumerate(result.chunks, start=1)]
        gate = result.gate.as_json()
        if not result.gate.passed:
            return refused_reply(result.gate, sources, notes)
        # Quoting embeds the passages' units here, on this machine's cores: the floor's
        # measurement waits for it as for the search (a model's answer is a network wait).
        # Quotes may come from the best chunk's neighbours too (query/neighbours.py).
        read = around_the_best(result.chunks, result.candidates) if quoting else result.chunks
        deadline_s = None if quoting else self.model_deadline_s()
        if deadline_s:  # the retrieval is done: building the answerer gets a span of its own
            self._waits.step(responder, deadline_s, FRAMES_SPAN * deadline_s)
        answerer = self.answerer()  # (built on first use: its SDK's import)
        if responder.cancel is not None:
            responder.cancel.check()  # the client gave up during the retrieval: no call
        if deadline_s:
            self._waits.step(responder, deadline_s, deadline_s)  # the call, by its deadline
        with components.retriever.in_flight.running() if quoting else nullcontext():
            answer = answerer.answer(
                # Quotes are chosen by what was searched; a model reads the question as
                # asked, with the earlier turns that say what it refers to.
                searched if quoting else question,
                read,
                gate=result.gate,
                history=memory.turns() if memory is not None else [],
                json_mode=json_mode,
                model=model,
                on_delta=lambda text: responder.delta({"text": text}),
                analysis=result.analysis,
                query_vector=result.query_vector,
                query_pieces=result.query_pieces,
                cancel=responder.cancel,  # the client giving up ends the model's call
            )
        if memory is not None:
            memory.add(ChatTurn(question, answer.text, list(result.chunks)), asked_in)
        if read is not result.chunks:  # a neighbour it quotes is listed with the page
            cited = [(c.source, c.heading) for c in answer.citations]
            chunks = listed(result.chunks, read, cited)
            sources = [result_json(i, c) for i, c in enumerate(chunks, start=1)]
        return answer_reply(answer, gate, sources, notes)


def wait_interval(for_s: float) -> float:
    """How often an answer whose model call may take `for_s` seconds is sent a `wait`
    frame: every WAIT_INTERVAL_S, or four times within a shorter deadline (at most once a
    second, the sender's tick), so a client bounding a shorter silence hears one too."""
    return min(WAIT_INTERVAL_S, max(1.0, for_s / 4))


# How long `wait` frames may go on for each step before the model call, in model
# deadlines from the step's start (the retrieval from the request's arrival, then the
# answerer's build: the SDK's first import); the call then gets its own deadline from its
# start (`WaitFrames.step`). Past that a step is stuck for good and the client's bound
# ends the wait. Counted for the whole answer from arrival (one deadline, then
# FRAMES_SPAN of them), it was a guess at how long the rest takes: at load 15-20 the
# retrieval and the SDK's import took 24 s and more, and the call's error came past a
# 9 s client's bound after the last frame (test_ask_keepalive, flaky for three helpers).
FRAMES_SPAN = 2.0


class WaitFrames:
    """Sends each answer in progress a `wait` frame every `wait_interval`, up to its
    deadline. One thread serves them all: a reply sent off the main loop goes through a
    socket of the sending thread's own (`Server.send`), so a thread per answer left one
    socket behind each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (it, interval, next frame, deadline)
        self._answers: dict[int, tuple[Responder, float, float, float]] = {}
        self._thread: threading.Thread | None = None

    @contextmanager
    def during(self, responder: Responder, for_s: float | None) -> Iterator[None]:
        """`wait` frames while the block runs, for at most FRAMES_SPAN × `for_s` seconds
        (`for_s` None: none, as for the keyless answerer, which calls no model); none after
        the block."""
        if not for_s:
            yield
            return
        now, every = time.monotonic(), wait_interval(for_s)
        with self._lock:
            until = now + FRAMES_SPAN * for_s
            self._answers[id(responder)] = (responder, every, now + every, until)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ragd-ask-wait", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:  # a frame being sent is sent before the final one
                self._answers.pop(id(responder), None)

    def step(self, responder: Responder, for_s: float, lasts_s: float) -> None:
        """Within `during` (with `for_s` its model deadline): a step that may last
        `lasts_s` starts now, so frames go on until then and one interval more, for its
        outcome (the call's error) to come; or as long as they were to go on before."""
        now, every = time.monotonic(), wait_interval(for_s)
        with self._lock:
            _, _, due, until = self._answers.get(id(responder), (None, every, now + every, now))
            end = max(until, now + lasts_s + every)
            self._answers[id(responder)] = (responder, every, due, end)

    def _run(self) -> None:
        while True:
            time.sleep(1.0)
            now = time.monotonic()
            with self._lock:
                for key, (responder, every, due, until) in list(self._answers.items()):
                    if now >= until:  # past FRAMES_SPAN deadlines: the client's bound decides
                        del self._answers[key]
                    elif now >= due:
                        responder.wait()
                        self._answers[key] = (responder, every, now + every, until)
