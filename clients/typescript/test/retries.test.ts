// Retries on 429 and 503, and timeouts: a proxy in front of the real server answers the first requests itself.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import { after, beforeEach, test } from "node:test";

import {
  Graphmem,
  GraphmemConnectionError,
  GraphmemError,
  RateLimitedError,
  UnavailableError,
  retryAfter,
} from "../src/index.js";
import { ALICE_KEY, startServer, uniqueName } from "./helpers.js";

const server = await startServer();

interface Seen {
  method: string;
  path: string;
  body: string;
  at: number;
}

// The proxy's state: scripted answers, what it received, and a delay before forwarding.
const script: Array<{ status: number; headers: Record<string, string>; body: string }> = [];
const seen: Seen[] = [];
let delay = 0;
let delayMethod = "";

function fail(n: number, status = 503, retryAfterHeader?: string, body?: string): void {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (retryAfterHeader !== undefined) headers["Retry-After"] = retryAfterHeader;
  const code = status === 503 ? "unavailable" : "rate_limited";
  const text = body ?? JSON.stringify({ error: { code, message: "try again" } });
  for (let i = 0; i < n; i++) script.push({ status, headers, body: text });
}

async function read(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

const proxy = createServer((req, res) => {
  void (async () => {
    const body = await read(req);
    seen.push({ method: req.method!, path: req.url!, body, at: performance.now() });
    const scripted = script.shift();
    if (scripted) {
      res.writeHead(scripted.status, scripted.headers).end(scripted.body);
      return;
    }
    if (!delayMethod || delayMethod === req.method) await new Promise((r) => setTimeout(r, delay));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v;
    }
    const init: RequestInit = { method: req.method!, headers };
    if (body) init.body = body;
    const up = await fetch(`${server.url}${req.url}`, init);
    const text = await up.text();
    res.writeHead(up.status, { "Content-Type": up.headers.get("Content-Type") ?? "application/json" }).end(text);
  })().catch((err: unknown) => res.writeHead(500).end(String(err)));
});
await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
after(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await server.stop();
});
beforeEach(() => {
  script.length = 0;
  seen.length = 0;
  delay = 0;
  delayMethod = "";
});

const client = (opts: { maxRetries?: number; backoff?: number; timeout?: number } = {}): Graphmem =>
  new Graphmem({ baseUrl: proxyUrl, apiKey: ALICE_KEY, onWarning: () => {}, ...opts });

test("reads wait as Retry-After asks", async () => {
  fail(2, 503, "1");
  assert.deepEqual(await client().facts({ subject: uniqueName() }).toArray(), []);
  assert.equal(seen.length, 3);
  const gaps = seen.slice(1).map((s, i) => s.at - seen[i]!.at);
  assert.ok(gaps.every((g) => g >= 900), JSON.stringify(gaps));
});

test("backoff without Retry-After, and an HTTP date", async () => {
  fail(1, 429);
  fail(1, 503, new Date(Date.now() + 1000).toUTCString());
  await client({ backoff: 10 }).search(uniqueName());
  assert.deepEqual(
    seen.map((s) => s.path),
    ["/v1/search", "/v1/search", "/v1/search"],
  );
  assert.equal(retryAfter("2"), 2000);
  assert.equal(retryAfter("soon"), undefined);
  assert.equal(retryAfter(new Date(Date.now() - 5000).toUTCString()), 0);
});

test("retries give up, and a long Retry-After is not waited for", async () => {
  fail(3, 503, "0");
  const e = await client({ maxRetries: 2 })
    .facts()
    .toArray()
    .catch((err: unknown) => err);
  assert.ok(e instanceof UnavailableError);
  assert.equal(e.status, 503);
  assert.equal(e.code, "unavailable");
  assert.equal(seen.length, 3);
  fail(1, 429, "3600");
  await assert.rejects(client().facts().toArray(), RateLimitedError);
  assert.equal(seen.length, 4);
});

test("writes without an idempotency key are sent once", async () => {
  const name = uniqueName();
  fail(1, 503, "0");
  await assert.rejects(client().addFacts([{ subject: name, predicate: "port", value: "1" }]), UnavailableError);
  assert.equal(seen.length, 1);
  const direct = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY });
  const [fact] = await direct.addFacts([{ subject: name, predicate: "port", value: "2" }]);
  fail(1, 503, "0");
  await assert.rejects(client().retract(fact!.factId!), UnavailableError);
  assert.equal(seen.length, 2);
  fail(1, 503, "0");
  await assert.rejects(client().forget({ factIds: [fact!.factId!] }), UnavailableError);
  assert.equal(seen.length, 3);
  fail(1, 503, "0"); // a dry run changes nothing, so it is retried
  assert.equal((await client().forget({ factIds: [fact!.factId!], dryRun: true })).facts, 1);
  assert.equal(seen.length, 5);
});

test("remember is retried with the same idempotency key, and stored once", async () => {
  const name = uniqueName();
  fail(1, 429, "0");
  const ep = await client().remember(`${name} was retried once.`);
  const posts = seen.filter((s) => s.method === "POST");
  assert.equal(posts.length, 2);
  const keys = new Set(posts.map((s) => (JSON.parse(s.body) as { idempotency_key: string }).idempotency_key));
  assert.equal(keys.size, 1);
  assert.match([...keys][0]!, /^ts-/);
  const direct = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY });
  const stored = (await direct.episodes().toArray()).filter((e) => e.content === `${name} was retried once.`);
  assert.deepEqual(
    stored.map((e) => e.id),
    [ep.id],
  );
});

test("a proxy's error page is still an error", async () => {
  fail(1, 503, undefined, "<html>upstream down</html>");
  const e = await client({ maxRetries: 0 })
    .facts()
    .toArray()
    .catch((err: unknown) => err);
  assert.ok(e instanceof UnavailableError);
  assert.ok(e.message.includes("503") && e.detail.includes("upstream down"), e.message);
});

test("an answer of another shape is a GraphmemError", async () => {
  script.push({ status: 200, headers: { "Content-Type": "text/html" }, body: "<html>captive portal</html>" });
  const e = await client()
    .facts()
    .toArray()
    .catch((err: unknown) => err);
  assert.ok(e instanceof GraphmemError);
  assert.match(e.message, /unexpected answer to GET \/v1\/facts \(200, text\/html\)/);
});

test("timeouts: the client's, a call's own, and a waited episode's", async () => {
  delay = 600;
  const g = client({ timeout: 200, maxRetries: 0 });
  const e = await g
    .facts({ subject: uniqueName() })
    .toArray()
    .catch((err: unknown) => err);
  assert.ok(e instanceof GraphmemConnectionError);
  assert.match(e.message, /did not answer GET .* within 0\.2s/);
  // A call's own timeout overrides the client's.
  assert.equal((await g.session({ timeout: 5000 })).scope, "alice");
  // A waited episode is given the time the server may take to answer it.
  delayMethod = "POST";
  const name = uniqueName();
  const ep = await g.remember(`${name} waited for extraction.`, { wait: true });
  assert.equal(ep.content, `${name} waited for extraction.`);
});

test("a signal stops the wait between retries", async () => {
  fail(1, 503, "20");
  const ctl = new AbortController();
  const started = performance.now();
  const pending = client().session({ signal: ctl.signal });
  setTimeout(() => ctl.abort(), 200);
  await assert.rejects(pending, (err: Error) => err.name === "AbortError");
  assert.ok(performance.now() - started < 5000);
});
