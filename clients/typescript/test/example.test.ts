// examples/agent.ts against the fake OpenAI-compatible endpoint and a real server.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

import { Graphmem } from "../src/index.js";
import { AGENT_KEY, PACKAGE, bin, start, startServer } from "./helpers.js";

const server = await startServer();
const dir = mkdtempSync(join(tmpdir(), "graphmem-ts-agent-"));
const log = join(dir, "requests.jsonl");
const llm = await start([bin("FAKELLM_BIN"), "-reply", "Noted, thanks.", "-log", log], process.env, "http://");
const llmUrl = `http://${llm.address}`;
after(async () => {
  await llm.stop();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function agent(graphmemUrl: string, stdin: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [join(PACKAGE, "build", "examples", "agent.js"), "--model", "fake-model", "--user", "Ada"], {
    input: stdin,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, OPENAI_BASE_URL: llmUrl, OPENAI_API_KEY: "test-key", GRAPHMEM_URL: graphmemUrl, GRAPHMEM_API_KEY: AGENT_KEY },
  });
}

test("the agent remembers across runs", async () => {
  const first = agent(server.url, "Our billing service listens on port 4417 since Monday.\n");
  assert.equal(first.status, 0, first.stderr);
  assert.equal(first.stdout.trim(), "assistant: Noted, thanks.");
  // A second process has no chat history: what it knows comes from graphmem.
  const second = agent(server.url, "Which port does the billing service listen on?\n");
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.stdout.trim(), "assistant: Noted, thanks.");

  const requests = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { model: string; messages: Array<{ role: string; content: string }> });
  assert.equal(requests.length, 2);
  assert.ok(requests.every((r) => r.model === "fake-model"));
  const last = requests[1]!.messages;
  assert.deepEqual(
    last.map((m) => m.role),
    ["system", "user"],
  );
  assert.match(last[0]!.content, /4417/);
  assert.doesNotMatch(requests[0]!.messages[0]!.content, /4417/);

  const stored = await new Graphmem({ baseUrl: server.url, apiKey: AGENT_KEY }).episodes().toArray();
  const said = stored.map((e) => `${e.speaker}|${e.role}|${e.content}`);
  assert.ok(said.includes("Ada|user|Our billing service listens on port 4417 since Monday."), said.join("\n"));
  assert.ok(said.includes("assistant|assistant|Noted, thanks."));
});

test("the agent says when graphmem is down", async () => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(s.address() as { port: number }).port}`;
  await new Promise((r) => s.close(r));
  const done = agent(url, "hello\n");
  assert.equal(done.status, 1);
  assert.ok(done.stderr.startsWith(`agent: graphmem: cannot reach graphmem at ${url}`), done.stderr);
});
