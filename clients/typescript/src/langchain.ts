// A LangChain.js retriever over graphmem's context.
//
// Needs `@langchain/core` (an optional peer dependency of graphmem).

import { Document } from "@langchain/core/documents";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";

import type { Graphmem } from "./client.js";
import type { Context } from "./types.js";
import type { TimeLike } from "./wire.js";

function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/**
 * The facts and quoted episodes of a context as Documents, best first within each kind.
 *
 * A fact's metadata has its id, statement parts, interval (`validFrom`, `validTo` as ISO 8601, null when
 * open), status, role and score, and its sources (`sourceKind`, `episodeIds`); an episode's has its id,
 * speaker, role, `referenceTime` and `sourceKind`.
 */
export function contextDocuments(ctx: Context): Document[] {
  const docs: Document[] = [];
  for (const cf of ctx.facts) {
    const f = cf.fact;
    docs.push(
      new Document({
        pageContent: f.text || `${f.subject} ${f.predicate} ${f.object || f.value || ""}`.trim(),
        metadata: {
          type: "fact",
          id: f.id,
          subject: f.subject,
          predicate: f.predicate,
          object: f.object || null,
          value: f.value || null,
          validFrom: iso(f.validFrom),
          validTo: iso(f.validTo),
          recordedAt: iso(f.recordedAt),
          status: f.status,
          role: cf.role,
          score: cf.score,
          sourceKind: f.sourceKind,
          episodeIds: [...f.episodeIds],
        },
      }),
    );
  }
  for (const ce of ctx.episodes) {
    const e = ce.episode;
    docs.push(
      new Document({
        pageContent: ce.quote || e.content,
        metadata: {
          type: "episode",
          id: e.id,
          speaker: e.speaker || null,
          role: e.role || null,
          referenceTime: iso(e.referenceTime),
          recordedAt: iso(e.recordedAt),
          sourceKind: e.sourceKind,
        },
      }),
    );
  }
  return docs;
}

/** The settings of a GraphmemRetriever. */
export interface GraphmemRetrieverInput extends BaseRetrieverInput {
  client: Graphmem;
  asOf?: TimeLike;
  maxTokens?: number;
  /** auto (default), current or history. */
  mode?: string;
}

/**
 * A retriever returning the facts and quoted episodes of graphmem's context for a query; `asOf`,
 * `maxTokens` and `mode` are passed to `context`. See `contextDocuments` for each Document's metadata.
 */
export class GraphmemRetriever extends BaseRetriever {
  static override lc_name(): string {
    return "GraphmemRetriever";
  }

  override lc_namespace = ["graphmem", "retrievers"];
  client: Graphmem;
  asOf: TimeLike | undefined;
  maxTokens: number | undefined;
  mode: string | undefined;

  constructor(fields: GraphmemRetrieverInput) {
    super(fields);
    this.client = fields.client;
    this.asOf = fields.asOf;
    this.maxTokens = fields.maxTokens;
    this.mode = fields.mode;
  }

  override async _getRelevantDocuments(query: string): Promise<Document[]> {
    const ctx = await this.client.context(query, { asOf: this.asOf, maxTokens: this.maxTokens, mode: this.mode });
    return contextDocuments(ctx);
  }
}
