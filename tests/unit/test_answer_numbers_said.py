"""`rag ask --show-sources`: `Confidence: low` above `gate: … pass (p 0.92)` read as a
contradiction (newuser43 still, when both said "answer the question"). They are two numbers
about two things: p is the gate's chance that the documents cover what the question is
about; the keyless confidence is the chance that the quotes picked hold what was asked.
Each line says which it is, and neither says what the other does."""

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
    assert line.endswith("; pass (p 0.92 that the documents cover what the question is about)")
    unsure = gate_line(GATE | {"verdict": "unsure", "probability": 0.31})
    assert unsure.endswith("; unsure (p 0.31 that the documents cover what the question is about)")


def test_a_quoted_answer_s_confidence_says_it_is_about_the_quotes() -> None:
    quoted = {"confidence": "low", "mode": "extractive", "refused": False}
    assert confidence_line(quoted) == ("Confidence: low (that these quotes hold what you asked)")
    # A refusal quotes nothing, and a model's answer states its own confidence: the bare
    # label, as the model's prompt and the refusal sentence's tests have it.
    refused = {"confidence": "low", "mode": "refused", "refused": True}
    assert confidence_line(refused) == "Confidence: low"
    assert confidence_line({"confidence": "high", "mode": "claude"}) == "Confidence: high"


def test_the_two_lines_and_the_warning_speak_of_different_things() -> None:
    """The gate's line is about the documents and the subject; the label and the "may not
    answer" warning before low quotes are about the quotes, so `pass` beside `low` says:
    the subject is covered, these quotes may miss what was asked."""
    from ragd.query.extractive import UNSURE_NOTE

    gate = gate_line(GATE)
    label = confidence_line({"confidence": "low", "mode": "extractive", "refused": False})
    assert "documents" in gate and "quotes" not in gate and "answer" not in gate.split(";")[-1]
    assert "quotes" in label and "documents" not in label
    assert UNSURE_NOTE.startswith("These quotes may not answer") and "documents" not in UNSURE_NOTE
