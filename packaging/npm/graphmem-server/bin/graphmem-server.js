#!/usr/bin/env node
// graphmem-server: runs the graphmem binary of this platform, carried by
// the optional dependency graphmem-server-<platform>-<arch>, with the
// arguments given (npx graphmem-server serve).
"use strict";

const { spawn } = require("node:child_process");
const { constants } = require("node:os");

const pkg = `graphmem-server-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "graphmem.exe" : "graphmem";
let bin;
try {
  bin = require.resolve(`${pkg}/bin/${exe}`);
} catch {
  console.error(
    `graphmem-server: no graphmem binary for ${process.platform}-${process.arch}: ` +
      `the optional dependency ${pkg} is not installed. Install without --omit=optional, ` +
      `or take the release archive for your platform.`,
  );
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
// The server shuts down cleanly on SIGINT and SIGTERM: pass them on.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  console.error(`graphmem-server: ${bin}: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  process.exit(signal ? 128 + (constants.signals[signal] ?? 1) : (code ?? 1));
});
