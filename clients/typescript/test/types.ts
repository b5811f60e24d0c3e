// Compile-time checks of the public types: `npm run typecheck` (tsc --strict) fails if a line expected
// to be an error compiles, that is if the types stop refusing what the API would refuse. Never run.

import type { Context, Graphmem, GraphmemError } from "../src/index.js";

export function refused(g: Graphmem, ctx: Context, err: GraphmemError): void {
  // @ts-expect-error a fact needs a predicate
  void g.addFacts([{ subject: "a", value: "1" }]);
  // @ts-expect-error times are Dates or strings
  void g.facts({ asOf: 5 });
  // @ts-expect-error options are camelCase
  void g.context("q", { max_tokens: 100 });
  // @ts-expect-error a list is an async iterable, not an array: use toArray()
  void g.facts().length;
  // @ts-expect-error a fact's start may be unknown (null)
  void ctx.facts[0]?.fact.validFrom.getTime();
  // @ts-expect-error fields map names to what is wrong, as strings
  const n: number = err.fields["facts[0].predicate"];
  void n;
}
