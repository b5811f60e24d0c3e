#!/usr/bin/env python3
"""Checks everything scripts/release.sh would upload, without uploading.

  scripts/release_check.py DIST_DIR

DIST_DIR holds the archives and SHA256SUMS (scripts/dist.sh), packages/
(packaging/build.sh: the graphmem-server wheels and npm packages) and
clients/ (the graphmem Python wheel and npm package). Every name and version
must match VERSION, every archive its line of SHA256SUMS, every package its
metadata. Prints what would be uploaded; exits 1 naming each problem.
"""

from __future__ import annotations

import email.parser
import hashlib
import json
import re
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
problems: list[str] = []


def bad(msg: str) -> None:
    problems.append(msg)


def check_archives(dist: Path, version: str) -> list[Path]:
    sums = dist / "SHA256SUMS"
    archives = sorted(p for p in dist.glob("graphmem_*") if p.is_file())
    if not archives:
        bad(f"{dist}: no release archives (scripts/dist.sh)")
    if not sums.is_file():
        bad(f"{sums}: missing")
        return archives
    listed: dict[str, str] = {}
    for n, row in enumerate(sums.read_text().splitlines(), 1):
        m = re.fullmatch(r"([0-9a-f]{64}) [ *](\S+)", row)
        if not m:
            bad(f"SHA256SUMS line {n}: not '<sha256>  <file>': {row!r}")
            continue
        listed[m.group(2)] = m.group(1)
    for name, digest in listed.items():
        p = dist / name
        if not p.is_file():
            bad(f"SHA256SUMS names {name}, which is not in {dist}")
        elif hashlib.sha256(p.read_bytes()).hexdigest() != digest:
            bad(f"{name}: its SHA-256 is not the one SHA256SUMS gives")
    for p in archives:
        m = re.fullmatch(r"graphmem_(.+?)_(linux|darwin|windows)_(amd64|arm64)\.(tar\.gz|zip)", p.name)
        if not m:
            bad(f"{p.name}: not graphmem_<version>_<os>_<arch>.tar.gz or .zip")
            continue
        if m.group(1) != version:
            bad(f"{p.name}: version {m.group(1)}, VERSION says {version}")
        if p.name not in listed:
            bad(f"{p.name}: not in SHA256SUMS")
        exe = "graphmem.exe" if m.group(2) == "windows" else "graphmem"
        stem = p.name.removesuffix(".tar.gz").removesuffix(".zip")
        if p.name.endswith(".zip"):
            with zipfile.ZipFile(p) as z:
                names = set(z.namelist())
        else:
            with tarfile.open(p) as t:
                names = set(t.getnames())
        for want in (exe, "LICENSE", "README.md"):
            if f"{stem}/{want}" not in names:
                bad(f"{p.name}: no {stem}/{want}")
    return archives + ([sums] if sums.is_file() else [])


def check_wheel(p: Path, name: str, version: str) -> None:
    with zipfile.ZipFile(p) as z:
        metas = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        if len(metas) != 1:
            bad(f"{p.name}: {len(metas)} METADATA files, want 1")
            return
        meta = email.parser.Parser().parsestr(z.read(metas[0]).decode())
    if meta["Name"] != name:
        bad(f"{p.name}: Name {meta['Name']!r}, want {name!r}")
    if meta["Version"] != version:
        bad(f"{p.name}: Version {meta['Version']!r}, VERSION says {version}")
    for field in ("Summary", "Requires-Python"):
        if not meta[field]:
            bad(f"{p.name}: no {field} in its metadata")
    classifiers = meta.get_all("Classifier") or []
    if not (meta["License"] or meta["License-Expression"] or any(c.startswith("License ::") for c in classifiers)):
        bad(f"{p.name}: no licence in its metadata")
    want = re.sub(r"[-.]+", "_", name) + "-" + version + "-"
    if not p.name.startswith(want):
        bad(f"{p.name}: the file name does not start with {want}")


def npm_manifest(p: Path) -> tuple[dict, set[str]]:
    with tarfile.open(p) as t:
        names = set(t.getnames())
        f = t.extractfile("package/package.json")
        assert f is not None
        return json.load(f), names


def check_npm(p: Path, version: str, expect: str | None = None) -> str:
    try:
        pkg, files = npm_manifest(p)
    except (KeyError, tarfile.TarError) as err:
        bad(f"{p.name}: not an npm package ({err})")
        return ""
    name = pkg.get("name", "")
    if expect and name != expect:
        bad(f"{p.name}: name {name!r}, want {expect!r}")
    if pkg.get("version") != version:
        bad(f"{p.name}: version {pkg.get('version')!r}, VERSION says {version}")
    if pkg.get("private"):
        bad(f"{p.name}: private, npm would refuse to publish it")
    for field in ("description", "license"):
        if not pkg.get(field) and not (field == "license" and "package/LICENSE" in files):
            bad(f"{p.name}: no {field}")
    for dep, v in (pkg.get("optionalDependencies") or {}).items():
        if dep.startswith("graphmem-server-") and v != version:
            bad(f"{p.name}: optional dependency {dep}@{v}, want {version}")
    if name == "graphmem":
        for entry in ("index", "ai", "langchain"):
            for ext in ("js", "d.ts"):
                if f"package/dist/{entry}.{ext}" not in files:
                    bad(f"{p.name}: no dist/{entry}.{ext} (npm pack builds both adapters)")
        if pkg.get("dependencies"):
            bad(f"{p.name}: runtime dependencies {pkg['dependencies']}")
    return name


def main() -> int:
    dist = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "dist")
    version = (ROOT / "VERSION").read_text().strip()
    uploads: list[str] = []
    for p in check_archives(dist, version):
        uploads.append(f"archive  {p.name}")

    pkgs, clients = dist / "packages", dist / "clients"
    server_wheels = sorted(pkgs.glob("*.whl"))
    if not server_wheels:
        bad(f"{pkgs}: no graphmem-server wheels (packaging/build.sh)")
    for w in server_wheels:
        check_wheel(w, "graphmem-server", version)
        uploads.append(f"wheel    {w.name}")
    client_wheels = sorted(clients.glob("*.whl"))
    if len(client_wheels) != 1:
        bad(f"{clients}: {len(client_wheels)} graphmem client wheels, want 1")
    for w in client_wheels:
        check_wheel(w, "graphmem", version)
        uploads.append(f"wheel    {w.name}")

    names: list[str] = []
    for t in sorted(pkgs.glob("*.tgz")):
        names.append(check_npm(t, version))
        uploads.append(f"npm      {t.name}")
    if "graphmem-server" not in names:
        bad(f"{pkgs}: no graphmem-server npm package")
    platforms = [n for n in names if n.startswith("graphmem-server-")]
    if len(platforms) == 0:
        bad(f"{pkgs}: no graphmem-server-<os>-<cpu> npm package")
    client_tgz = sorted(clients.glob("*.tgz"))
    if len(client_tgz) != 1:
        bad(f"{clients}: {len(client_tgz)} graphmem npm packages, want 1")
    for t in client_tgz:
        check_npm(t, version, "graphmem")
        uploads.append(f"npm      {t.name}")

    for u in uploads:
        print(u)
    for p in problems:
        print(f"release check: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"release check: {len(uploads)} files of {version}, names, versions, metadata and SHA256SUMS agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
