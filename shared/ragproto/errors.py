"""Every error ragd and rag raise on purpose, and the exit codes `rag` documents.

    RagError                          base of everything we raise on purpose
    │
    ├── client side: raised by `rag` before or instead of a reply
    │   ├── DaemonNotRunning          no socket, or nobody answers on it          exit 3
    │   ├── DaemonTimeout             the daemon accepted but did not reply in time  4
    │   ├── ProtocolError             a frame that is not JSON / not our schema      5
    │   ├── RequestTooLarge           a request over the daemon's max_message_bytes  5
    │   ├── NotAuthorized             no CURVE key for tcp://, the key refused, or another
    │   │                             user's socket                                  5
    │   ├── UsageError                bad command-line input argparse cannot see     2
    │   └── Cancelled                 the client gave up on its request (Ctrl-C, an MCP
    │                                 host's cancel); the daemon raises it to end the ask
    │
    ├── start-up and configuration: `ragd` refuses to start (exit: ragd/core/exit_codes.py)
    │   ├── ConfigError               a setting, a socket folder or a key file is unusable
    │   │                             (`rag` raises it too: an untrusted socket folder,
    │   │                             a socket path that names no socket)         exit 2
    │   │   └── BadAddress            a socket address neither side may use (ipc://@name)
    │   ├── AlreadyRunning            another daemon holds the data dir or the socket
    │   └── CannotListen              the socket could not be bound
    │
    └── WireError                     travels as a typed error reply; the client raises
        │                             the same class again from the reply's `type`
        ├── RequestRejected           the request itself is wrong                 exit 5
        │   ├── BadRequest            bad_request: malformed frame or argument
        │   ├── UnknownOp             unknown_op
        │   ├── VersionMismatch       version_mismatch: client and daemon disagree
        │   ├── NotFound              not_found: no such file, folder or source
        │   ├── OutsideRoots          outside_roots: a --in path in no watched root  exit 2
        │   └── Forbidden             forbidden: an op only the daemon's own user may send
        ├── NotServing                not answering requests now                  exit 3
        │   ├── Starting              starting: the model is still loading
        │   ├── Stopped               stopped: its process is stopped (SIGSTOP)
        │   └── ShuttingDown          shutting_down
        ├── Busy                      busy: too many requests in flight, retry    exit 4
        ├── NoSpace                   no_space: the data dir's disk is full       exit 1
        ├── InternalError             internal: a bug; the daemon's log has it    exit 1
        └── ModelError                the model could not give a usable answer
            ├── ModelAuthError        model_auth: 401/403, the key was rejected   exit 6
            ├── ModelUnavailableError model_unavailable: 429/529/5xx/unreachable  exit 7
            ├── ModelInvalidOutputError  model_invalid_output: --json invalid twice  8
            └── ModelRequestError     bad_request: another 4xx (an unknown model)  exit 5

On the wire an error is `{"ok": false, "error": {"type": ..., "message": ...}}`. Each
WireError class names its `type_name` and `exit_code` once; WIRE_ERRORS (type → class)
and ERROR_EXIT_CODES (type → exit code) are derived from them. Messages never contain
the API key.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """`rag`'s exit codes."""

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


# -- client side -------------------------------------------------------------------------
class DaemonNotRunning(RagError):
    """No socket file, or a refused connection (a stale file from a crashed daemon)."""

    exit_code = ExitCode.NOT_RUNNING
    type_name = "not_running"


class DaemonTimeout(RagError):
    """The daemon took the request but sent nothing for longer than the timeout."""

    exit_code = ExitCode.TIMEOUT
    type_name = "timeout"


class ProtocolError(RagError):
    """The connection broke, or the daemon sent something that is not a reply of ours."""

    exit_code = ExitCode.BAD_REQUEST
    type_name = "protocol"


class RequestTooLarge(RagError):
    """A request larger than the daemon's frame limit, refused before it is sent: the
    daemon would drop the connection without a reply. Keeps both sizes for the caller's
    own wording (`rag chat` names the question)."""

    exit_code = ExitCode.BAD_REQUEST
    type_name = "too_large"

    def __init__(self, message: str, size: int, limit: int) -> None:
        super().__init__(message)
        self.size, self.limit = size, limit


class NotAuthorized(RagError):
    """tcp:// without a usable CURVE key, the daemon refused the key, or the socket (or its
    folder) belongs to another user."""

    exit_code = ExitCode.BAD_REQUEST
    type_name = "not_authorized"


class UsageError(RagError):
    """Command-line input argparse accepts but the wire cannot carry (not UTF-8, too long)."""

    exit_code = ExitCode.USAGE
    type_name = "usage"


# -- start-up and configuration -----------------------------------------------------------
class Cancelled(RagError):
    """The client gave up on its request: `rag`'s Ctrl-C, an MCP host's
    `notifications/cancelled`, or a client gone from its connection. In the daemon it ends
    the ask where it is (its model call woken); nothing more is sent for it."""

    type_name = "cancelled"


class ConfigError(RagError):
    """A setting, the socket's folder or a key file that ragd will not use; says why."""

    exit_code = ExitCode.USAGE
    type_name = "config"


class BadAddress(ConfigError):
    """A socket address neither side may use (an abstract ipc://@name, no path, …)."""


class AlreadyRunning(RagError):
    """Another daemon holds the data dir or the socket; the message names it."""

    type_name = "already_running"


class CannotListen(RagError):
    """The socket could not be bound (the cause is chained)."""

    type_name = "cannot_listen"


# -- errors that travel in a reply -----------------------------------------------------------
class WireError(RagError):
    """An error sent as a typed reply. The daemon raises a subclass in a handler; the
    client raises the same subclass again from the reply (`from_reply`)."""

    type_name = "internal"

    @staticmethod
    def from_reply(type_name: str, message: str) -> WireError:
        """The error a reply describes; an unknown type (a newer daemon) keeps its name."""
        cls = WIRE_ERRORS.get(type_name)
        if cls is not None:
            return cls(message)
        error = WireError(message)
        error.type_name = type_name
        return error


class RequestRejected(WireError):
    """The request itself is wrong: sending it again will not help."""

    exit_code = ExitCode.BAD_REQUEST
    type_name = "bad_request"


class BadRequest(RequestRejected):
    """A frame that is not JSON or not a request, or an argument of the wrong type/range."""

    type_name = "bad_request"


class UnknownOp(RequestRejected):
    """No operation of that name; the message lists the known ones."""

    type_name = "unknown_op"


class VersionMismatch(RequestRejected):
    """The client speaks another protocol version: upgrade both together."""

    type_name = "version_mismatch"


class NotFound(RequestRejected):
    """No such file, folder, indexed root or source."""

    type_name = "not_found"


class NotAFile(RequestRejected):
    """The source is indexed, but its path is now a FIFO, socket, device, folder or a link
    ragd does not follow: nothing was read (the index drops it on its next sync)."""

    type_name = "not_a_file"


class OutsideRoots(RequestRejected):
    """A `--in` scope names a path inside no watched root: a usage error (exit 2), the
    message names the roots."""

    exit_code = ExitCode.USAGE
    type_name = "outside_roots"


class Forbidden(RequestRejected):
    """An op that changes which folders ragd reads, from someone not the daemon's user."""

    type_name = "forbidden"


class NotServing(WireError):
    """The daemon is up but not answering requests right now."""

    exit_code = ExitCode.NOT_RUNNING


class Starting(NotServing):
    """The model and the indexes are still loading."""

    type_name = "starting"


class Stopped(NotServing):
    """The daemon's process is stopped (SIGSTOP, a debugger): its door says so for it."""

    type_name = "stopped"


class ShuttingDown(NotServing):
    """The daemon is stopping; requests in flight are answered with this."""

    type_name = "shutting_down"


class Busy(WireError):
    """Too many requests already waiting for a worker; try again shortly."""

    exit_code = ExitCode.TIMEOUT
    type_name = "busy"


class NoSpace(WireError):
    """The disk holding the data dir is (nearly) full; nothing was written."""

    type_name = "no_space"


class InternalError(WireError):
    """A bug: the daemon logged the traceback; the reply names only the exception type."""

    type_name = "internal"


class ModelError(WireError):
    """The model could not give a usable answer (translated from the Anthropic SDK)."""

    exit_code = ExitCode.MODEL_UNAVAILABLE
    type_name = "model_unavailable"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status, when the API answered at all


class ModelAuthError(ModelError):
    """401/403: the API key was rejected."""

    exit_code = ExitCode.MODEL_AUTH
    type_name = "model_auth"


class ModelUnavailableError(ModelError):
    """429/529/5xx, a timeout or no connection, after the bounded retries."""

    type_name = "model_unavailable"


class ModelInvalidOutputError(ModelError):
    """The --json reply failed validation twice (once more with the error shown)."""

    exit_code = ExitCode.INVALID_MODEL_OUTPUT
    type_name = "model_invalid_output"


class ModelRequestError(ModelError):
    """Another 4xx (e.g. an unknown model): the request was wrong, like a bad_request."""

    exit_code = ExitCode.BAD_REQUEST
    type_name = "bad_request"


# The class the client raises for each wire type: one per type (ModelRequestError shares
# `bad_request` with BadRequest, which the client raises for it).
WIRE_ERRORS: dict[str, type[WireError]] = {
    cls.type_name: cls
    for cls in (
        BadRequest,
        UnknownOp,
        VersionMismatch,
        NotFound,
        NotAFile,
        OutsideRoots,
        Forbidden,
        Starting,
        Stopped,
        ShuttingDown,
        Busy,
        NoSpace,
        InternalError,
        ModelAuthError,
        ModelUnavailableError,
        ModelInvalidOutputError,
    )
}

# Wire error types → `rag` exit codes.
ERROR_EXIT_CODES: dict[str, ExitCode] = {name: cls.exit_code for name, cls in WIRE_ERRORS.items()}
