// The Vercel AI SDK tools: called by generateText on a scripted model, and directly.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";

import { graphmemTools } from "../src/ai.js";
import { Graphmem } from "../src/index.js";
import { BOB_KEY, startServer, uniqueName } from "./helpers.js";

const server = await startServer();
after(() => server.stop());
const g = new Graphmem({ baseUrl: server.url, apiKey: BOB_KEY, onWarning: () => {} });

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

type Content = { type: "tool-call"; toolCallId: string; toolName: string; input: string } | { type: "text"; text: string };

function step(content: Content[], finish: "tool-calls" | "stop") {
  return { content, finishReason: { unified: finish, raw: finish }, usage, warnings: [] };
}

function call(id: string, toolName: string, input: object): Content {
  return { type: "tool-call", toolCallId: id, toolName, input: JSON.stringify(input) };
}

test("a model remembers and recalls through generateText", async () => {
  const name = uniqueName();
  const model = new MockLanguageModelV3({
    doGenerate: [
      step([call("c1", "remember", { content: `The ${name} deploy key rotates every 90 days.`, speaker: "Sam" })], "tool-calls"),
      step([call("c2", "recall", { query: `how often does the ${name} deploy key rotate?` })], "tool-calls"),
      step([{ type: "text", text: "Every 90 days." }], "stop"),
    ],
  });
  const result = await generateText({
    model,
    tools: graphmemTools(g),
    prompt: `Remember that the ${name} deploy key rotates every 90 days, then check.`,
    stopWhen: stepCountIs(5),
  });
  assert.equal(result.text, "Every 90 days.");
  const outputs = result.steps.flatMap((s) => s.toolResults).map((r) => [r.toolName, String(r.output)]);
  assert.equal(outputs.length, 2);
  assert.equal(outputs[0]![0], "remember");
  assert.match(outputs[0]![1]!, /^remembered \(episode .+\)$/);
  assert.equal(outputs[1]![0], "recall");
  assert.match(outputs[1]![1]!, /90 days/);
  // The model's last call was given what recall answered.
  assert.match(JSON.stringify(model.doGenerateCalls[2]!.prompt), /90 days/);
  const stored = (await g.episodes().toArray()).find((e) => e.content.includes(name));
  assert.equal(stored?.speaker, "Sam");
});

test("the tools directly: schemas, forget, dates, and errors given back to the model", async () => {
  const name = uniqueName();
  const tools = graphmemTools(g);
  const opts = { toolCallId: "t", messages: [] };
  assert.equal((tools.remember.inputSchema as { safeParse(v: unknown): { success: boolean } }).safeParse({}).success, false);

  await tools.remember.execute!({ content: `The ${name} runbook lives in the ops wiki.` }, opts);
  const [fact] = await g.addFacts([{ subject: name, predicate: "owner", object: "Team Blue" }]);
  const id = fact!.factId!;
  assert.equal(await tools.forget.execute!({ factIds: [id], dryRun: true }, opts), `would forget 1 facts: ${id}`);
  assert.equal(await tools.forget.execute!({ factIds: [id] }, opts), `forgot 1 facts: ${id}`);
  assert.deepEqual(await g.facts({ subject: name, predicate: "owner" }).toArray(), []);

  // Errors go back to the model as the tool's answer.
  assert.match(String(await tools.forget.execute!({}, opts)), /^error: forget needs/);
  assert.match(String(await tools.forget.execute!({ factIds: ["no-such-fact"] }, opts)), /not_found/);
  assert.match(String(await tools.recall.execute!({ query: "x", asOf: "someday" }, opts)), /^error: .*as_of/);
  // A plain date is that day: the runbook was remembered today, so not known in 2020.
  const now = String(await tools.recall.execute!({ query: `where does the ${name} runbook live?` }, opts));
  assert.match(now, /ops wiki/);
  const then = String(await tools.recall.execute!({ query: `where does the ${name} runbook live?`, asOf: "2020-01-01" }, opts));
  assert.doesNotMatch(then, /ops wiki/);
});
