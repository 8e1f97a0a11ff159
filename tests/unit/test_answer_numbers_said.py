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


def test_a_question_let_through_under_the_floor_says_what_let_it_through() -> None:
    """ "below the 0.393 floor …; pass (p 0.78 …)" did not say why a question under the floor
    was answered (newuser46): the gate names the rescue, the line shows it."""
    from ragd.query import gate_model

    def x(margin: float, cosine: float, topicality: float) -> list[float]:
        signals = dict.fromkeys(gate_model.FEATURES, 0.0)
        signals.update(support=0.4 + margin, cosine=cosine, identifiers=1.0, references=1.0)
        signals["topical"] = 0.2 + topicality
        return gate_model.features(signals, 0.4, 0.2)

    close = gate_model.rescued_by(x(-0.05, gate_model.RESCUE_COSINE + 0.01, 0.0))
    assert close.startswith("a passage close in meaning (cosine ")
    about = gate_model.rescued_by(x(-0.05, 0.1, gate_model.RESCUE_TOPICAL + 0.01))
    assert about.startswith("its nearest passages are, together, about it (topicality ")
    assert gate_model.rescued_by(x(0.05, 0.1, 0.0)) == ""  # over the floor: nothing to say
    assert gate_model.rescued_by(x(-0.05, 0.1, 0.0)) == ""  # refused: the reason says it
    below = GATE | {"support": 0.35, "rescue": close, "probability": 0.78}
    line = gate_line(below)
    assert "below the 0.393 floor" in line
    assert f"(learned), not refused: {close}; pass (p 0.78" in line
