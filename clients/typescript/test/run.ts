// npm test: builds graphmem and the fake OpenAI-compatible endpoint with go build unless GRAPHMEM_BIN
// and FAKELLM_BIN name them, then runs every test file with node:test. Arguments are passed to node
// (e.g. --test-name-pattern=retries).

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
const files = readdirSync(here)
  .filter((f) => f.endsWith(".test.js"))
  .sort()
  .map((f) => join(here, f));
const done = spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...process.argv.slice(2), ...files], {
  stdio: "inherit",
});
if (built) rmSync(built, { recursive: true, force: true });
process.exit(done.status ?? 1);
