"""The error tree and the exit codes the `rag` client documents.

    RagError                      base of everything we raise on purpose
    ├── DaemonNotRunning          no socket, or nobody answers on it
    ├── DaemonTimeout             the daemon accepted the request but did not reply in time
    ├── ProtocolError             a frame that is not valid JSON / not our schema / wrong version
    ├── BadAddress                a socket address neither side may use (e.g. abstract ipc://@name)
    ├── NotAuthorized             no CURVE key for tcp://, or the daemon refused it
    └── RemoteError               the daemon answered with a typed error reply (`type` says which)

On the wire an error is `{"ok": false, "error": {"type": ..., "message": ...}}`; the
`type` strings are the keys of ERROR_EXIT_CODES so the client maps them to exit codes
without knowing anything else about the failure.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    ERROR = 1  # anything not listed below
    USAGE = 2  # bad command-line arguments (argparse's own code)
    NOT_RUNNING = 3  # no daemon on the socket
    TIMEOUT = 4  # the daemon did not answer in time
    BAD_REQUEST = 5  # the daemon rejected the request
    MODEL_AUTH = 6  # the Anthropic API rejected the key (401/403)
    MODEL_UNAVAILABLE = 7  # rate limited / overloaded / 5xx / unreachable after bounded retries
    INVALID_MODEL_OUTPUT = 8  # --json: the model's reply failed validation twice


class RagError(Exception):
    """Base class of every error ragd or rag raises on purpose."""

    exit_code: ExitCode = ExitCode.ERROR
    type_name = "error"


class DaemonNotRunning(RagError):
    exit_code = ExitCode.NOT_RUNNING
    type_name = "not_running"


class DaemonTimeout(RagError):
    exit_code = ExitCode.TIMEOUT
    type_name = "timeout"


class ProtocolError(RagError):
    exit_code = ExitCode.BAD_REQUEST
    type_name = "bad_request"


class BadAddress(RagError):
    exit_code = ExitCode.USAGE
    type_name = "config"


class NotAuthorized(RagError):
    exit_code = ExitCode.BAD_REQUEST
    type_name = "forbidden"


class RemoteError(RagError):
    """An error reply from the daemon; `type` is the wire type string."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name
        self.exit_code = ERROR_EXIT_CODES.get(type_name, ExitCode.ERROR)


# Wire error types → client exit codes.
ERROR_EXIT_CODES: dict[str, ExitCode] = {
    "bad_request": ExitCode.BAD_REQUEST,
    "unknown_op": ExitCode.BAD_REQUEST,
    "version_mismatch": ExitCode.BAD_REQUEST,
    "too_large": ExitCode.BAD_REQUEST,
    "not_found": ExitCode.BAD_REQUEST,
    "forbidden": ExitCode.BAD_REQUEST,  # an op only the daemon's own user may send
    "shutting_down": ExitCode.NOT_RUNNING,
    "starting": ExitCode.NOT_RUNNING,  # not answering yet: the model is still loading
    "busy": ExitCode.TIMEOUT,  # too many answers in flight; try again shortly
    "model_auth": ExitCode.MODEL_AUTH,
    "model_unavailable": ExitCode.MODEL_UNAVAILABLE,
    "model_invalid_output": ExitCode.INVALID_MODEL_OUTPUT,
    "internal": ExitCode.ERROR,
}
