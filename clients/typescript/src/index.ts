// graphmem: a TypeScript client for graphmem, a temporal knowledge-graph memory for LLM agents.
//
// `Graphmem` is the client; it takes its address and key from GRAPHMEM_URL and GRAPHMEM_API_KEY when
// not given. Every failure is a `GraphmemError`. The Vercel AI SDK tools live in `graphmem/ai` and the
// LangChain.js retriever in `graphmem/langchain` (each needs its framework installed).

export {
  DEFAULT_URL,
  Graphmem,
  retryAfter,
  type CallOptions,
  type ContextOptions,
  type EntityGraphOptions,
  type EpisodesOptions,
  type FactOptions,
  type FactsOptions,
  type ForgetOptions,
  type GraphmemOptions,
  type LimitOptions,
  type RecordLike,
  type RememberOptions,
  type Remembered,
  type SearchOptions,
  type TimelineOptions,
} from "./client.js";
export {
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
  type GraphmemErrorInit,
} from "./errors.js";
export { Pages, type Page } from "./pages.js";
export type * from "./types.js";
export { VERSION } from "./version.js";
export type { TimeLike } from "./wire.js";
