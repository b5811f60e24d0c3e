// The client follows the live /openapi.json: a schema, property, operation or parameter added to the
// API without the client fails here. The types are read from the sources with the TypeScript compiler,
// so what is checked is what a caller's compiler sees.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";

import ts from "typescript";

import { Graphmem, VERSION } from "../src/index.js";
import { DATE_KEYS, OPAQUE, camel, fromWire } from "../src/wire.js";
import { PACKAGE, REPO, startServer } from "./helpers.js";

// Each operation of the API and the client method that makes it.
const OPERATIONS: Record<string, string> = {
  "GET /healthz": "health",
  "GET /readyz": "ready",
  "GET /openapi.json": "openapi",
  "POST /v1/facts": "addFacts",
  "GET /v1/facts": "facts",
  "GET /v1/facts/{id}": "fact",
  "DELETE /v1/facts/{id}": "retract",
  "GET /v1/entities": "findEntities",
  "GET /v1/entities/{id}": "entity",
  "GET /v1/entities/{id}/timeline": "timeline",
  "GET /v1/entities/{id}/graph": "entityGraph",
  "GET /v1/session": "session",
  "GET /v1/overview": "overview",
  "POST /v1/episodes": "remember",
  "GET /v1/episodes": "episodes",
  "GET /v1/episodes/{id}": "episode",
  "POST /v1/episodes/{id}/retry": "retryEpisode",
  "POST /v1/search": "search",
  "POST /v1/context": "context",
  "POST /v1/forget": "forget",
  "GET /v1/audit": "audit",
  "GET /v1/ontology": "ontology",
  "GET /v1/export": "export",
  "POST /v1/import": "import",
};
// Operations the client leaves to other tools, with why.
const NOT_IN_CLIENT: Record<string, string> = { "GET /metrics": "Prometheus scrapes it" };
// Query parameters the client sets itself rather than taking from its caller.
const HANDLED: Record<string, string> = {
  cursor: "paging follows next_cursor",
  mode: "retract() is mode=retract; forget() is its own method",
};
// Request bodies and the client method taking their properties as arguments.
const BODIES: Record<string, string> = {
  FactsRequest: "addFacts",
  SearchRequest: "search",
  ContextRequest: "context",
  EpisodeRequest: "remember",
  ForgetRequest: "forget",
};
// Schemas whose type has another name, and properties the client renames.
const TYPE_NAMES: Record<string, string> = { ContextResponse: "Context", AuditRecord: "AuditEntry", Error: "ErrorBody" };
// Properties kept one release under an old name beside the new one: `Context.text` is `context`.
const DEPRECATED: ReadonlySet<string> = new Set(["Context.text"]);

interface Spec {
  type?: string | string[];
  format?: string;
  additionalProperties?: unknown;
  properties?: Record<string, Spec>;
  required?: string[];
  oneOf?: Spec[];
  items?: Spec;
  $ref?: string;
}
interface Doc {
  components: { schemas: Record<string, Spec> };
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
}

// ---- the client's types, as the compiler sees them ----------------------

const program = ts.createProgram([join(PACKAGE, "src", "index.ts")], {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  types: [],
  noEmit: true,
});
const checker = program.getTypeChecker();
const exported = new Map<string, ts.Symbol>();
{
  const sf = program.getSourceFile(join(PACKAGE, "src", "index.ts"));
  assert.ok(sf, "src/index.ts not found");
  for (let sym of checker.getExportsOfModule(checker.getSymbolAtLocation(sf)!)) {
    const name = sym.name;
    if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    exported.set(name, sym);
  }
}

function declaredType(name: string): ts.Type | undefined {
  const sym = exported.get(name);
  return sym ? checker.getDeclaredTypeOfSymbol(sym) : undefined;
}

function typeOf(sym: ts.Symbol): ts.Type {
  return checker.getTypeOfSymbol(sym);
}

function parts(t: ts.Type): ts.Type[] {
  return t.isUnion() ? t.types : [t];
}

function isNullish(t: ts.Type): boolean {
  return Boolean(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined));
}

function isDate(t: ts.Type): boolean {
  return t.getSymbol()?.name === "Date";
}

/** Whether one part of a property's type fits a JSON type of the document. */
function fits(kind: string, t: ts.Type): boolean {
  switch (kind) {
    case "string":
      return Boolean(t.flags & ts.TypeFlags.StringLike);
    case "integer":
    case "number":
      return Boolean(t.flags & ts.TypeFlags.NumberLike);
    case "boolean":
      return Boolean(t.flags & ts.TypeFlags.BooleanLike);
    case "array":
      return checker.isArrayType(t);
    case "object":
      return Boolean(t.flags & ts.TypeFlags.Object) && !checker.isArrayType(t) && !isDate(t);
    default:
      return true;
  }
}

function kinds(spec: Spec): string[] {
  const k = spec.type;
  return (typeof k === "string" ? [k] : (k ?? [])).filter((x) => x !== "null");
}

function nullable(spec: Spec): boolean {
  const k = spec.type;
  return (Array.isArray(k) && k.includes("null")) || (spec.oneOf ?? []).some((o) => o.type === "null");
}

/** Why a property's type does not fit its spec, or undefined. */
function typeProblem(spec: Spec, prop: string, t: ts.Type, request: boolean): string | undefined {
  const all = parts(t);
  const some = all.filter((p) => !isNullish(p));
  if (nullable(spec) && !all.some((p) => p.flags & ts.TypeFlags.Null)) return "may be null but the type does not say so";
  if (!request && spec.format === "date-time") {
    return some.every(isDate) ? undefined : "is a date-time but the type is not Date";
  }
  if (request && DATE_KEYS.has(prop)) {
    return some.some(isDate) && some.some((p) => fits("string", p)) ? undefined : "is a time but the type is not TimeLike";
  }
  const [kind] = kinds(spec);
  if (!kind) return undefined; // a $ref or oneOf: the schema it names is checked on its own
  return some.every((p) => fits(kind, p)) ? undefined : `is ${kind} but the type is ${checker.typeToString(t)}`;
}

function isRequest(schema: string): boolean {
  return schema.endsWith("Request") || schema === "FactInput";
}

function schemaProblems(doc: Doc): string[] {
  const problems: string[] = [];
  const schemas = doc.components.schemas;
  for (const name of Object.keys(schemas).sort()) {
    const schema = schemas[name]!;
    const typeName = TYPE_NAMES[name] ?? name;
    const type = declaredType(typeName);
    if (!type) {
      problems.push(`schema ${name} has no client type (export ${typeName} from src/types.ts)`);
      continue;
    }
    const props = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    const seen = new Set<string>();
    for (const [prop, spec] of Object.entries(props)) {
      const tsName = camel(prop);
      seen.add(tsName);
      const sym = type.getProperty(tsName);
      if (!sym) {
        problems.push(`${name}.${prop} is missing from ${typeName} (as ${tsName})`);
        continue;
      }
      const optional = Boolean(sym.flags & ts.SymbolFlags.Optional);
      if (optional && required.has(prop)) problems.push(`${typeName}.${tsName} is optional but schema ${name} requires it`);
      if (!optional && !required.has(prop)) problems.push(`${typeName}.${tsName} is required but schema ${name} may leave it out`);
      const why = typeProblem(spec, prop, typeOf(sym), isRequest(name));
      if (why) problems.push(`${name}.${prop} ${why}`);
    }
    for (const sym of type.getProperties()) {
      if (!seen.has(sym.name) && !DEPRECATED.has(`${typeName}.${sym.name}`)) problems.push(`${typeName}.${sym.name} is not in schema ${name}`);
    }
  }
  for (const [schema, typeName] of Object.entries(TYPE_NAMES)) {
    if (!schemas[schema]) problems.push(`TYPE_NAMES names ${schema} (${typeName}), which the API no longer has`);
  }
  return problems;
}

/** What the wire conversion must know: which properties are times and which hold the caller's own keys. */
function wireProblems(doc: Doc): string[] {
  const problems = new Set<string>();
  const used = new Set<string>();
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    for (const [prop, spec] of Object.entries(schema.properties ?? {})) {
      const date = spec.format === "date-time";
      const freeForm = kinds(spec)[0] === "object" && spec.properties === undefined;
      if (date && !DATE_KEYS.has(prop)) problems.add(`${name}.${prop} is a date-time missing from DATE_KEYS`);
      // fromWire reads a path hop's `to` as the name of the entity it reaches, not as a time.
      if (name === "PathHop" && prop === "to") continue;
      if (DATE_KEYS.has(prop)) {
        used.add(prop);
        const timeText = isRequest(name) && kinds(spec)[0] === "string";
        if (!date && !timeText) problems.add(`${name}.${prop} is in DATE_KEYS but is not a time`);
      }
      if (freeForm && !OPAQUE.has(prop)) problems.add(`${name}.${prop} is a free-form object missing from OPAQUE`);
      if (OPAQUE.has(prop)) {
        used.add(prop);
        if (!freeForm) problems.add(`${name}.${prop} is in OPAQUE but is not a free-form object`);
      }
    }
  }
  for (const k of [...DATE_KEYS, ...OPAQUE]) if (!used.has(k)) problems.add(`${k} names no property of the API`);
  return [...problems].sort();
}

/** The names a method takes: its parameters, and the properties of those that are objects. */
function argumentNames(method: string): Set<string> | undefined {
  const sym = declaredType("Graphmem")?.getProperty(method);
  if (!sym) return undefined;
  const names = new Set<string>();
  for (const sig of typeOf(sym).getCallSignatures()) {
    for (const p of sig.parameters) {
      names.add(p.name);
      const t = checker.getNonNullableType(typeOf(p));
      const objectLike = ts.TypeFlags.Object | ts.TypeFlags.Intersection;
      if (parts(t).every((x) => x.flags & objectLike) && !checker.isArrayType(t)) {
        for (const q of checker.getPropertiesOfType(t)) names.add(q.name);
      }
    }
  }
  return names;
}

function operationProblems(doc: Doc): string[] {
  const problems: string[] = [];
  for (const path of Object.keys(doc.paths).sort()) {
    for (const [method, op] of Object.entries(doc.paths[path]!)) {
      const key = `${method.toUpperCase()} ${path}`;
      if (key in NOT_IN_CLIENT) continue;
      const name = OPERATIONS[key];
      const args = name === undefined ? undefined : argumentNames(name);
      if (name === undefined || args === undefined) {
        problems.push(`${key} has no client method (add it to Graphmem and OPERATIONS)`);
        continue;
      }
      for (const p of op.parameters ?? []) {
        if (p.in !== "query" || p.name in HANDLED) continue;
        if (!args.has(camel(p.name))) problems.push(`Graphmem.${name} has no argument for ${key} ?${p.name}`);
      }
    }
  }
  for (const [schema, name] of Object.entries(BODIES)) {
    const args = argumentNames(name) ?? new Set<string>();
    for (const p of Object.keys(doc.components.schemas[schema]?.properties ?? {})) {
      if (!args.has(camel(p))) problems.push(`Graphmem.${name} has no argument for ${schema}.${p}`);
    }
  }
  const live = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
  for (const key of Object.keys(OPERATIONS)) if (!live.has(key)) problems.push(`OPERATIONS names ${key}, which the API no longer has`);
  return problems;
}

// ---- the tests ------------------------------------------------------------

let doc: Doc;
before(async () => {
  const server = await startServer();
  try {
    doc = (await new Graphmem({ baseUrl: server.url }).openapi()) as unknown as Doc;
  } finally {
    await server.stop();
  }
});

test("every schema has a type with every property, of the right type", () => {
  const problems = schemaProblems(doc);
  assert.deepEqual(problems, [], problems.join("\n"));
});

test("every operation has a method taking its parameters", () => {
  const problems = operationProblems(doc);
  assert.deepEqual(problems, [], problems.join("\n"));
  for (const name of Object.values(OPERATIONS)) {
    assert.equal(typeof (Graphmem.prototype as unknown as Record<string, unknown>)[name], "function", name);
  }
});

test("the wire conversion knows every time and every free-form object", () => {
  const problems = wireProblems(doc);
  assert.deepEqual(problems, [], problems.join("\n"));
});

test("a path hop's to is a name, a period's to a time", () => {
  const got = fromWire({
    period: { from: "2024-01-01T00:00:00Z", to: "2024-02-01T00:00:00Z" },
    paths: [{ hops: [{ entity: "cart-api", entity_id: "e1", predicate: "owned_by", to: "Team Kestrel", fact_id: "f1", status: "current" }] }],
  }) as { period: { to: unknown }; paths: Array<{ hops: Array<{ to: unknown; entityId: unknown }> }> };
  assert.deepEqual(got.period.to, new Date("2024-02-01T00:00:00Z"));
  assert.equal(got.paths[0]!.hops[0]!.to, "Team Kestrel");
  assert.equal(got.paths[0]!.hops[0]!.entityId, "e1");
});

test("additions to the API are caught", () => {
  const changed = structuredClone(doc);
  const schemas = changed.components.schemas;
  schemas["Fact"]!.properties!["mood"] = { type: "string" };
  schemas["Fact"]!.properties!["reviewed_at"] = { type: "string", format: "date-time" };
  schemas["Episode"]!.properties!["reference_time"] = { type: "integer" };
  schemas["Widget"] = { type: "object", properties: {} };
  schemas["SearchRequest"]!.properties!["boost"] = { type: "number" };
  schemas["Entity"]!.properties!["labels"] = { type: "object", additionalProperties: {} };
  changed.paths["/v1/widgets"] = { get: {} };
  changed.paths["/v1/facts"]!["get"]!.parameters!.push({ name: "color", in: "query" });
  assert.deepEqual(schemaProblems(changed), [
    "Entity.labels is missing from Entity (as labels)",
    "Episode.reference_time is integer but the type is Date",
    "Fact.mood is missing from Fact (as mood)",
    "Fact.reviewed_at is missing from Fact (as reviewedAt)",
    "SearchRequest.boost is missing from SearchRequest (as boost)",
    "schema Widget has no client type (export Widget from src/types.ts)",
  ]);
  assert.deepEqual(wireProblems(changed), [
    "Entity.labels is a free-form object missing from OPAQUE",
    "Episode.reference_time is in DATE_KEYS but is not a time",
    "Fact.reviewed_at is a date-time missing from DATE_KEYS",
  ]);
  assert.deepEqual(operationProblems(changed), [
    "Graphmem.facts has no argument for GET /v1/facts ?color",
    "GET /v1/widgets has no client method (add it to Graphmem and OPERATIONS)",
    "Graphmem.search has no argument for SearchRequest.boost",
  ]);
});

test("the version is the repository's", () => {
  const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { version: string };
  assert.equal(VERSION, pkg.version);
  assert.equal(VERSION, readFileSync(join(REPO, "VERSION"), "utf8").trim());
});

