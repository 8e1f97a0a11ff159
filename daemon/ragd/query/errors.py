"""Errors of the answering stage, translated from the Anthropic SDK where they enter our code.

    RagError (ragproto.errors)
    └── ModelError                  the model could not give a usable answer
        ├── ModelAuthError          401/403: the key was rejected          → `model_auth`
        ├── ModelUnavailableError   429/529/5xx/timeout/unreachable        → `model_unavailable`
        │                           (after bounded retries)
        ├── ModelInvalidOutputError --json reply failed validation twice   → `model_invalid_output`
        └── ModelRequestError       another 4xx (e.g. an unknown model)    → `bad_request`

`type_name` is the wire error type, so the server can reply
`{"type": err.type_name, "message": str(err)}` without knowing the subclasses. Messages
never contain the API key.
"""

from __future__ import annotations

from ragproto.errors import ERROR_EXIT_CODES, ExitCode, RagError


class ModelError(RagError):
    type_name = "model_unavailable"
    exit_code = ExitCode.MODEL_UNAVAILABLE

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status, when the API answered at all


class ModelAuthError(ModelError):
    type_name = "model_auth"
    exit_code = ERROR_EXIT_CODES["model_auth"]


class ModelUnavailableError(ModelError):
    type_name = "model_unavailable"
    exit_code = ERROR_EXIT_CODES["model_unavailable"]


class ModelInvalidOutputError(ModelError):
    type_name = "model_invalid_output"
    exit_code = ERROR_EXIT_CODES["model_invalid_output"]


class ModelRequestError(ModelError):
    type_name = "bad_request"
    exit_code = ERROR_EXIT_CODES["bad_request"]
