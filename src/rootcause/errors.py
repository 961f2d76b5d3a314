"""One error hierarchy for the whole tool.

Each error knows its CLI exit code and its HTTP status, so every edge (the CLI,
the web service, the MCP server) translates it exactly once.
"""

from __future__ import annotations


class RootcauseError(Exception):
    """Base of every error that rootcause raises on purpose."""

    exit_code: int = 2
    http_status: int = 500
    code: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(RootcauseError):
    """The caller asked for something malformed (bad flag, bad argument)."""

    exit_code = 2
    http_status = 400
    code = "bad_request"


class NotFoundError(RootcauseError):
    """A named thing (entry id, file) does not exist."""

    exit_code = 2
    http_status = 404
    code = "not_found"


class InputTooLargeError(RootcauseError):
    exit_code = 2
    http_status = 413
    code = "too_large"


class CanonError(RootcauseError):
    """An entry file is invalid. The message names file, line and field."""

    exit_code = 3
    http_status = 500
    code = "invalid_canon"

    def __init__(self, path: str, message: str, *, line: int | None = None, field: str | None = None) -> None:
        self.path = path
        self.line = line
        self.field = field
        message = " ".join(message.split())  # always one line
        where = f"{path}:{line}" if line else path
        what = f"{field}: {message}" if field else message
        super().__init__(f"{where}: {what}")


class PatternError(RootcauseError):
    """A match pattern does not compile in the linear-time engine."""

    exit_code = 3
    http_status = 500
    code = "invalid_pattern"


class AuthError(RootcauseError):
    exit_code = 2
    http_status = 401
    code = "unauthorized"


class IdempotencyConflictError(RootcauseError):
    """An Idempotency-Key was used before with a different request."""

    exit_code = 2
    http_status = 422
    code = "idempotency_key_reused"


class RateLimitedError(RootcauseError):
    exit_code = 2
    http_status = 429
    code = "rate_limited"


class StoreError(RootcauseError):
    exit_code = 4
    http_status = 503
    code = "store_unavailable"
