// What the tests share: a real `graphmem serve` with API keys, started per test file on a loopback
// port, and the processes they start. The binaries come from GRAPHMEM_BIN and FAKELLM_BIN (test/run.ts
// builds them with go build when unset).

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** clients/typescript (the tests run from build/test). */
export const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The repository's root. */
export const REPO = resolve(PACKAGE, "..", "..");

// Each key and the scopes it may use, the first being its default.
export const ALICE_KEY = "alice-key-5c1d7e0b2f8a4c69";
export const BOB_KEY = "bob-key-9a3e61d04b7f2c85";
export const IO_KEY = "io-key-2b8f0c4d6e1a9357";
export const AGENT_KEY = "agent-key-7d2c9e4f1b6a0853";
export const KEYS: Record<string, string[]> = {
  [ALICE_KEY]: ["alice", "alice-work"],
  [BOB_KEY]: ["bob"],
  [IO_KEY]: ["io-source", "io-dest"],
  [AGENT_KEY]: ["agent"],
};

/** A binary the tests need, from its environment variable. */
export function bin(envName: "GRAPHMEM_BIN" | "FAKELLM_BIN"): string {
  const path = process.env[envName];
  if (!path) throw new Error(`set ${envName} (npm test builds it: node build/test/run.js)`);
  return path;
}

/** A child process whose first stdout line starting with a prefix gives its address. */
export interface Started {
  address: string;
  proc: ChildProcess;
  stderr: string[];
  stop(): Promise<void>;
}

export function start(args: string[], env: NodeJS.ProcessEnv, prefix: string, timeoutMs = 60_000): Promise<Started> {
  const [cmd, ...rest] = args;
  const proc = spawn(cmd!, rest, { env, stdio: ["ignore", "pipe", "pipe"] });
  const stderr: string[] = [];
  createInterface({ input: proc.stderr! }).on("line", (l) => stderr.push(l));
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    const late = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(late);
  };
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${cmd} did not start in ${timeoutMs} ms: ${stderr.join("\n").slice(-2000)}`));
    }, timeoutMs);
    const lines = createInterface({ input: proc.stdout! });
    lines.on("line", (line) => {
      if (!line.startsWith(prefix)) return;
      clearTimeout(timer);
      lines.removeAllListeners("line");
      proc.stdout!.resume(); // keep draining
      resolveStart({ address: line.slice(prefix.length).trim(), proc, stderr, stop });
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited (${code}): ${stderr.join("\n").slice(-2000)}`));
    });
  });
}

/** A graphmem server with KEYS on the embedded store in a temporary folder; `stop` removes it. */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const data = mkdtempSync(join(tmpdir(), "graphmem-ts-data-"));
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("GRAPHMEM_")),
  );
  env["GRAPHMEM_API_KEYS"] = Object.entries(KEYS)
    .map(([k, scopes]) => `${k}=${scopes.join(",")}`)
    .join(";");
  Object.assign(env, extraEnv);
  const p = await start(
    [bin("GRAPHMEM_BIN"), "serve", "--addr", "127.0.0.1:0", "--data", data],
    env,
    "graphmem: listening on ",
  );
  return {
    url: p.address,
    async stop() {
      await p.stop();
      rmSync(data, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A name no other test uses, so tests sharing a scope stay apart. */
export function uniqueName(prefix = "svc"): string {
  counter++;
  return `${prefix}-${process.pid.toString(36)}${counter}${Math.random().toString(36).slice(2, 8)}`;
}
