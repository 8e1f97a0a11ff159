"""Whether a chat question leans on an earlier one for its subject (pure, linear).

In a chat the second question often names its subject only by a pronoun: after "What
does KSF-E417 mean?", "and what should I do about it?" has no word to look for, and
"how do I clear it?" searched alone finds whatever else is cleared. Retrieval and the gate
read one text, so a question that leans on the conversation is searched together with
the chat's subject: the last question that named its own (`ChatMemory.subject`).

A question leans when it refers back (a pronoun such as "it", "they", "that", or an
opening such as "and …", "what about …") and names little of its own: no identifier and
at most `MAX_OWN_WORDS` words besides the scaffolding. "What is the capital of
Mongolia?" names its subject and is searched alone, however it follows; so is "and what
about KSF-E418?", which names a new one.

A question that refers back by its opening alone names its own words as the new thing
asked about ("what about bicycles?", "what about in winter?"): searched with the subject, it
is found in the subject's context only when the best passage holds one of them
(`found_with_subject`). Otherwise the subject's own passages win (the error code's row for
"What about bicycles?" after "What does KSF-E417 mean?", the dogs' rule for "what about
Mongolia?"), a confident answer to the earlier question, and it is searched alone. The
same holds for a question that names its topic after "about" beside a pronoun ("and what
does it say about bicycles?": the pronoun is the document, bicycles the new thing).
"""

from __future__ import annotations

import re

from ragd.index.lexical import analyze
from ragd.query.question import STOP_WORDS, identifiers

# Words that point back at something said before (STOP_WORDS holds most; these are
# looked for by themselves, not dropped as scaffolding).
REFERRING = frozenset(
    "it its it's itself this that these those they them their theirs there he him his she "
    "her same above former latter one ones".split()
)
OPENINGS = ("and ", "but ", "also ", "so ", "then ", "what about ", "how about ", "and if ")
# Words after which a question names what it asks about ("what does it say about
# bicycles?": "it" is the document, "bicycles" the thing asked about).
TOPIC_MARKERS = frozenset({"about", "regarding", "concerning"})
MAX_OWN_WORDS = 3
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")  # one word, an apostrophe inside ("it's")


def leans_on_earlier(question: str) -> bool:
    """Whether `question` needs the chat's subject to be searched (see the module)."""
    text = question.strip().lower()
    words = _WORD.findall(text)
    refers = text.startswith(OPENINGS) or any(word in REFERRING for word in words)
    if not refers or identifiers(question):
        return False
    return len(own_words(words)) <= MAX_OWN_WORDS


def own_words(words: list[str]) -> list[str]:
    return [w for w in words if w not in STOP_WORDS and w not in REFERRING]


def named_topic(words: list[str]) -> list[str]:
    """The own words after the question's last topic marker ("bicycles" in "what does it
    say about bicycles?"; none in "what should I do about it?")."""
    marks = [i for i, word in enumerate(words) if word in TOPIC_MARKERS]
    return own_words(words[marks[-1] + 1 :]) if marks else []


def found_with_subject(question: str, best_passage: str) -> bool:
    """Whether searching `question` with the chat's subject found what it names itself,
    judged on the best passage that search found. A question that names what it asks
    about ("what about bicycles?", "what does it say about bicycles?") needs one of those
    words in that passage (as the index stems them), else it is searched alone; so does
    one that refers back by its opening alone. A question whose only reference is a word
    such as "it" ("how do I clear it?") asks something of the subject, whatever the
    passage words it as."""
    words = _WORD.findall(question.lower())
    topic = named_topic(words)
    own = topic or own_words(words)
    if not own or (not topic and any(word in REFERRING for word in words)):
        return True
    asked = {term for word in own for term in analyze(word)}
    return not asked.isdisjoint(analyze(best_passage))


def searched_text(question: str, subject: str) -> str:
    """What is searched for `question` in a chat whose subject is `subject` ("" when it
    has none yet): the two together when the question leans on it, else the question."""
    if subject and leans_on_earlier(question):
        return f"{subject} {question}"
    return question
