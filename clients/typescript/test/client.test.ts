// The client against a real server.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { ConflictError, Graphmem, NotFoundError, type Fact } from "../src/index.js";
import { ALICE_KEY, IO_KEY, startServer, uniqueName } from "./helpers.js";

const server = await startServer();
after(() => server.stop());
const alice = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY, onWarning: () => {} });
const utc = (s: string): Date => new Date(s);

test("facts are added, superseded and read back, now and as of a date", async () => {
  const name = uniqueName();
  const first = await alice.addFacts([{ subject: name, predicate: "port", value: "5432", validFrom: "2023-01-01" }]);
  assert.equal(first[0]!.action, "created");
  assert.ok(first[0]!.factId);
  const second = await alice.addFacts([
    { subject: name, predicate: "port", value: "3307", validFrom: utc("2024-03-01T00:00:00Z"), sourceKind: "user_explicit" },
  ]);
  assert.equal(second[0]!.action, "superseded_previous");
  assert.deepEqual(second[0]!.superseded, [first[0]!.factId]);

  const now = await alice.facts({ subject: name, predicate: "port" }).toArray();
  assert.deepEqual(
    now.map((f) => f.value),
    ["3307"],
  );
  assert.ok(now[0]!.validFrom instanceof Date);
  assert.deepEqual(now[0]!.validFrom, utc("2024-03-01T00:00:00Z"));
  assert.equal(now[0]!.validTo, null);
  assert.equal(now[0]!.status, "current");
  assert.ok(now[0]!.recordedAt instanceof Date);

  const then = await alice.facts({ subject: name, asOf: "2023-06-01" }).toArray();
  assert.deepEqual(
    then.map((f) => f.value),
    ["5432"],
  );
  assert.deepEqual(then[0]!.validTo, utc("2024-03-01T00:00:00Z"));
  const thenByDate = await alice.facts({ subject: name, asOf: utc("2023-06-01T00:00:00Z") }).toArray();
  assert.deepEqual(
    thenByDate.map((f) => f.id),
    then.map((f) => f.id),
  );

  const unknown = await alice.addFacts([{ subject: name, predicate: "owner", object: "Team Red", startUnknown: true }]);
  assert.equal(unknown[0]!.action, "created");
  const owner = await alice.facts({ subject: name, predicate: "owner", asOf: "1990-01-01" }).toArray();
  assert.deepEqual(
    owner.map((f) => f.object),
    ["Team Red"],
  );
  assert.equal(owner[0]!.validFrom, null);

  const history = await alice.facts({ subject: name, predicate: "port", includeHistory: true }).toArray();
  assert.deepEqual(history.map((f) => f.value).sort(), ["3307", "5432"]);

  const detail = await alice.fact(second[0]!.factId!);
  assert.equal(detail.fact.id, second[0]!.factId);
  assert.deepEqual(
    detail.chain.map((f) => f.value),
    ["5432", "3307"],
  );
});

test("attributes and metadata keep their keys as written", async () => {
  const name = uniqueName();
  await alice.addFacts([
    { subject: name, predicate: "uses", object: "PostgreSQL", attributes: { moved_because: "transactions", byTeam: "core" } },
  ]);
  const [f] = await alice.facts({ subject: name }).toArray();
  assert.deepEqual(f!.attributes, { moved_because: "transactions", byTeam: "core" });
  const ep = await alice.remember(`${name} noted`, { metadata: { ticket_id: "T-1", nested: { snake_key: 1 } } });
  assert.deepEqual(ep.metadata, { ticket_id: "T-1", nested: { snake_key: 1 } });
});

test("paging is transparent, lazy and respects limit", async () => {
  const name = uniqueName();
  await alice.addFacts(
    Array.from({ length: 25 }, (_, i) => ({
      subject: name,
      predicate: "tag",
      value: `t${String(i).padStart(2, "0")}`,
      cardinality: "many",
    })),
  );
  const sent: URL[] = [];
  const counting = new Graphmem({
    baseUrl: server.url,
    apiKey: ALICE_KEY,
    fetch: (input, init) => {
      sent.push(new URL(String(input)));
      return fetch(input, init);
    },
  });
  const every = await counting.facts({ subject: name, pageSize: 10 }).toArray();
  assert.deepEqual(
    every.map((f) => f.value).sort(),
    Array.from({ length: 25 }, (_, i) => `t${String(i).padStart(2, "0")}`),
  );
  assert.equal(new Set(every.map((f) => f.id)).size, 25);
  assert.equal(sent.length, 3); // 10 + 10 + 5
  assert.equal(sent[0]!.searchParams.get("cursor"), null);
  assert.ok(sent[1]!.searchParams.get("cursor"));

  sent.length = 0;
  const seven = await counting.facts({ subject: name, limit: 7, pageSize: 5 }).toArray();
  assert.equal(seven.length, 7);
  assert.deepEqual(
    sent.map((u) => u.searchParams.get("limit")),
    ["5", "2"],
  );

  sent.length = 0;
  const got: Fact[] = [];
  for await (const f of counting.facts({ subject: name, pageSize: 4 })) {
    got.push(f);
    if (got.length === 1) assert.equal(sent.length, 1); // lazily: one page so far
  }
  assert.equal(got.length, 25);
  assert.deepEqual(await counting.facts({ subject: name, limit: 0 }).toArray(), []);
});

test("timeline, entities and the entity graph, by name and by id", async () => {
  const name = uniqueName();
  await alice.addFacts([
    { subject: name, predicate: "works_at", object: `${name} Initech`, validFrom: "2019-01-01" },
    { subject: name, predicate: "works_at", object: `${name} Acme`, validFrom: "2023-01-01" },
    { subject: name, predicate: "works_at", object: `${name} Globex`, validFrom: "2021-01-01" },
  ]);
  const byName = await alice.timeline(name).toArray();
  assert.deepEqual(
    byName.map((f) => f.object),
    [`${name} Initech`, `${name} Globex`, `${name} Acme`],
  );
  const byId = await alice.timeline(byName[0]!.subjectId, { pageSize: 1 }).toArray();
  assert.deepEqual(
    byId.map((f) => f.id),
    byName.map((f) => f.id),
  );
  assert.equal((await alice.timeline(name, { limit: 2, pageSize: 1, predicate: "works_at" }).toArray()).length, 2);

  const matches = await alice.findEntities(name, { limit: 3 });
  assert.equal(matches[0]!.entity.name, name);
  assert.equal(matches[0]!.match, "exact");
  const detail = await alice.entity(name);
  assert.equal(detail.entity.id, matches[0]!.entity.id);
  assert.deepEqual(
    detail.facts.map((f) => f.object),
    [`${name} Acme`],
  );
  assert.ok(detail.entity.createdAt instanceof Date);

  const centre = byName[0]!.subjectId;
  const graph = await alice.entityGraph(centre);
  assert.equal(graph.nodes[0]!.id, centre);
  assert.equal(graph.nodes.length, 4);
  const then = await alice.entityGraph(name, { asOf: "2020-06-01", depth: 1 });
  assert.deepEqual(
    then.nodes.map((n) => n.name),
    [name, `${name} Initech`],
  );
  assert.ok(then.asOf instanceof Date);

  await assert.rejects(alice.timeline(uniqueName("nobody")).toArray(), NotFoundError);
});

test("session, overview, ontology, health and readiness", async () => {
  const session = await alice.session();
  assert.equal(session.scope, "alice");
  assert.deepEqual(session.scopes, ["alice", "alice-work"]);
  assert.equal(session.developmentMode, false);
  const work = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY, scope: "alice-work" });
  assert.equal((await work.session()).scope, "alice-work");

  const name = uniqueName();
  const before = (await alice.overview()).counts.facts;
  await alice.addFacts([{ subject: name, predicate: "likes", value: "tea" }]);
  const o = await alice.overview({ limit: 3 });
  assert.equal(o.counts.facts, before + 1);
  assert.ok(o.changes.length <= 3);
  assert.ok(o.changes.some((c) => c.fact?.subject === name));

  const ontology = await alice.ontology();
  assert.ok(ontology.predicates.some((p) => p.name === "works_at" && p.cardinality === "one"));
  assert.ok(ontology.entityTypes.length > 0 && ontology.unknownPredicates);

  assert.equal((await alice.health()).status, "ok");
  assert.equal((await alice.ready()).status, "ready");
  assert.match(String((await alice.openapi())["openapi"]), /^3\./);
});

test("search and context, now and as of a date, and names memory does not know", async () => {
  const name = uniqueName();
  await alice.addFacts([
    { subject: name, predicate: "port", value: "5432", validFrom: "2022-01-01" },
    { subject: name, predicate: "port", value: "6543", validFrom: "2024-01-01", sourceKind: "user_explicit" },
  ]);
  const hits = await alice.search(`${name} port`, { limit: 5 });
  assert.ok(hits.hits.some((h) => h.type === "fact" && h.fact?.value === "6543"));
  assert.ok(hits.hits.every((h) => h.score > 0));
  assert.equal(hits.vectors, "off"); // the test server has no embedding model
  assert.deepEqual(hits.unresolved, []);
  const onlyEntities = await alice.search(name, { types: ["entity"] });
  assert.ok(onlyEntities.hits.length > 0 && onlyEntities.hits.every((h) => h.type === "entity"));
  const old = await alice.search(`${name} port`, { asOf: "2023-01-01" });
  assert.ok(old.hits.some((h) => h.fact?.value === "5432"));
  assert.ok(!old.hits.some((h) => h.fact?.value === "6543"));

  const ctx = await alice.context(`which port does ${name} use?`, { maxTokens: 400 });
  assert.ok(ctx.context.includes(`"${name}" port "6543"`), ctx.context);
  // `text`, the old name of the block, answers the same for one release, and stays out of JSON.
  assert.equal(ctx.text, ctx.context);
  assert.equal(Object.keys(JSON.parse(JSON.stringify(ctx)) as object).includes("text"), false);
  assert.ok(ctx.facts.some((cf) => cf.fact.value === "6543"));
  assert.ok(ctx.tokens > 0 && ctx.asOf instanceof Date);
  assert.equal(ctx.vectors, "off");
  assert.deepEqual(ctx.unresolved, []);
  assert.deepEqual(ctx.ambiguous, []);
  assert.ok(Array.isArray(ctx.entities) && Array.isArray(ctx.episodes));

  const asOf = await alice.context(`which port does ${name} use?`, { asOf: "2023-01-01" });
  assert.ok(asOf.context.includes('port "5432"') && !asOf.context.includes('port "6543"'), asOf.context);
  assert.deepEqual(asOf.asOf, utc("2023-01-01T00:00:00Z"));

  const then = await alice.context(`which port did ${name} use last year?`, { referenceTime: "2025-06-01" });
  assert.ok(then.timeNamed && then.period);
  assert.deepEqual(then.period.from, utc("2024-01-01T00:00:00Z"));
  const md = await alice.context(`which port does ${name} use?`, { format: "markdown", mode: "current" });
  assert.equal(md.mode, "current");

  // A name memory knows nothing about is said so, and not answered with another's port.
  const unknown = `zebra-${name}`;
  const none = await alice.search(`which port does ${unknown} use?`);
  assert.deepEqual(
    none.unresolved.map((n) => n.name),
    [unknown],
  );
  // A question that crosses an entity gets the path: both facts, the chain.
  await alice.addFacts([
    { subject: name, predicate: "owned_by", object: `${name}-owners`, objectType: "team" },
    { subject: `${name}-owners`, subjectType: "team", predicate: "led_by", object: "Bob Aziz", objectType: "person" },
  ]);
  const walked = await alice.context(`who leads the team that owns ${name}?`);
  assert.equal(walked.paths.length, 1, walked.context);
  assert.deepEqual(
    walked.paths[0]!.hops.map((h) => h.predicate),
    ["owned_by", "led_by"],
  );
  assert.equal(walked.paths[0]!.hops[1]!.to, "Bob Aziz");
  assert.ok(walked.paths[0]!.complete && walked.context.includes("[path]"));

  const nctx = await alice.context(`which port does ${unknown} use?`);
  assert.deepEqual(
    nctx.unresolved.map((n) => n.name),
    [unknown],
  );
  assert.ok(!nctx.context.includes("6543"));
  assert.ok(nctx.context.includes(`memory holds nothing about "${unknown}"`), nctx.context);
});

test("remember, episodes and the server's warning", async () => {
  const name = uniqueName();
  const warnings: string[] = [];
  const g = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY, onWarning: (w) => warnings.push(w) });
  const ep = await g.remember(`${name} moved to the new datacenter yesterday.`, {
    speaker: "Dana",
    role: "user",
    referenceTime: "2024-02-02",
  });
  assert.equal(ep.speaker, "Dana");
  assert.equal(ep.role, "user");
  assert.deepEqual(ep.referenceTime, utc("2024-02-02T00:00:00Z"));
  // The test server has no extraction model: the episode says so, and so does onWarning.
  assert.match(ep.warning ?? "", /no extraction model/);
  assert.equal(warnings.length, 1);
  const { warning: _, ...stored } = ep;
  assert.deepEqual(await g.episode(ep.id), stored);

  // The idempotency key makes a repeat return the episode stored first.
  const a = await g.remember("said once", { idempotencyKey: `k-${name}` });
  const b = await g.remember("said once", { idempotencyKey: `k-${name}` });
  assert.equal(a.id, b.id);
  const waited = await g.remember(`${name} is owned by the platform team.`, { wait: true });
  assert.ok(["done", "failed"].includes(waited.status));

  let found = false;
  for await (const e of g.episodes({ pageSize: 2 })) {
    if (e.id === ep.id) {
      found = true;
      break;
    }
  }
  assert.ok(found);
  assert.ok((await g.episodes({ status: "done", limit: 2 }).toArray()).length <= 2);
  const ctx = await g.context(`where did ${name} move?`);
  assert.ok(ctx.episodes.some((ce) => ce.episode.id === ep.id));
  // Only a failed episode may be queued again.
  await assert.rejects(g.retryEpisode(ep.id), ConflictError);
});

test("retract, forget and the audit", async () => {
  const name = uniqueName();
  const r = await alice.addFacts([
    { subject: name, predicate: "owner", object: "Team Red" },
    { subject: name, predicate: "language", value: "Go" },
  ]);
  const retracted = await alice.retract(r[0]!.factId!);
  assert.equal(retracted.status, "retracted");
  assert.ok(retracted.expiredAt instanceof Date);

  const dry = await alice.forget({ factIds: [r[1]!.factId!], dryRun: true });
  assert.equal(dry.dryRun, true);
  assert.equal(dry.facts, 1);
  assert.equal((await alice.facts({ subject: name, predicate: "language" }).toArray()).length, 1);

  const done = await alice.forget({ factIds: [r[1]!.factId!], reason: "test" });
  assert.equal(done.facts, 1);
  assert.equal(done.mode, "forget");
  assert.deepEqual(await alice.facts({ subject: name, predicate: "language" }).toArray(), []);
  await assert.rejects(alice.fact(r[1]!.factId!), NotFoundError);
  const entries = await alice.audit({ limit: 5 });
  assert.deepEqual(entries[0]!.factIds, [r[1]!.factId]);
  assert.ok(entries[0]!.at instanceof Date);
});

test("export and import round trip, keeping ids and times", async () => {
  const name = uniqueName();
  const src = new Graphmem({ baseUrl: server.url, apiKey: IO_KEY, scope: "io-source", onWarning: () => {} });
  const dst = new Graphmem({ baseUrl: server.url, apiKey: IO_KEY, scope: "io-dest" });
  await src.addFacts([{ subject: name, predicate: "port", value: "1111", validFrom: "2024-01-01" }]);
  await src.remember(`${name} was set up by Erin.`);
  const records = [];
  for await (const r of src.export()) records.push(r);
  const mine = records.filter((r) => r.fact?.subject === name);
  assert.equal(mine.length, 1);
  assert.ok(mine[0]!.fact!.recordedAt instanceof Date);
  assert.ok(records.some((r) => r.episode?.content === `${name} was set up by Erin.`));

  const result = await dst.import(src.export());
  assert.ok(result.facts >= 1 && result.episodes >= 1);
  // Same ids and times, to the nanosecond the server wrote.
  const keep = ["id", "subject", "value", "valid_from", "valid_to", "recorded_at", "claims"];
  const raw = async (scope: string): Promise<unknown[]> => {
    const res = await fetch(`${server.url}/v1/export`, {
      headers: { Authorization: `Bearer ${IO_KEY}`, "X-Graphmem-Scope": scope },
    });
    const lines = (await res.text()).split("\n").filter((l) => l.trim());
    const facts = lines.map((l) => JSON.parse(l) as { fact?: Record<string, unknown> }).filter((r) => r.fact?.["subject"] === name);
    return facts.map((r) => Object.fromEntries(keep.map((k) => [k, r.fact![k]])));
  };
  const before = await raw("io-source");
  assert.equal(before.length, 1);
  assert.deepEqual(await raw("io-dest"), before);
  // A record built by hand, in the API's own spelling, imports too.
  const other = uniqueName();
  const byHand = await dst.import([
    { entity: { id: `e-${other}`, name: other } },
  ]);
  assert.equal(byHand.entities, 1);
  assert.equal((await dst.entity(other)).entity.id, `e-${other}`);
});
