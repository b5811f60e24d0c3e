// The LangChain.js retriever, with @langchain/core and no model.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import type { Document } from "@langchain/core/documents";

import { Graphmem } from "../src/index.js";
import { GraphmemRetriever } from "../src/langchain.js";
import { ALICE_KEY, startServer, uniqueName } from "./helpers.js";

const server = await startServer();
after(() => server.stop());
const g = new Graphmem({ baseUrl: server.url, apiKey: ALICE_KEY, onWarning: () => {} });

function check(docs: Document[], name: string): void {
  const facts = docs.filter((d) => d.metadata["type"] === "fact");
  const episodes = docs.filter((d) => d.metadata["type"] === "episode");
  assert.ok(facts.length > 0 && episodes.length > 0, JSON.stringify(docs));
  const pg = facts.find((d) => d.metadata["object"] === "PostgreSQL");
  assert.ok(pg);
  assert.equal(pg.metadata["subject"], name);
  assert.equal(pg.metadata["validFrom"], "2023-06-01T00:00:00.000Z");
  assert.equal(pg.metadata["validTo"], null);
  assert.equal(pg.metadata["sourceKind"], "user_explicit");
  assert.ok(pg.metadata["id"]);
  assert.match(pg.pageContent, /PostgreSQL/);
  const quote = episodes.find((d) => d.pageContent.includes("MongoDB"));
  assert.equal(quote?.metadata["speaker"], "Priya");
  assert.ok(quote?.metadata["referenceTime"]);
}

test("the retriever returns dated, sourced facts and quotes", async () => {
  const name = uniqueName();
  await g.addFacts([
    { subject: name, predicate: "uses", object: "MongoDB", validFrom: "2021-01-01", validTo: "2023-06-01", cardinality: "one" },
    { subject: name, predicate: "uses", object: "PostgreSQL", validFrom: "2023-06-01", sourceKind: "user_explicit", cardinality: "one" },
  ]);
  await g.remember(`We moved ${name} off MongoDB because we needed transactions.`, { speaker: "Priya" });
  const retriever = new GraphmemRetriever({ client: g });
  check(await retriever.invoke(`which database does ${name} use?`), name);

  // asOf goes to context: in 2022 the answer was MongoDB.
  const then = await new GraphmemRetriever({ client: g, asOf: "2022-01-01", mode: "current" }).invoke(
    `which database does ${name} use?`,
  );
  const objects = then.filter((d) => d.metadata["type"] === "fact").map((d) => d.metadata["object"]);
  assert.ok(objects.includes("MongoDB") && !objects.includes("PostgreSQL"), JSON.stringify(objects));
});
