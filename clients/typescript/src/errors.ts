// The errors the client throws: one base class, one subclass per kind of failure.

/** What a GraphmemError is built from. */
export interface GraphmemErrorInit {
  status?: number;
  code?: string;
  fields?: Record<string, string>;
  requestId?: string;
  cause?: unknown;
}

/**
 * An error answered by graphmem, or a failure to reach it.
 *
 * `status` is the HTTP status (0 when no answer came back), `code` the server's error code
 * (`invalid_argument`, `not_found`…), `detail` its text and `fields` the offending inputs by JSON path
 * (`facts[0].predicate`) or query parameter, each with what is wrong. `message` says all of it.
 */
export class GraphmemError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly fields: Record<string, string>;
  readonly requestId: string | undefined;

  constructor(detail: string, init: GraphmemErrorInit = {}) {
    const status = init.status ?? 0;
    const code = init.code ?? "";
    const fields = { ...(init.fields ?? {}) };
    let text = detail;
    const named = Object.keys(fields).sort();
    if (named.length > 0) text += ` (${named.map((k) => `${k}: ${fields[k]}`).join("; ")})`;
    if (status) text = `${status} ${code || "error"}: ${text}`;
    super(text, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.fields = fields;
    this.requestId = init.requestId;
  }
}

/** The request was malformed (400); `fields` names what to fix. */
export class InvalidArgumentError extends GraphmemError {}
/** No API key, or an unknown one (401). */
export class UnauthorizedError extends GraphmemError {}
/** The API key may not use the scope asked for, or this operation (403). */
export class ForbiddenError extends GraphmemError {}
/** The fact, entity, episode or route does not exist in this scope (404). */
export class NotFoundError extends GraphmemError {}
/** The request conflicts with the stored state (409). */
export class ConflictError extends GraphmemError {}
/** The request body is over the server's limit (413). */
export class TooLargeError extends GraphmemError {}
/** Well formed, but the stored state forbids it (422). */
export class FailedPreconditionError extends GraphmemError {}
/** Too many requests (429), still so after the client's retries. */
export class RateLimitedError extends GraphmemError {}
/** graphmem or one of its dependencies is down (503), still so after the client's retries. */
export class UnavailableError extends GraphmemError {}
/** No answer: the server could not be reached, or the connection broke or timed out. */
export class GraphmemConnectionError extends UnavailableError {}
/** The server failed (500); its log has the cause under the request id. */
export class InternalError extends GraphmemError {}

type ErrorClass = new (detail: string, init?: GraphmemErrorInit) => GraphmemError;

const BY_CODE: Record<string, ErrorClass> = {
  invalid_argument: InvalidArgumentError,
  unauthenticated: UnauthorizedError,
  permission_denied: ForbiddenError,
  not_found: NotFoundError,
  conflict: ConflictError,
  too_large: TooLargeError,
  failed_precondition: FailedPreconditionError,
  rate_limited: RateLimitedError,
  unavailable: UnavailableError,
  internal: InternalError,
};

const BY_STATUS: Record<number, ErrorClass> = {
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
};

/** The error class of an answer: by the server's code, else by the HTTP status. */
export function errorClass(status: number, code: string): ErrorClass {
  const byCode = Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
  if (byCode) return byCode;
  const byStatus = BY_STATUS[status];
  if (byStatus) return byStatus;
  if (status >= 400 && status < 500) return InvalidArgumentError;
  return status >= 500 ? InternalError : GraphmemError;
}
