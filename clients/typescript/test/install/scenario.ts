// An agent developer's first session with the installed package, in a directory of its own: facts that
// change, context now and as of a date, search, an error with fields, and a foreign scope refused.
// It prints one JSON object of what it saw; test/install.test.ts checks it. It uses no Node types, as a
// Bun, Deno or browser project would not have them.

import { ForbiddenError, Graphmem, GraphmemError, InvalidArgumentError, type FactInput } from "graphmem";

declare const process: { env: Record<string, string | undefined> };

const subject = process.env["SCENARIO_SUBJECT"] ?? "payments-db";
const g = new Graphmem(); // GRAPHMEM_URL and GRAPHMEM_API_KEY

const first = await g.addFacts([{ subject, predicate: "port", value: "5432", validFrom: "2023-01-01" }]);
const second = await g.addFacts([{ subject, predicate: "port", value: "3307", validFrom: new Date("2024-03-01T00:00:00Z") }]);
const now = await g.context(`which port does ${subject} listen on?`);
const then = await g.context(`which port does ${subject} listen on?`, { asOf: "2023-06-01" });
const hits = await g.search(`${subject} port`, { limit: 5 });
const history: string[] = [];
for await (const f of g.facts({ subject, includeHistory: true })) {
  history.push(`${f.value} ${f.validFrom?.toISOString().slice(0, 10)}..${f.validTo ? f.validTo.toISOString().slice(0, 10) : ""}`);
}

let invalid: object = {};
try {
  await g.addFacts([{ subject, value: "1" } as FactInput]);
} catch (err) {
  if (err instanceof InvalidArgumentError) invalid = { status: err.status, code: err.code, fields: err.fields };
}

let foreign: object = {};
try {
  await new Graphmem({ scope: process.env["SCENARIO_FOREIGN_SCOPE"] ?? "" }).facts().toArray();
} catch (err) {
  if (err instanceof ForbiddenError && err instanceof GraphmemError) foreign = { status: err.status, code: err.code };
}

console.log(
  JSON.stringify({
    actions: [first[0]?.action, second[0]?.action],
    now: now.context,
    nowFacts: now.facts.map((cf) => cf.fact.value),
    then: then.context,
    thenAsOf: then.asOf.toISOString(),
    hits: hits.hits.filter((h) => h.type === "fact").map((h) => h.fact?.value),
    history: history.sort(),
    invalid,
    foreign,
  }),
);
