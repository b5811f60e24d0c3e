"""The errors the client raises: one base class, one subclass per kind of failure."""

from __future__ import annotations

from collections.abc import Mapping


class GraphmemError(Exception):
    """An error answered by graphmem, or a failure to reach it.

    ``status`` is the HTTP status (0 when no answer came back), ``code`` the
    server's error code (``invalid_argument``, ``not_found``…), ``message``
    its text and ``fields`` the offending inputs by JSON path
    (``facts[0].predicate``) or query parameter, each with what is wrong.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        code: str = "",
        fields: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.fields: dict[str, str] = dict(fields or {})
        self.request_id = request_id
        super().__init__(self._describe())

    def _describe(self) -> str:
        text = self.message
        if self.fields:
            text += " (" + "; ".join(f"{k}: {v}" for k, v in sorted(self.fields.items())) + ")"
        if self.status:
            text = f"{self.status} {self.code or 'error'}: {text}"
        return text


class InvalidArgumentError(GraphmemError):
    """The request was malformed (400); ``fields`` names what to fix."""


class UnauthorizedError(GraphmemError):
    """No API key, or an unknown one (401)."""


class ForbiddenError(GraphmemError):
    """The API key may not use the scope asked for, or this operation (403)."""


class NotFoundError(GraphmemError):
    """The fact, entity, episode or route does not exist in this scope (404)."""


class ConflictError(GraphmemError):
    """The request conflicts with the stored state (409)."""


class TooLargeError(GraphmemError):
    """The request body is over the server's limit (413)."""


class FailedPreconditionError(GraphmemError):
    """Well formed, but the stored state forbids it (422), e.g. retrying an episode that did not fail."""


class RateLimitedError(GraphmemError):
    """Too many requests (429), still so after the client's retries."""


class UnavailableError(GraphmemError):
    """graphmem or one of its dependencies is down (503), still so after the client's retries."""


class GraphmemConnectionError(UnavailableError):
    """No answer: the server could not be reached, or the connection broke or timed out."""


class InternalError(GraphmemError):
    """The server failed (500); its log has the cause under the request id."""


_BY_CODE: dict[str, type[GraphmemError]] = {
    "invalid_argument": InvalidArgumentError,
    "unauthenticated": UnauthorizedError,
    "permission_denied": ForbiddenError,
    "not_found": NotFoundError,
    "conflict": ConflictError,
    "too_large": TooLargeError,
    "failed_precondition": FailedPreconditionError,
    "rate_limited": RateLimitedError,
    "unavailable": UnavailableError,
    "internal": InternalError,
}

_BY_STATUS: dict[int, type[GraphmemError]] = {
    400: InvalidArgumentError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    405: InvalidArgumentError,
    409: ConflictError,
    413: TooLargeError,
    415: InvalidArgumentError,
    422: FailedPreconditionError,
    429: RateLimitedError,
    502: UnavailableError,
    503: UnavailableError,
    504: UnavailableError,
}


def error_class(status: int, code: str) -> type[GraphmemError]:
    """Return the error class for an answer: by the server's code, else by the HTTP status."""
    if code in _BY_CODE:
        return _BY_CODE[code]
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if 400 <= status < 500:
        return InvalidArgumentError
    return InternalError if status >= 500 else GraphmemError
