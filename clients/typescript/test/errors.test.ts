// Errors, keys, scopes, cancelling and argument checks against a real server.

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, test } from "node:test";

import {
  ForbiddenError,
  Graphmem,
  GraphmemConnectionError,
  GraphmemError,
  InvalidArgumentError,
  NotFoundError,
  TooLargeError,
  UnauthorizedError,
  UnavailableError,
  type FactInput,
} from "../src/index.js";
import { ALICE_KEY, BOB_KEY, startServer, uniqueName } from "./helpers.js";

const server = await startServer();
after(() => server.stop());
const alice = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY, onWarning: () => {} });
const bob = new Graphmem({ baseUrl: server.url, apiKey: BOB_KEY, onWarning: () => {} });

async function thrown(p: Promise<unknown>): Promise<GraphmemError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof GraphmemError, `not a GraphmemError: ${String(err)}`);
    return err;
  }
  assert.fail("expected a GraphmemError");
}

test("invalid input names the field", async () => {
  const name = uniqueName();
  const missing = { subject: name } as FactInput; // what a caller without types may send
  const e = await thrown(alice.addFacts([{ subject: name, predicate: "port", value: "1" }, missing]));
  assert.ok(e instanceof InvalidArgumentError);
  assert.equal(e.status, 400);
  assert.equal(e.code, "invalid_argument");
  assert.ok("facts[1].predicate" in e.fields, JSON.stringify(e.fields));
  assert.match(e.message, /facts\[1\]\.predicate/);
  assert.equal(e.name, "InvalidArgumentError");
  assert.ok(e.requestId);

  // A misspelt key is the server's to name, not silently dropped.
  const misspelt = { subject: name, predicate: "port", value: "1", validForm: "2024-01-01" } as FactInput;
  const m = await thrown(alice.addFacts([misspelt]));
  assert.ok(Object.entries(m.fields).some(([k, v]) => `${k} ${v}`.includes("valid_form")), JSON.stringify(m.fields));

  assert.ok("mode" in (await thrown(alice.context("q", { mode: "sometimes" }))).fields);
  assert.ok("as_of" in (await thrown(alice.facts({ asOf: "last tuesday" }).toArray())).fields);
  assert.ok("max_tokens" in (await thrown(alice.context("q", { maxTokens: 1 }))).fields);
});

test("not found", async () => {
  const e = await thrown(alice.fact("no-such-fact"));
  assert.ok(e instanceof NotFoundError);
  assert.equal(e.status, 404);
  assert.equal(e.code, "not_found");
  assert.ok(e.detail && e.requestId);
  await assert.rejects(alice.episode("no-such-episode"), NotFoundError);
  await assert.rejects(alice.retract("no-such-fact"), GraphmemError); // the base class catches every kind
});

test("keys: a wrong or missing key is refused, and so is a foreign scope", async () => {
  const wrong = new Graphmem({ baseUrl: server.url, apiKey: "wrong-key-0000000000000000" });
  const e = await thrown(wrong.facts().toArray());
  assert.ok(e instanceof UnauthorizedError);
  assert.equal(e.status, 401);
  await assert.rejects(new Graphmem({ baseUrl: server.url }).search("anything"), UnauthorizedError);
  const foreign = await thrown(new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY, scope: "bob" }).facts().toArray());
  assert.ok(foreign instanceof ForbiddenError);
  assert.equal(foreign.status, 403);
  assert.equal(foreign.code, "permission_denied");
});

test("the environment gives the URL and the key", async () => {
  const saved = { url: process.env["GRAPHMEM_URL"], key: process.env["GRAPHMEM_API_KEY"] };
  process.env["GRAPHMEM_URL"] = `${server.url}/`;
  process.env["GRAPHMEM_API_KEY"] = BOB_KEY;
  try {
    const g = new Graphmem();
    assert.equal(g.baseUrl, server.url);
    assert.equal((await g.session()).scope, "bob");
  } finally {
    for (const [k, v] of [["GRAPHMEM_URL", saved.url], ["GRAPHMEM_API_KEY", saved.key]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

test("scopes are kept apart", async () => {
  const name = uniqueName();
  await alice.addFacts([{ subject: name, predicate: "port", value: "7001" }]);
  const work = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY, scope: "alice-work" });
  await work.addFacts([{ subject: name, predicate: "port", value: "7002" }]);
  assert.deepEqual(
    (await work.facts({ subject: name }).toArray()).map((f) => [f.value, f.scope]),
    [["7002", "alice-work"]],
  );
  assert.deepEqual(
    (await alice.facts({ subject: name }).toArray()).map((f) => f.value),
    ["7001"],
  );
  assert.deepEqual(await bob.facts({ subject: name }).toArray(), []);
  const ctx = await bob.context(`which port does ${name} use?`);
  assert.deepEqual(
    ctx.unresolved.map((n) => n.name),
    [name],
  );
  assert.ok(!ctx.context.includes("7001") && !ctx.context.includes("7002"));
  const factId = (await alice.facts({ subject: name }).toArray())[0]!.id;
  await assert.rejects(bob.fact(factId), NotFoundError);
  await assert.rejects(bob.forget({ factIds: [factId] }), GraphmemError);
  assert.equal((await alice.facts({ subject: name }).toArray()).length, 1);
});

test("too large", async () => {
  const e = await thrown(alice.remember("x".repeat(5 << 20)));
  assert.ok(e instanceof TooLargeError);
  assert.equal(e.status, 413);
});

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test("an unreachable server says so", async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const e = await thrown(new Graphmem({ baseUrl: url, maxRetries: 1, backoff: 10 }).facts().toArray());
  assert.ok(e instanceof GraphmemConnectionError && e instanceof UnavailableError);
  assert.ok(e.message.includes(url) && e.message.includes("graphmem serve") && e.message.includes("GRAPHMEM_URL"), e.message);
  assert.equal(e.status, 0);
});

test("a server that closes without answering is named, with what to run", async () => {
  // Something listens, but answers nothing: fetch says only "fetch failed".
  const s = createServer((sock) => sock.destroy());
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(s.address() as { port: number }).port}`;
  try {
    const e = await thrown(new Graphmem({ baseUrl: url, maxRetries: 0 }).session());
    assert.ok(e instanceof GraphmemConnectionError, String(e));
    assert.match(e.message, /^cannot reach graphmem at http:\/\/127\.0\.0\.1:\d+ \(GET .*\/v1\/session: /);
    assert.ok(e.message.includes("is `graphmem serve` running there?") && e.message.includes("GRAPHMEM_URL"), e.message);
  } finally {
    await new Promise((r) => s.close(r));
  }
});

test("a signal cancels a call, and a timeout bounds it", async () => {
  const ctl = new AbortController();
  ctl.abort(new Error("the user left"));
  await assert.rejects(alice.session({ signal: ctl.signal }), /the user left/);
  const late = new AbortController();
  const pending = alice.remember("x", { wait: true, signal: late.signal });
  late.abort();
  await assert.rejects(pending, (err: Error) => err.name === "AbortError");
  // The server holds a waited episode up to its wait timeout; 1 ms is never enough.
  const e = await thrown(alice.search("anything", { timeout: 1 }));
  assert.ok(e instanceof GraphmemConnectionError);
  assert.match(e.message, /did not answer POST .*\/v1\/search within 0\.001s/);
});

test("arguments are checked before sending", async () => {
  assert.throws(() => alice.forget({}), /forget needs/);
  await assert.rejects(alice.addFacts([]), RangeError);
  assert.throws(() => alice.facts({ pageSize: 0 }), RangeError);
  assert.throws(() => alice.facts({ limit: -1 }), RangeError);
  assert.throws(() => alice.fact(""), TypeError);
  assert.throws(() => alice.facts({ asOf: new Date("not a date") }), /asOf: an invalid Date/);
  assert.throws(() => new Graphmem({ maxRetries: -1 }), RangeError);
});
