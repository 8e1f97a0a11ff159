"""The things a question names side by side, each of which its answer must speak to (pure).

"How do I get my logs into Graylog or Elasticsearch?" names two systems; a passage about
one does not answer for the other, however well it fits the rest of the question. Here a
name is a word the question writes capitalised or as code, not at its start — "Graylog",
"Elasticsearch", "`PrintLogger`", "JSONRenderer" — and the names are those joined by "or",
"and", "vs", "versus" or a comma ("X, Y or Z"). Plain words joined so ("fast and safe")
are qualities, not things, and are left alone.
"""

from __future__ import annotations

import re

# A word with the punctuation around it: the question is split on blanks (linear).
_WORD = re.compile(r"\S+")
_JOINERS = frozenset({"or", "and", "vs", "vs.", "versus", "nor", "&", "/"})
_EDGE = "\"'`()[]{}<>,;:!?.*“”‘’"


def _name(token: str) -> str | None:
    """The token as a name, or None: capitalised, CamelCase or written as code."""
    bare = token.strip(_EDGE)
    if not bare or not any(c.isalpha() for c in bare):
        return None
    coded = token.lstrip("\"'(").startswith("`")
    if coded or bare[0].isupper() or any(c.isupper() for c in bare[1:]):
        return bare
    return None


def named_side_by_side(question: str) -> list[str]:
    """The names the question joins ("Graylog or Elasticsearch" → both), in its order;
    empty when it joins none. The first word of the question is never a name (every
    sentence capitalises it)."""
    tokens = [m.group(0) for m in _WORD.finditer(question)]
    names: list[str] = []
    for i in range(2, len(tokens) - 1):
        if tokens[i].lower() not in _JOINERS:
            continue
        left, right = _name(tokens[i - 1]), _name(tokens[i + 1])
        if left is None or right is None:
            continue
        # "X, Y or Z": the names listed before the last joiner, comma by comma.
        j = i - 2
        listed = [left]
        while j >= 1 and tokens[j].endswith(",") and (earlier := _name(tokens[j])):
            listed.insert(0, earlier)
            j -= 1
        for name in [*listed, right]:
            if name not in names:
                names.append(name)
    return names
