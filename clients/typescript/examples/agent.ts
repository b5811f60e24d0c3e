// An agent loop with graphmem as its long-term memory, on any OpenAI-compatible endpoint.
//
// Before each model call the agent asks graphmem for the context of the user's message and puts it in
// the system prompt; after each turn it remembers both messages. Memory outlives the process: run it
// twice and the second run knows what the first was told.
//
//   export OPENAI_BASE_URL=http://localhost:11434/v1   # any OpenAI-compatible endpoint
//   export OPENAI_API_KEY=...                          # if it needs one
//   export GRAPHMEM_URL=http://127.0.0.1:8080          # and GRAPHMEM_API_KEY if the server has keys
//   node build/examples/agent.js --model llama3.1 --user Ada
//
// It reads one user message per line on standard input (or takes them as arguments) and prints each answer.

import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import { Graphmem, GraphmemError } from "graphmem";

const SYSTEM =
  "You are a helpful assistant with a long-term memory. What memory holds about this conversation is below; " +
  "use it when it is relevant, and say so when it does not answer the question.\n\n";

interface Message {
  role: "system" | "user" | "assistant";
  content: string;
}

/** One chat completion from an OpenAI-compatible endpoint. */
async function complete(baseUrl: string, apiKey: string, model: string, messages: Message[]): Promise<string> {
  const res = await fetch(`${baseUrl.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model, messages }),
  });
  if (!res.ok) throw new Error(`the model endpoint answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as { choices?: Array<{ message?: { content?: string | null } }> };
  return body.choices?.[0]?.message?.content ?? "";
}

/** Answer each message in turn, with memory's context before and a remember after each turn. */
export async function run(
  memory: Graphmem,
  chat: (messages: Message[]) => Promise<string>,
  user: string,
  messages: AsyncIterable<string> | Iterable<string>,
  history = 6,
): Promise<void> {
  const recent: Message[] = [];
  for await (const line of messages) {
    const text = line.trim();
    if (!text) continue;
    const ctx = await memory.context(text, { maxTokens: 800 });
    const answer = await chat([
      { role: "system", content: SYSTEM + ctx.context },
      ...recent.slice(-history),
      { role: "user", content: text },
    ]);
    console.log(`assistant: ${answer}`);
    await memory.remember(text, { speaker: user, role: "user" });
    await memory.remember(answer, { speaker: "assistant", role: "assistant" });
    recent.push({ role: "user", content: text }, { role: "assistant", content: answer });
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      model: { type: "string", default: process.env["AGENT_MODEL"] ?? "gpt-4o-mini" },
      user: { type: "string", default: "user" },
    },
    allowPositionals: true,
  });
  const baseUrl = process.env["OPENAI_BASE_URL"];
  if (!baseUrl) throw new Error("set OPENAI_BASE_URL to an OpenAI-compatible endpoint");
  // Local servers often need no key.
  const apiKey = process.env["OPENAI_API_KEY"] || "unused";
  const memory = new Graphmem({ onWarning: () => {} }); // GRAPHMEM_URL, GRAPHMEM_API_KEY
  const input = positionals.length > 0 ? positionals : createInterface({ input: process.stdin });
  await run(memory, (m) => complete(baseUrl, apiKey, values.model!, m), values.user!, input);
}

main().catch((err: unknown) => {
  const prefix = err instanceof GraphmemError ? "agent: graphmem: " : "agent: ";
  console.error(prefix + (err instanceof Error ? err.message : String(err)));
  process.exit(1);
});
