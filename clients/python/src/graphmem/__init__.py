"""Python client for graphmem, a temporal knowledge-graph memory for LLM agents.

``Graphmem`` is the synchronous client and ``AsyncGraphmem`` the asynchronous
one; both take their address and key from ``GRAPHMEM_URL`` and
``GRAPHMEM_API_KEY`` when not given. Every failure is a ``GraphmemError``.
The LangChain integration lives in ``graphmem.langchain`` (install the
``graphmem[langchain]`` extra).
"""

from graphmem._core import VERSION as __version__
from graphmem._core import FactLike, RecordLike, TimeLike
from graphmem.aio import AsyncGraphmem
from graphmem.client import Graphmem
from graphmem.errors import (
    ConflictError,
    FailedPreconditionError,
    ForbiddenError,
    GraphmemConnectionError,
    GraphmemError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    RateLimitedError,
    TooLargeError,
    UnauthorizedError,
    UnavailableError,
)
from graphmem.models import (
    AuditEntry,
    Claim,
    Context,
    ContextEpisode,
    ContextFact,
    Entity,
    EntityDetail,
    EntityGraph,
    EntityMatch,
    Episode,
    EpisodeAccepted,
    ExportRecord,
    Fact,
    FactDetail,
    FactInput,
    FactResult,
    ForgetResult,
    Health,
    ImportResult,
    Period,
    Revision,
    SearchHit,
    Session,
    StoredEntity,
    StoredEpisode,
    StoredFact,
    Tombstone,
)

__all__ = [
    "AsyncGraphmem",
    "AuditEntry",
    "Claim",
    "ConflictError",
    "Context",
    "ContextEpisode",
    "ContextFact",
    "Entity",
    "EntityDetail",
    "EntityGraph",
    "EntityMatch",
    "Episode",
    "EpisodeAccepted",
    "ExportRecord",
    "Fact",
    "FactDetail",
    "FactInput",
    "FactLike",
    "FactResult",
    "FailedPreconditionError",
    "ForbiddenError",
    "ForgetResult",
    "Graphmem",
    "GraphmemConnectionError",
    "GraphmemError",
    "Health",
    "ImportResult",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "Period",
    "RateLimitedError",
    "RecordLike",
    "Revision",
    "SearchHit",
    "Session",
    "StoredEntity",
    "StoredEpisode",
    "StoredFact",
    "TimeLike",
    "Tombstone",
    "TooLargeError",
    "UnauthorizedError",
    "UnavailableError",
    "__version__",
]
