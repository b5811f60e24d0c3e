// npm test: builds graphmem and the fake OpenAI-compatible endpoint with go build unless GRAPHMEM_BIN
// and FAKELLM_BIN name them, then runs the client's test files with node:test. With --adapters (npm run
// test:adapters, once `ai`, `zod` and `@langchain/core` are installed) it runs the framework adapters'
// tests and the install test instead, which then expects graphmem/ai and graphmem/langchain in the
// package. Other arguments are passed to node (e.g. --test-name-pattern=retries).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { REPO } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
let built: string | undefined;

function ensure(envName: string, pkg: string, name: string): void {
  if (process.env[envName]) return;
  built ??= mkdtempSync(join(tmpdir(), "graphmem-ts-bin-"));
  const out = join(built, name);
  const done = spawnSync("go", ["build", "-o", out, pkg], { cwd: REPO, stdio: "inherit" });
  if (done.status !== 0) {
    console.error(`run: go build ${pkg} failed; set ${envName} to a built binary or put go on PATH`);
    process.exit(2);
  }
  process.env[envName] = out;
}

ensure("GRAPHMEM_BIN", "./cmd/graphmem", "graphmem");
ensure("FAKELLM_BIN", "./clients/python/tests/fakellm", "fakellm");
// The tests that import the adapters' frameworks, which npm ci does not install.
const ADAPTERS = ["ai.test.js", "langchain.test.js"];
const args = process.argv.slice(2);
const adapters = args.includes("--adapters");
if (adapters) process.env["GRAPHMEM_TS_ADAPTERS"] = "1";
const files = readdirSync(here)
  .filter((f) => f.endsWith(".test.js"))
  .filter((f) => (adapters ? [...ADAPTERS, "install.test.js"].includes(f) : !ADAPTERS.includes(f)))
  .sort()
  .map((f) => join(here, f));
const done = spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...args.filter((a) => a !== "--adapters"), ...files], {
  stdio: "inherit",
});
if (built) rmSync(built, { recursive: true, force: true });
process.exit(done.status ?? 1);
