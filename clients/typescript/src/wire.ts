// What goes over the wire: times, key spelling and the free-form objects
// whose keys belong to the caller.
//
// The API speaks snake_case JSON with RFC 3339 times; the client speaks
// camelCase with Dates. Answers are converted by key: a key in DATE_KEYS
// holding a string becomes a Date, the value of a key in OPAQUE is kept as
// the server wrote it (metadata, attributes: the caller's own keys), every
// other key is camelCased. The OpenAPI test checks both sets against the
// live document, so a new time or free-form field cannot slip past them.

/** A time argument: a Date, a plain `YYYY-MM-DD` day (midnight UTC) or an RFC 3339 string. */
export type TimeLike = Date | string;

/** Properties, by JSON name, whose values are times. */
export const DATE_KEYS: ReadonlySet<string> = new Set([
  "archived_at",
  "as_of",
  "at",
  "created_at",
  "expired_at",
  "expires_at",
  "forgotten_at",
  "from",
  "known_at",
  "last_accessed_at",
  "next_attempt_at",
  "recorded_at",
  "reference_time",
  "said",
  "to",
  "until",
  "updated_at",
  "valid_from",
  "valid_to",
]);

/** Properties, by JSON name, holding free-form objects whose keys are kept as they are. */
export const OPAQUE: ReadonlySet<string> = new Set(["attributes", "fields", "inputs", "lag", "metadata", "signals"]);

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The time as the server reads it: a Date in UTC, a plain day as its midnight UTC, any other string as given
 * (the server names the field when it cannot read it). */
export function formatTime(value: TimeLike, field: string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError(`${field}: an invalid Date`);
    return value.toISOString();
  }
  if (typeof value !== "string") throw new TypeError(`${field}: a time must be a Date or a string`);
  return DAY.test(value) ? `${value}T00:00:00Z` : value;
}

/** `validFrom` → `valid_from`. */
export function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `valid_from` → `validFrom`. */
export function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** An answer's JSON in the client's spelling: camelCase keys, Dates for times, free-form objects untouched. */
export function fromWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromWire);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  // A path's hop names the entity it reaches in `to`, where a period's `to` is a time.
  const hop = "predicate" in value && "entity" in value;
  for (const [k, v] of Object.entries(value)) {
    if (OPAQUE.has(k)) out[camel(k)] = v;
    else if (DATE_KEYS.has(k) && typeof v === "string" && !(hop && k === "to")) out[camel(k)] = new Date(v);
    else out[camel(k)] = fromWire(v);
  }
  return out;
}

/** A request's JSON from the client's spelling: snake_case keys, times formatted, undefined left out,
 * free-form objects untouched. `path` names the value in errors. */
export function toWire(value: unknown, path = ""): unknown {
  if (value instanceof Date) return formatTime(value, path);
  if (Array.isArray(value)) return value.map((v, i) => toWire(v, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const key = snake(k);
    const at = path ? `${path}.${k}` : k;
    if (OPAQUE.has(key)) out[key] = v;
    else if (DATE_KEYS.has(key) && (typeof v === "string" || v instanceof Date)) out[key] = formatTime(v, at);
    else out[key] = toWire(v, at);
  }
  return out;
}
