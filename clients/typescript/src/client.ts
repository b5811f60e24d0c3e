// The client: settings, the calls it makes, retries, timeouts and errors.

import {
  GraphmemConnectionError,
  GraphmemError,
  errorClass,
} from "./errors.js";
import { Pages, type Page } from "./pages.js";
import type {
  AuditEntry,
  ContextRequest,
  Context,
  EntityDetail,
  EntityGraph,
  EntityMatch,
  Episode,
  EpisodeAccepted,
  EpisodeRequest,
  ExportRecord,
  Fact,
  FactDetail,
  FactInput,
  FactResult,
  ForgetRequest,
  ForgetResult,
  Health,
  ImportResult,
  JsonObject,
  Ontology,
  Overview,
  SearchRequest,
  SearchResponse,
  Session,
  Timeline,
} from "./types.js";
import { VERSION } from "./version.js";
import { formatTime, fromWire, toWire, type TimeLike } from "./wire.js";

/** Where the client looks when neither `baseUrl` nor GRAPHMEM_URL is set. */
export const DEFAULT_URL = "http://127.0.0.1:8080";
const SCOPE_HEADER = "X-Graphmem-Scope";
const REQUEST_ID_HEADER = "X-Request-Id";
const RETRY_STATUSES = new Set([429, 503]);
/** The least time `remember({ wait: true })` is given, in ms: the server waits up to 60 s for extraction. */
const WAIT_TIMEOUT = 75_000;
/** The longest Retry-After the client waits for, in ms; past it the error is thrown at once. */
const MAX_RETRY_WAIT = 30_000;
/** Error codes of a connection that was never made, so any call may be sent again (Node, Bun). */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "ConnectionRefused",
]);

/** How to reach graphmem; every setting is optional. */
export interface GraphmemOptions {
  /** The server's URL; default GRAPHMEM_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** The API key; default GRAPHMEM_API_KEY. */
  apiKey?: string;
  /** One of the scopes the key may use; default the key's first. */
  scope?: string;
  /** How long each request may take, in ms (default 10 000); a call's own `timeout` overrides it. */
  timeout?: number;
  /** How many times a read, or `remember`, is sent again after a 429 or 503 (default 3). */
  maxRetries?: number;
  /** The first wait between retries when the server gives no Retry-After, in ms, doubling (default 500). */
  backoff?: number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /**
   * Called with each warning the server answers (e.g. that it has no extraction model, so episodes
   * give no facts). The warnings are also on the results; without this, each distinct one is written
   * once with console.warn.
   */
  onWarning?: (warning: string) => void;
}

/** What every call takes: a signal to cancel it and a timeout in ms. */
export interface CallOptions {
  /** Aborts the call, and any retry it waits for, with the signal's reason. */
  signal?: AbortSignal;
  /** How long each attempt may take, in ms (default the client's `timeout`). */
  timeout?: number;
}

/** Options of `facts`. `subject` and `object` are entity names or aliases (`object` may be a literal). */
export interface FactsOptions extends CallOptions {
  subject?: string;
  predicate?: string;
  object?: string;
  /** The valid time asked about (default now). */
  asOf?: TimeLike;
  /** The transaction time asked about: what memory knew then (default now). */
  knownAt?: TimeLike;
  /** Every fact regardless of `asOf`. */
  includeHistory?: boolean;
  /** At most this many facts. */
  limit?: number;
  /** Facts per request, 1 to 1000 (default 100). */
  pageSize?: number;
}

/** Options of `fact`. */
export interface FactOptions extends CallOptions {
  /** The transaction time asked about (default now): a fact retracted since reads as it was then. */
  knownAt?: TimeLike;
}

/** Options of `timeline`. */
export interface TimelineOptions extends CallOptions {
  predicate?: string;
  knownAt?: TimeLike;
  limit?: number;
  /** Facts per request, 1 to 1000 (default 1000). */
  pageSize?: number;
}

/** Options of `episodes`. */
export interface EpisodesOptions extends CallOptions {
  /** Only episodes of this status: queued, processing, done or failed. */
  status?: string;
  limit?: number;
  /** Episodes per request, 1 to 1000 (default 100). */
  pageSize?: number;
}

/** Options of `entityGraph`: `depth` 1 or 2 hops (default 2), at most `limit` entities. */
export interface EntityGraphOptions extends CallOptions {
  asOf?: TimeLike;
  depth?: number;
  limit?: number;
}

/** Options taking only a limit. */
export interface LimitOptions extends CallOptions {
  limit?: number;
}

/** Options of `search`; `types` narrows the hits to fact, entity or episode. */
export type SearchOptions = Omit<SearchRequest, "query"> & CallOptions;

/**
 * Options of `context`: `mode` is auto (history for questions about time, change or causes), current or
 * history; `format` text, markdown or json; `focus` names entities the answer is about;
 * `referenceTime` is when the question is asked, against which relative times in it ("last March")
 * are read (default `asOf`, else now).
 */
export type ContextOptions = Omit<ContextRequest, "query"> & CallOptions;

/**
 * Options of `remember`: `kind` is message, text or json; `role` user, assistant, system or tool;
 * `referenceTime` when it happened (default now). With `wait` the server answers once extraction
 * is over, and the episode's `factIds` are filled. `idempotencyKey` defaults to a new one.
 */
export type RememberOptions = Omit<EpisodeRequest, "content"> & CallOptions & { wait?: boolean };

/**
 * What to forget, by `factIds`, `entity`, search `query` or source `episodeId`. `mode` forget (the
 * default) takes them off every recall path and keeps tombstones so they cannot come back; purge also
 * deletes their source episodes. `dryRun` only lists what would go; `limit` bounds what a query selects.
 */
export type ForgetOptions = ForgetRequest & CallOptions;

/** A stored episode, with the server's warning when it gave one (no extraction model, say). */
export type Remembered = Episode & { warning?: string };

/** One record to import: as `export` yields it, or an export line's JSON object. */
export type RecordLike = ExportRecord | JsonObject;

interface Call {
  method: string;
  path: string;
  params?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  ndjson?: string;
  /** It may be sent again after a 429 or 503. */
  retry: boolean;
  /** The least time the call is given, in ms, whatever the caller's timeout. */
  least?: number;
}

const TIMED_OUT = Symbol("timed out");

function env(name: string): string | undefined {
  const g = globalThis as {
    process?: { env?: Record<string, string | undefined> };
    Deno?: { env: { get(name: string): string | undefined } };
  };
  try {
    return g.Deno ? g.Deno.env.get(name) : g.process?.env?.[name];
  } catch {
    return undefined; // Deno without --allow-env
  }
}

function pathId(value: string, what: string): string {
  if (typeof value !== "string" || value === "") throw new TypeError(`${what} must be a non-empty string`);
  return encodeURIComponent(value);
}

function time(value: TimeLike | undefined | null, field: string): string | undefined {
  return value == null ? undefined : formatTime(value, field);
}

function newKey(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return `ts-${c.randomUUID()}`;
  return `ts-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = (): void => {
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** The wait a Retry-After header asks for, in ms (delta seconds or an HTTP date), or undefined. */
export function retryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000);
  const when = Date.parse(value);
  return Number.isNaN(when) ? undefined : Math.max(0, when - Date.now());
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.cause?.code ?? e?.code;
  return typeof code === "string" ? code : "";
}

function notConnected(err: unknown): boolean {
  const text = `${(err as Error)?.message ?? ""} ${(err as { cause?: Error })?.cause?.message ?? ""}`;
  return NOT_CONNECTED.has(errorCode(err)) || /connection refused/i.test(text);
}

/**
 * A client of one graphmem server.
 *
 * Every call takes a `signal` and a `timeout` (ms). Reads, and `remember` (which always sends an
 * idempotency key), are sent again after a 429 or 503, waiting as the server's Retry-After asks;
 * other writes are sent once. Every failure is a `GraphmemError`.
 *
 * ```ts
 * const g = new Graphmem(); // GRAPHMEM_URL, GRAPHMEM_API_KEY
 * await g.addFacts([{ subject: "payments-db", predicate: "port", value: "3307", validFrom: "2024-03-01" }]);
 * console.log((await g.context("which port does payments-db listen on?")).context);
 * ```
 */
export class Graphmem {
  /** The server's URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The scope asked for, if any. */
  readonly scope: string | undefined;
  readonly #apiKey: string | undefined;
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #backoff: number;
  readonly #fetch: typeof fetch;
  readonly #onWarning: (warning: string) => void;

  constructor(options: GraphmemOptions = {}) {
    const url = options.baseUrl || env("GRAPHMEM_URL") || DEFAULT_URL;
    this.baseUrl = url.replace(/\/+$/, "");
    this.#apiKey = options.apiKey ?? (env("GRAPHMEM_API_KEY") || undefined);
    this.scope = options.scope;
    this.#timeout = options.timeout ?? 10_000;
    this.#maxRetries = options.maxRetries ?? 3;
    this.#backoff = options.backoff ?? 500;
    if (!(this.#timeout > 0)) throw new RangeError("timeout must be more than 0 ms");
    if (!(Number.isInteger(this.#maxRetries) && this.#maxRetries >= 0)) {
      throw new RangeError("maxRetries must be a whole number, 0 or more");
    }
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("no global fetch: pass options.fetch (Node 18 or later has one)");
    this.#fetch = f;
    const said = new Set<string>();
    this.#onWarning =
      options.onWarning ??
      ((w: string) => {
        if (!said.has(w)) console.warn(`graphmem: ${w}`);
        said.add(w);
      });
  }

  // ---- transport --------------------------------------------------------

  #url(call: Call): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(call.params ?? {})) {
      if (v !== undefined) q.set(k, String(v));
    }
    const query = q.toString();
    return `${this.baseUrl}${call.path}${query ? `?${query}` : ""}`;
  }

  #headers(call: Call): Record<string, string> {
    const h: Record<string, string> = { Accept: "application/json", "User-Agent": `graphmem-typescript/${VERSION}` };
    if (this.#apiKey) h["Authorization"] = `Bearer ${this.#apiKey}`;
    if (this.scope) h[SCOPE_HEADER] = this.scope;
    if (call.body !== undefined) h["Content-Type"] = "application/json";
    if (call.ndjson !== undefined) h["Content-Type"] = "application/x-ndjson";
    return h;
  }

  #retryDelay(call: Call, attempt: number, res: Response): number | undefined {
    if (!RETRY_STATUSES.has(res.status) || !call.retry || attempt >= this.#maxRetries) return undefined;
    const asked = retryAfter(res.headers.get("Retry-After"));
    if (asked === undefined) return this.#backoffDelay(attempt);
    return asked > MAX_RETRY_WAIT ? undefined : asked;
  }

  #backoffDelay(attempt: number): number {
    return this.#backoff * 2 ** attempt * (0.5 + Math.random() / 2);
  }

  /**
   * Send a call, retrying as its kind allows, and hand the answer of status < 400 to `read`, which runs
   * within the timeout. With `stream`, the timeout ends once the answer's headers are in and the
   * response is returned to `read` unread.
   */
  async #send<T>(call: Call, opts: CallOptions, read: (res: Response) => Promise<T>, stream = false): Promise<T> {
    const body = call.ndjson ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
    const url = this.#url(call);
    const timeout = Math.max(opts.timeout ?? this.#timeout, call.least ?? 0);
    const where = `${call.method} ${this.baseUrl}${call.path}`;
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(TIMED_OUT), timeout);
      const cancel = (): void => ctl.abort(opts.signal?.reason);
      opts.signal?.addEventListener("abort", cancel, { once: true });
      const init: RequestInit = { method: call.method, headers: this.#headers(call), signal: ctl.signal };
      if (body !== undefined) init.body = body;
      let delay: number | undefined;
      let failure: GraphmemError;
      let answered = false; // the answer's status line came back
      try {
        const doFetch = this.#fetch; // called unbound: a browser's fetch refuses another `this`
        const res = await doFetch(url, init);
        answered = true;
        if (res.status < 400) {
          if (stream) clearTimeout(timer);
          return await read(res);
        }
        const text = await res.text();
        failure = errorFromResponse(res, text);
        delay = this.#retryDelay(call, attempt, res);
      } catch (err) {
        if (err instanceof GraphmemError) throw err;
        if (opts.signal?.aborted) throw opts.signal.reason;
        const refused = notConnected(err);
        const why = (err as { cause?: Error })?.cause?.message || (err as Error)?.message || String(err);
        if (ctl.signal.reason === TIMED_OUT) {
          failure = new GraphmemConnectionError(
            `graphmem did not answer ${where} within ${timeout / 1000}s (raise timeout for slow calls)`,
            { cause: err },
          );
        } else if (refused || !answered) {
          // No answer at all (refused, reset, a port fetch will not use): most often no graphmem
          // there, so say where it was looked for and what to run, as the Python client does.
          failure = new GraphmemConnectionError(
            `cannot reach graphmem at ${this.baseUrl} (${refused ? why : `${where}: ${why}`}); ` +
              "is `graphmem serve` running there? Set baseUrl or GRAPHMEM_URL to its address",
            { cause: err },
          );
        } else {
          failure = new GraphmemConnectionError(`the connection to graphmem broke during ${where}: ${why}`, {
            cause: err,
          });
        }
        if (attempt < this.#maxRetries && (refused || call.retry)) delay = this.#backoffDelay(attempt);
      } finally {
        clearTimeout(timer);
        if (!stream) opts.signal?.removeEventListener("abort", cancel);
      }
      if (delay === undefined) throw failure;
      await sleep(delay, opts.signal);
    }
  }

  async #json<T>(call: Call, opts: CallOptions = {}): Promise<T> {
    return this.#send(call, opts, async (res) => {
      const text = await res.text();
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (err) {
        throw unexpected(call, res, (err as Error).message);
      }
      if (data === null || typeof data !== "object") throw unexpected(call, res, "not a JSON object");
      return fromWire(data) as T;
    });
  }

  #pages<T>(path: string, params: Record<string, string | boolean | undefined>, opts: CallOptions & { limit?: number; pageSize?: number }, defaultSize: number): Pages<T> {
    const call = (cursor: string | undefined, size: number): Promise<Page<T>> =>
      this.#json<Page<T>>({ method: "GET", path, params: { ...params, limit: size, cursor }, retry: true }, opts);
    return new Pages(call, opts.limit, opts.pageSize ?? defaultSize);
  }

  #warn(warning: string | undefined): void {
    if (warning) this.#onWarning(warning);
  }

  // ---- facts ------------------------------------------------------------

  /**
   * Add structured facts; one result per fact, in order. The temporal rules decide what each one
   * does (`result.action`): a new value of a one-valued predicate supersedes the one in force, a late
   * one slots in as history, a repeated one corroborates. Not retried: the request carries no
   * idempotency key. Keys are sent snake_cased as they are, so a misspelt one is named by the server.
   */
  async addFacts(facts: Iterable<FactInput>, opts: CallOptions = {}): Promise<FactResult[]> {
    const body = [...facts].map((f, i) => toWire(f, `facts[${i}]`));
    if (body.length === 0) throw new RangeError("addFacts needs at least one fact");
    const res = await this.#json<{ results: FactResult[] }>(
      { method: "POST", path: "/v1/facts", body: { facts: body }, retry: false },
      opts,
    );
    for (const r of res.results) this.#warn(r.warning);
    return res.results;
  }

  /** The facts valid at `asOf` as known at `knownAt`, fetched a page at a time as you iterate. */
  facts(opts: FactsOptions = {}): Pages<Fact> {
    const params = {
      subject: opts.subject,
      predicate: opts.predicate,
      object: opts.object,
      as_of: time(opts.asOf, "asOf"),
      known_at: time(opts.knownAt, "knownAt"),
      include_history: opts.includeHistory || undefined,
    };
    return this.#pages("/v1/facts", params, opts, 100);
  }

  /**
   * One fact with its supersession chain and the episodes it came from, as known at `knownAt`
   * (default now): a retracted fact is a NotFoundError unless asked as of before its retraction.
   */
  fact(factId: string, opts: FactOptions = {}): Promise<FactDetail> {
    const path = `/v1/facts/${pathId(factId, "factId")}`;
    const params = { known_at: time(opts.knownAt, "knownAt") };
    return this.#json({ method: "GET", path, params, retry: true }, opts);
  }

  /** Retract a fact: it was never true. Queries with an earlier `knownAt` still see it. */
  retract(factId: string, opts: CallOptions = {}): Promise<Fact> {
    const path = `/v1/facts/${pathId(factId, "factId")}`;
    return this.#json({ method: "DELETE", path, params: { mode: "retract" }, retry: false }, opts);
  }

  /** Every fact of an entity (by id, name or alias) over time, in valid-time order. */
  timeline(nameOrId: string, opts: TimelineOptions = {}): Pages<Fact> {
    const path = `/v1/entities/${pathId(nameOrId, "nameOrId")}/timeline`;
    const params = { predicate: opts.predicate, known_at: time(opts.knownAt, "knownAt") };
    return this.#pages(path, params, opts, 1000);
  }

  // ---- entities ---------------------------------------------------------

  /** Entities by name: exact, then alias, then fuzzy matches. */
  async findEntities(name: string, opts: LimitOptions = {}): Promise<EntityMatch[]> {
    const call: Call = { method: "GET", path: "/v1/entities", params: { name, limit: opts.limit }, retry: true };
    return (await this.#json<{ items: EntityMatch[] }>(call, opts)).items;
  }

  /** One entity (by id, name or alias) with the facts about it valid now. */
  entity(nameOrId: string, opts: CallOptions = {}): Promise<EntityDetail> {
    return this.#json({ method: "GET", path: `/v1/entities/${pathId(nameOrId, "nameOrId")}`, retry: true }, opts);
  }

  /** The entities and relationships around an entity as of a valid time, ended relationships included. */
  entityGraph(nameOrId: string, opts: EntityGraphOptions = {}): Promise<EntityGraph> {
    const path = `/v1/entities/${pathId(nameOrId, "nameOrId")}/graph`;
    const params = { as_of: time(opts.asOf, "asOf"), depth: opts.depth, limit: opts.limit };
    return this.#json({ method: "GET", path, params, retry: true }, opts);
  }

  // ---- recall -----------------------------------------------------------

  /**
   * Ranked facts, entities and episodes for a query, and the names of the query memory knows nothing
   * about (`unresolved`) or that name several entities (`ambiguous`).
   */
  search(query: string, opts: SearchOptions = {}): Promise<SearchResponse> {
    const { signal, timeout, ...rest } = opts;
    const body = toWire({ query, ...rest });
    return this.#json({ method: "POST", path: "/v1/search", body, retry: true }, { signal, timeout });
  }

  /** What to put in the prompt for `query`: `text` is the block, the rest what it cites. */
  async context(query: string, opts: ContextOptions = {}): Promise<Context> {
    const { signal, timeout, ...rest } = opts;
    const body = toWire({ query, ...rest });
    const ctx = await this.#json<Omit<Context, "text">>(
      { method: "POST", path: "/v1/context", body, retry: true },
      { signal, timeout },
    );
    // `text`, the old name of `context`, is kept one release, out of JSON.stringify and spreads.
    return Object.defineProperty(ctx, "text", { get: () => ctx.context, enumerable: false }) as Context;
  }

  // ---- episodes ---------------------------------------------------------

  /**
   * Store what was said or what happened, verbatim, and queue it for extraction into facts; answers
   * the stored episode. The request always carries an idempotency key (a new one unless given; a
   * repeated key returns the episode stored first), so it is safely retried.
   */
  async remember(content: string, opts: RememberOptions = {}): Promise<Remembered> {
    const { signal, timeout, wait, ...rest } = opts;
    const body = toWire({ content, ...rest, idempotencyKey: rest.idempotencyKey || newKey() });
    const call: Call = {
      method: "POST",
      path: "/v1/episodes",
      params: { wait: wait || undefined },
      body,
      retry: true,
      least: wait ? WAIT_TIMEOUT : undefined,
    };
    const co: CallOptions = { signal, timeout };
    const accepted = await this.#json<EpisodeAccepted>(call, co);
    this.#warn(accepted.warning);
    const episode: Remembered = await this.episode(accepted.episodeId, co);
    if (accepted.warning) episode.warning = accepted.warning;
    return episode;
  }

  /** One episode with its extraction status and the facts derived from it. */
  episode(episodeId: string, opts: CallOptions = {}): Promise<Episode> {
    return this.#json({ method: "GET", path: `/v1/episodes/${pathId(episodeId, "episodeId")}`, retry: true }, opts);
  }

  /** Episodes, newest first, fetched a page at a time as you iterate. */
  episodes(opts: EpisodesOptions = {}): Pages<Episode> {
    return this.#pages("/v1/episodes", { status: opts.status }, opts, 100);
  }

  /** Queue a failed episode for extraction again. */
  retryEpisode(episodeId: string, opts: CallOptions = {}): Promise<EpisodeAccepted> {
    const path = `/v1/episodes/${pathId(episodeId, "episodeId")}/retry`;
    return this.#json({ method: "POST", path, retry: false }, opts);
  }

  // ---- forgetting -------------------------------------------------------

  /** Forget facts by ids, entity, search query or source episode; only a dry run is retried. */
  forget(opts: ForgetOptions): Promise<ForgetResult> {
    const { signal, timeout, ...rest } = opts;
    if (!(rest.factIds?.length || rest.entity || rest.query || rest.episodeId)) {
      throw new TypeError("forget needs factIds, entity, query or episodeId");
    }
    const body = toWire({ ...rest, dryRun: rest.dryRun || undefined });
    return this.#json({ method: "POST", path: "/v1/forget", body, retry: Boolean(rest.dryRun) }, { signal, timeout });
  }

  /** The scope's forget and purge records, most recent first. */
  async audit(opts: LimitOptions = {}): Promise<AuditEntry[]> {
    const call: Call = { method: "GET", path: "/v1/audit", params: { limit: opts.limit }, retry: true };
    return (await this.#json<{ items: AuditEntry[] }>(call, opts)).items;
  }

  // ---- export and import ------------------------------------------------

  /**
   * Everything in the scope, one record at a time, streamed as the server writes it. Importing a
   * record sends back the line the server wrote, so times keep their nanoseconds.
   */
  async *export(opts: CallOptions = {}): AsyncGenerator<ExportRecord, void, undefined> {
    const call: Call = { method: "GET", path: "/v1/export", retry: true };
    const res = await this.#send(call, opts, async (r) => r, true);
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (value) rest += value;
        const lines = rest.split("\n");
        rest = done ? "" : (lines.pop() ?? "");
        for (const line of lines) {
          const rec = exportRecord(line, call, res);
          if (rec) yield rec;
        }
        if (done) return;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  /**
   * Load export records into the scope, keeping ids and times; tombstoned facts stay out. Pipe an
   * export straight through: `await dest.import(source.export())`. Not retried.
   */
  async import(records: AsyncIterable<RecordLike> | Iterable<RecordLike>, opts: CallOptions = {}): Promise<ImportResult> {
    const lines: string[] = [];
    for await (const r of records) lines.push(JSON.stringify(RAW.get(r) ?? toWire(r)));
    const call: Call = { method: "POST", path: "/v1/import", ndjson: lines.join("\n") + "\n", retry: false };
    return this.#json(call, opts);
  }

  // ---- operations -------------------------------------------------------

  /** Counts of the scope's facts, entities and episodes, and its latest `limit` changes (default 20). */
  overview(opts: LimitOptions = {}): Promise<Overview> {
    return this.#json({ method: "GET", path: "/v1/overview", params: { limit: opts.limit }, retry: true }, opts);
  }

  /** The entity types and predicates the server knows (cardinality, synonyms, TTL). */
  ontology(opts: CallOptions = {}): Promise<Ontology> {
    return this.#json({ method: "GET", path: "/v1/ontology", retry: true }, opts);
  }

  /** The scope of this client's requests and the scopes its key may use. */
  session(opts: CallOptions = {}): Promise<Session> {
    return this.#json({ method: "GET", path: "/v1/session", retry: true }, opts);
  }

  /** Liveness: the server answers. */
  health(opts: CallOptions = {}): Promise<Health> {
    return this.#json({ method: "GET", path: "/healthz", retry: true }, opts);
  }

  /** Readiness: the store answers; throws `UnavailableError` when it does not. */
  ready(opts: CallOptions = {}): Promise<Health> {
    return this.#json({ method: "GET", path: "/readyz", retry: false }, opts);
  }

  /** The server's OpenAPI document, as it wrote it. */
  openapi(opts: CallOptions = {}): Promise<JsonObject> {
    const call: Call = { method: "GET", path: "/openapi.json", retry: true };
    return this.#send(call, opts, async (res) => (await res.json()) as JsonObject);
  }
}

/** The line each exported record was parsed from, sent back unchanged when it is imported. */
const RAW = new WeakMap<object, unknown>();

function exportRecord(line: string, call: Call, res: Response): ExportRecord | undefined {
  if (!line.trim()) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch (err) {
    throw unexpected(call, res, (err as Error).message);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw unexpected(call, res, `a line is not a JSON object: ${line.slice(0, 80)}`);
  }
  const rec = fromWire(data) as ExportRecord;
  RAW.set(rec, data);
  return rec;
}

function unexpected(call: Call, res: Response, why: string): GraphmemError {
  const type = res.headers.get("Content-Type") ?? "no content type";
  return new GraphmemError(`unexpected answer to ${call.method} ${call.path} (${res.status}, ${type}): ${why}`, {
    status: res.status,
    requestId: res.headers.get(REQUEST_ID_HEADER) ?? undefined,
  });
}

/** The error an answer of status 4xx/5xx stands for. */
function errorFromResponse(res: Response, text: string): GraphmemError {
  const requestId = res.headers.get(REQUEST_ID_HEADER) ?? undefined;
  let detail: { code?: unknown; message?: unknown; fields?: unknown } | undefined;
  try {
    detail = (JSON.parse(text) as { error?: typeof detail })?.error;
  } catch {
    detail = undefined;
  }
  if (!detail || typeof detail.code !== "string" || typeof detail.message !== "string") {
    const body = text.trim().slice(0, 200);
    const message = `the server answered ${res.status} ${res.statusText || "error"}${body ? `: ${body}` : ""}`;
    return new (errorClass(res.status, ""))(message, { status: res.status, requestId });
  }
  const fields =
    detail.fields && typeof detail.fields === "object" ? (detail.fields as Record<string, string>) : undefined;
  return new (errorClass(res.status, detail.code))(detail.message, {
    status: res.status,
    code: detail.code,
    fields,
    requestId,
  });
}
