"""Build one graphmem-server wheel per release archive of scripts/dist.sh.

    python3 packaging/pypi/build_wheels.py DIST_DIR OUT_DIR

Each wheel holds the graphmem_server package (packaging/pypi/graphmem_server),
the platform's binary under graphmem_server/bin, and the console script
``graphmem``. Wheels are zip files with a fixed layout, so this writes them
with the standard library alone, no build backend to install.
"""

import base64
import hashlib
import io
import os
import sys
import tarfile
import zipfile

NAME = "graphmem_server"
# Go's static binaries need no C library, so one wheel serves glibc and
# musl systems; Go 1.26 runs on macOS 12 and later.
TAGS = {
    ("linux", "amd64"): "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
    ("linux", "arm64"): "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
    ("darwin", "amd64"): "macosx_12_0_x86_64",
    ("darwin", "arm64"): "macosx_12_0_arm64",
    ("windows", "amd64"): "win_amd64",
    ("windows", "arm64"): "win_arm64",
}
HERE = os.path.dirname(os.path.abspath(__file__))


def read_binary(archive: str) -> tuple[str, bytes]:
    """Return the binary's file name and bytes from a release archive."""
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for n in z.namelist():
                if n.endswith("/graphmem.exe"):
                    return "graphmem.exe", z.read(n)
    else:
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                if m.name.endswith("/graphmem"):
                    f = t.extractfile(m)
                    assert f is not None
                    return "graphmem", f.read()
    raise SystemExit(f"{archive}: no graphmem binary inside")


def record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def build(archive: str, version: str, goos: str, goarch: str, license_text: bytes, out: str) -> str:
    tag = TAGS[(goos, goarch)]
    exe, binary = read_binary(archive)
    info = f"{NAME}-{version}.dist-info"
    readme = (
        "The graphmem server (a temporal knowledge-graph memory for LLM agents) as one binary.\n\n"
        "    pip install graphmem-server\n    graphmem serve\n\n"
        "then open http://127.0.0.1:8080/ui/ . The Python client is the separate `graphmem` package.\n"
    )
    files: list[tuple[str, bytes, int]] = []  # path, bytes, unix mode
    for src in sorted(os.listdir(os.path.join(HERE, NAME))):
        if src.endswith(".py"):
            with open(os.path.join(HERE, NAME, src), "rb") as f:
                files.append((f"{NAME}/{src}", f.read(), 0o644))
    files.append((f"{NAME}/bin/{exe}", binary, 0o755))
    metadata = (
        "Metadata-Version: 2.1\n"
        "Name: graphmem-server\n"
        f"Version: {version}\n"
        "Summary: The graphmem server binary: a temporal knowledge-graph memory for LLM agents\n"
        "License: Apache-2.0\n"
        "Requires-Python: >=3.8\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )
    wheel = f"Wheel-Version: 1.0\nGenerator: graphmem packaging\nRoot-Is-Purelib: false\n"
    for t in tag.split("."):
        wheel += f"Tag: py3-none-{t}\n"
    files += [
        (f"{info}/METADATA", metadata.encode(), 0o644),
        (f"{info}/WHEEL", wheel.encode(), 0o644),
        (f"{info}/entry_points.txt", f"[console_scripts]\ngraphmem = {NAME}:main\n".encode(), 0o644),
        (f"{info}/LICENSE", license_text, 0o644),
    ]
    record = "".join(record_line(p, d) + "\n" for p, d, _ in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))

    path = os.path.join(out, f"{NAME}-{version}-py3-none-{tag}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, data, mode in files:
            zi = zipfile.ZipInfo(p, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return path


def main() -> None:
    dist, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(HERE, "..", "..", "LICENSE"), "rb") as f:
        license_text = f.read()
    built = 0
    for name in sorted(os.listdir(dist)):
        # graphmem_<version>_<os>_<arch>.tar.gz or .zip
        if not name.startswith("graphmem_") or not (name.endswith(".tar.gz") or name.endswith(".zip")):
            continue
        stem = name.removesuffix(".tar.gz").removesuffix(".zip")
        _, version, goos, goarch = stem.split("_")
        print(build(os.path.join(dist, name), version, goos, goarch, license_text, out))
        built += 1
    if built == 0:
        raise SystemExit(f"{dist}: no release archives (run scripts/dist.sh)")


if __name__ == "__main__":
    main()
