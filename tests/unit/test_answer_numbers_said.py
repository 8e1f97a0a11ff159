"""`rag ask --show-sources`: `Confidence: low` above `gate: … pass (p 0.92)` read as a
contradiction. They are two numbers about two things: p is the gate's chance that the
passages found answer the question; the keyless confidence is the chance that the quotes
picked from them hold what was asked. Each line says which it is."""

from __future__ import annotations

from ragcli.render import confidence_line, gate_line

GATE = {
    "support": 0.663,
    "floor": 0.393,
    "floor_origin": "learned",
    "passed": True,
    "verdict": "pass",
    "probability": 0.92,
}


def test_the_gate_line_says_what_its_chance_is_of() -> None:
    line = gate_line(GATE)
    assert line.endswith("; pass (p 0.92 that the passages found answer the question)")
    unsure = gate_line(GATE | {"verdict": "unsure", "probability": 0.31})
    assert unsure.endswith("; unsure (p 0.31 that the passages found answer the question)")


def test_a_quoted_answer_s_confidence_says_it_is_about_the_quotes() -> None:
    quoted = {"confidence": "low", "mode": "extractive", "refused": False}
    assert confidence_line(quoted) == (
        "Confidence: low (how likely these quotes answer what you asked)"
    )
    # A refusal quotes nothing, and a model's answer states its own confidence: the bare
    # label, as the model's prompt and the refusal sentence's tests have it.
    refused = {"confidence": "low", "mode": "refused", "refused": True}
    assert confidence_line(refused) == "Confidence: low"
    assert confidence_line({"confidence": "high", "mode": "claude"}) == "Confidence: high"
