// Vercel AI SDK tools: remember, recall and forget, on a Graphmem client.
//
// Needs the `ai` and `zod` packages (optional peer dependencies of graphmem).

import { tool } from "ai";
import { z } from "zod";

import type { Graphmem } from "./client.js";
import { GraphmemError } from "./errors.js";
import type { ForgetResult } from "./types.js";

/** What a forget did, in words for the model. */
export function forgetText(r: ForgetResult): string {
  const verb = r.dryRun ? "would forget" : "forgot";
  const ids = r.factIds?.length ? `: ${r.factIds.join(", ")}` : "";
  return `${verb} ${r.facts} facts${ids}`;
}

// An error of graphmem, or of the arguments, goes back to the model as the tool's answer, so it can
// fix its call; anything else (an abort) is thrown.
async function answer(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GraphmemError || err instanceof TypeError || err instanceof RangeError) {
      return `error: ${err.message}`;
    }
    throw err;
  }
}

/**
 * The `remember`, `recall` and `forget` tools for an agent, on `client`:
 *
 * ```ts
 * const { text } = await generateText({ model, tools: graphmemTools(g), prompt, stopWhen: stepCountIs(3) });
 * ```
 *
 * `remember` stores an episode verbatim; `recall` answers with the context block to read (`asOf` a date
 * or time, default now); `forget` removes facts by query, ids or entity (with `dryRun` to look first).
 */
export function graphmemTools(client: Graphmem) {
  return {
    remember: tool({
      description: "Store something said or observed in long-term memory, verbatim.",
      inputSchema: z.object({
        content: z.string().min(1).describe("what was said or what happened, verbatim"),
        speaker: z.string().optional().describe("who said it, if anyone"),
      }),
      execute: ({ content, speaker }, { abortSignal }) =>
        answer(async () => {
          const ep = await client.remember(content, { speaker, signal: abortSignal });
          return `remembered (episode ${ep.id})`;
        }),
    }),
    recall: tool({
      description: "Ask long-term memory: returns dated, sourced facts and quotes relevant to the query.",
      inputSchema: z.object({
        query: z.string().min(1).describe("the question to answer from memory"),
        asOf: z
          .string()
          .optional()
          .describe("answer as things stood at this date (YYYY-MM-DD) or time (ISO 8601); default now"),
      }),
      execute: ({ query, asOf }, { abortSignal }) =>
        answer(async () => (await client.context(query, { asOf, signal: abortSignal })).context),
    }),
    forget: tool({
      description: "Remove facts from long-term memory by search query, fact ids or entity; dryRun lists them first.",
      inputSchema: z.object({
        query: z.string().optional().describe("forget the facts this search finds"),
        factIds: z.array(z.string()).optional().describe("forget these facts by id"),
        entity: z.string().optional().describe("forget every fact about this entity"),
        dryRun: z.boolean().optional().describe("only list what would be forgotten"),
      }),
      execute: (args, { abortSignal }) =>
        answer(async () => forgetText(await client.forget({ ...args, signal: abortSignal }))),
    }),
  };
}
