"""ragproto — the contract between the ragd daemon and the rag client.

Standard library only: the client imports this on every command, so it must stay
cheap. Everything both sides must agree on lives here and nowhere else.
"""

from ragproto.errors import ExitCode, RagError
from ragproto.protocol import PROTOCOL_VERSION, REFUSAL_SENTENCE

__all__ = ["PROTOCOL_VERSION", "REFUSAL_SENTENCE", "ExitCode", "RagError"]
