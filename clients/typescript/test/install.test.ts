// A clean-directory install: npm pack, install the tarball into an empty project, type-check an agent
// developer's scenario and the README's code against the installed types with tsc --strict, and run
// them against a live server with keys, the scenario on Node, and on Bun and Deno where installed.
// npm test packs the client as built without the frameworks (graphmem/ai and graphmem/langchain absent);
// npm run test:adapters (GRAPHMEM_TS_ADAPTERS=1) packs it as published, with them.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, test } from "node:test";

import { ALICE_KEY, PACKAGE, REPO, startServer, uniqueName } from "./helpers.js";

const server = await startServer();
const dir = mkdtempSync(join(tmpdir(), "graphmem-ts-install-"));
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

test("the packed package installs in a clean directory and runs an agent developer's scenario and the README's code", () => {
  const packed = JSON.parse(
    // npm test (or npm run test:adapters) has just built dist/; prepack would install the frameworks.
    execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
      cwd: PACKAGE,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed[0]!.files.map((f) => f.path).sort();
  assert.ok(files.includes("dist/index.js") && files.includes("dist/index.d.ts"), files.join(" "));
  const entries = ["dist/ai.js", "dist/ai.d.ts", "dist/langchain.js", "dist/langchain.d.ts"];
  const withAdapters = process.env["GRAPHMEM_TS_ADAPTERS"] === "1";
  assert.deepEqual(
    entries.filter((f) => files.includes(f)),
    withAdapters ? entries : [],
    files.join(" "),
  );
  assert.ok(files.every((f) => f.startsWith("dist/") || ["README.md", "package.json"].includes(f)), files.join(" "));

  const app = join(dir, "app");
  execFileSync("mkdir", ["-p", app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module" }));
  execFileSync(npm, ["install", "--no-audit", "--no-fund", join(dir, packed[0]!.filename)], { cwd: app, stdio: "pipe" });
  const installed = JSON.parse(readFileSync(join(app, "node_modules", "graphmem", "package.json"), "utf8")) as {
    dependencies?: object;
  };
  assert.equal(installed.dependencies, undefined); // no runtime dependencies

  copyFileSync(join(PACKAGE, "test", "install", "scenario.ts"), join(app, "scenario.ts"));
  // The README's "From TypeScript" code, as written.
  const readme = readFileSync(join(REPO, "README.md"), "utf8").split("## From TypeScript")[1]!.split("\n## ")[0]!;
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.equal(blocks.length, 1);
  writeFileSync(join(app, "readme.ts"), blocks.join("\n"));
  const tsc = join(PACKAGE, "node_modules", "typescript", "bin", "tsc");
  const compilerOptions = { strict: true, target: "es2022", module: "nodenext", lib: ["es2022", "dom"], types: [] };
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["scenario.ts", "readme.ts"] }));
  try {
    execFileSync(process.execPath, [tsc, "-p", "."], { cwd: app, encoding: "utf8" });
  } catch (err) {
    assert.fail(`tsc --strict on the scenario: ${(err as { stdout?: string }).stdout ?? String(err)}`);
  }

  const env = { PATH: process.env["PATH"], GRAPHMEM_URL: server.url, GRAPHMEM_API_KEY: ALICE_KEY };
  const printed = execFileSync(process.execPath, ["readme.js"], { cwd: app, encoding: "utf8", env });
  assert.match(printed, /3307/);

  // The integrations' frameworks are optional: without them only their own entry points fail, naming them.
  const probe = (spec: string): string =>
    execFileSync(
      process.execPath,
      ["--input-type=module", "-e", `import(${JSON.stringify(spec)}).then(() => console.log("ok"), (e) => console.log(e.message))`],
      { cwd: app, encoding: "utf8" },
    ).trim();
  assert.equal(probe("graphmem"), "ok");
  if (withAdapters) {
    assert.match(probe("graphmem/ai"), /Cannot find package 'ai'/);
    assert.match(probe("graphmem/langchain"), /Cannot find package '@langchain\/core'/);
  }

  // The same scenario on Node, and on Bun and Deno where they are installed (on PATH): they are not
  // dev dependencies, so npm ci stays small; GRAPHMEM_TS_RUNTIMES=required fails without them.
  const runtimes: Record<string, string[]> = { node: [process.execPath, "scenario.js"] };
  const bun = onPath("bun");
  const deno = onPath("deno");
  if (bun) runtimes["bun"] = [bun, "scenario.js"];
  if (deno) runtimes["deno"] = [deno, "run", "--allow-env", "--allow-net", "scenario.js"];
  const missing = ["bun", "deno"].filter((r) => !runtimes[r]);
  if (missing.length > 0) {
    assert.notEqual(process.env["GRAPHMEM_TS_RUNTIMES"], "required", `${missing.join(" and ")} not on PATH`);
    console.log(`# install: ${missing.join(" and ")} not on PATH, the scenario runs without them`);
  }
  for (const [runtime, [cmd, ...args]] of Object.entries(runtimes)) {
    const subject = uniqueName(`payments-db-${runtime}`);
    const scenarioEnv = {
      ...env,
      HOME: dir,
      DENO_DIR: join(dir, "deno"),
      NO_COLOR: "1",
      SCENARIO_SUBJECT: subject,
      SCENARIO_FOREIGN_SCOPE: "bob",
    };
    const out = execFileSync(cmd!, args, { cwd: app, encoding: "utf8", env: scenarioEnv });
    checkScenario(runtime, out);
  }
});

// The path of command name on PATH, or undefined.
function onPath(name: string): string | undefined {
  for (const d of (process.env["PATH"] ?? "").split(delimiter)) {
    const p = join(d, name);
    if (d && existsSync(p)) return p;
  }
  return undefined;
}

function checkScenario(runtime: string, out: string): void {
  const seen = JSON.parse(out) as {
    actions: string[];
    now: string;
    nowFacts: string[];
    then: string;
    thenAsOf: string;
    hits: string[];
    history: string[];
    invalid: { status: number; code: string; fields: Record<string, string> };
    foreign: { status: number; code: string };
  };
  assert.deepEqual(seen.actions, ["created", "superseded_previous"]);
  assert.ok(seen.now.includes('port "3307"') && !seen.now.includes('port "5432"'), seen.now);
  assert.deepEqual(seen.nowFacts, ["3307"]);
  assert.ok(seen.then.includes('port "5432"') && !seen.then.includes('port "3307"'), seen.then);
  assert.equal(seen.thenAsOf, "2023-06-01T00:00:00.000Z");
  assert.equal(seen.hits[0], "3307");
  assert.deepEqual(seen.history, ["3307 2024-03-01..", "5432 2023-01-01..2024-03-01"]);
  assert.equal(seen.invalid.status, 400);
  assert.equal(seen.invalid.code, "invalid_argument");
  assert.ok("facts[0].predicate" in seen.invalid.fields, JSON.stringify(seen.invalid));
  assert.deepEqual(seen.foreign, { status: 403, code: "permission_denied" }, runtime);
}
