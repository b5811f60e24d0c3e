// npm run adapters: installs the frameworks of graphmem/ai and graphmem/langchain (ai, zod,
// @langchain/core, as locked in adapters/package-lock.json) into adapters/node_modules, then links each
// into the package's node_modules, where tsc and node find them. npm ci leaves them out (and removes
// the links), so the client builds with TypeScript and Node's types alone.

import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "..", "node_modules");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const lock = existsSync(join(here, "package-lock.json"));
execFileSync(npm, [lock ? "ci" : "install", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit", shell: process.platform === "win32" });

const { devDependencies } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
for (const name of Object.keys(devDependencies)) {
  const link = join(modules, name);
  const target = join(here, "node_modules", name);
  if (existsSync(link) || isLink(link)) rmSync(link, { recursive: true, force: true });
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), target), link, "junction");
  console.log(`adapters: ${name} linked from ${relative(join(here, ".."), target)}`);
}

function isLink(p) {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
