// Builds the npm packages of the graphmem server from the release archives
// of scripts/dist.sh and packs them:
//   node packaging/npm/build.mjs DIST_DIR OUT_DIR
// graphmem-server (the bin shim, with one optional dependency per
// platform) and graphmem-server-<platform>-<arch> for each archive found.
// Every platform the release has is listed as an optional dependency, so
// npm installs the one matching the machine (os and cpu) and skips the rest.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const [dist, outArg] = process.argv.slice(2);
if (!dist || !outArg) {
  console.error("usage: node packaging/npm/build.mjs DIST_DIR OUT_DIR");
  process.exit(2);
}
const out = path.resolve(outArg);
const version = fs.readFileSync(path.join(root, "VERSION"), "utf8").trim();
// Go's names to Node's (process.platform, process.arch).
const platforms = { linux: "linux", darwin: "darwin", windows: "win32" };
const arches = { amd64: "x64", arm64: "arm64" };
const allTargets = Object.keys(platforms).flatMap((p) => Object.values(arches).map((a) => `${platforms[p]}-${a}`));
const common = {
  version,
  license: "Apache-2.0",
  homepage: "https://github.com/graphmem/graphmem",
  repository: { type: "git", url: "git+https://github.com/graphmem/graphmem.git" },
};

fs.mkdirSync(out, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), "graphmem-npm-"));
const pack = (dir) => {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim();
  console.log(path.join(out, name.split("\n").pop()));
};

let found = 0;
for (const archive of fs.readdirSync(dist).sort()) {
  const m = archive.match(/^graphmem_([^_]+)_([a-z]+)_([a-z0-9]+)\.(tar\.gz|zip)$/);
  if (!m) continue;
  const [, , goos, goarch, ext] = m;
  const target = `${platforms[goos]}-${arches[goarch]}`;
  const name = `graphmem-server-${target}`;
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  const unpacked = path.join(work, `unpacked-${target}`);
  fs.mkdirSync(unpacked);
  if (ext === "zip") execFileSync("unzip", ["-q", path.join(dist, archive), "-d", unpacked]);
  else execFileSync("tar", ["-xzf", path.join(dist, archive), "-C", unpacked]);
  const exe = goos === "windows" ? "graphmem.exe" : "graphmem";
  const [folder] = fs.readdirSync(unpacked);
  fs.copyFileSync(path.join(unpacked, folder, exe), path.join(dir, "bin", exe));
  fs.chmodSync(path.join(dir, "bin", exe), 0o755);
  fs.copyFileSync(path.join(root, "LICENSE"), path.join(dir, "LICENSE"));
  fs.writeFileSync(path.join(dir, "README.md"), `# ${name}\n\nThe graphmem binary for ${target}, run by the \`graphmem-server\` package.\n`);
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify(
      {
        name,
        description: `The graphmem server binary for ${target} (used by graphmem-server)`,
        ...common,
        os: [platforms[goos]],
        cpu: [arches[goarch]],
        files: ["bin/", "LICENSE", "README.md"],
        preferUnplugged: true,
      },
      null,
      2,
    ) + "\n",
  );
  pack(dir);
  found++;
}
if (found === 0) {
  console.error(`${dist}: no release archives (run scripts/dist.sh)`);
  process.exit(1);
}

const main = path.join(work, "graphmem-server");
fs.cpSync(path.join(here, "graphmem-server"), main, { recursive: true });
fs.copyFileSync(path.join(root, "LICENSE"), path.join(main, "LICENSE"));
fs.writeFileSync(
  path.join(main, "package.json"),
  JSON.stringify(
    {
      name: "graphmem-server",
      description: "The graphmem server: a temporal knowledge-graph memory for LLM agents (npx graphmem-server serve)",
      ...common,
      bin: { "graphmem-server": "bin/graphmem-server.js" },
      files: ["bin/", "LICENSE", "README.md"],
      engines: { node: ">=18" },
      optionalDependencies: Object.fromEntries(allTargets.map((t) => [`graphmem-server-${t}`, version])),
    },
    null,
    2,
  ) + "\n",
);
pack(main);
fs.rmSync(work, { recursive: true, force: true });
