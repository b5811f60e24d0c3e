"""The test session starts a real ``graphmem serve`` with API keys on a loopback port.

The binary comes from GRAPHMEM_BIN, else it is built from the repository with
``go build``; the fake OpenAI-compatible endpoint (tests/fakellm) likewise
from FAKELLM_BIN.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import Graphmem

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]

# Each key and the scopes it may use, the first being its default.
ALICE_KEY = "alice-key-5c1d7e0b2f8a4c69"
BOB_KEY = "bob-key-9a3e61d04b7f2c85"
IO_KEY = "io-key-2b8f0c4d6e1a9357"
AGENT_KEY = "agent-key-7d2c9e4f1b6a0853"
README_KEY = "readme-key-4e9b1c7a3d5f2086"
KEYS = {
    ALICE_KEY: ["alice", "alice-work"],
    BOB_KEY: ["bob"],
    IO_KEY: ["io-source", "io-dest", "io-async"],
    AGENT_KEY: ["agent"],
    README_KEY: ["readme"],
}


def _build(env: str, package: str, name: str, out: Path) -> str:
    given = os.environ.get(env)
    if given:
        return given
    go = shutil.which("go")
    if go is None:
        pytest.exit(f"set {env} or put go on PATH to build {package}", returncode=2)
    target = out / name
    subprocess.run([go, "build", "-o", str(target), package], cwd=REPO, check=True)
    return str(target)


@pytest.fixture(scope="session")
def bin_dir() -> Iterator[Path]:
    """A folder for binaries built by the session."""
    d = Path(tempfile.mkdtemp(prefix="graphmem-py-bin-"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def graphmem_bin(bin_dir: Path) -> str:
    """The graphmem binary."""
    return _build("GRAPHMEM_BIN", "./cmd/graphmem", "graphmem", bin_dir)


@pytest.fixture(scope="session")
def fakellm_bin(bin_dir: Path) -> str:
    """The fake OpenAI-compatible endpoint."""
    return _build("FAKELLM_BIN", "./clients/python/tests/fakellm", "fakellm", bin_dir)


class Process:
    """A child process whose first stdout line matching a prefix gives its address."""

    def __init__(self, args: list[str], env: dict[str, str], prefix: str, timeout: float = 60.0) -> None:
        self.proc = subprocess.Popen(
            args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.stderr: list[str] = []
        lines: queue.Queue[str | None] = queue.Queue()

        def pump_out() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                lines.put(line)
            lines.put(None)

        def pump_err() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.stderr.append(line)

        threading.Thread(target=pump_out, daemon=True).start()
        threading.Thread(target=pump_err, daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                self.stop()
                raise RuntimeError(f"{args[0]} did not start in {timeout}s: {''.join(self.stderr)[-2000:]}")
            if line is None:
                self.stop()
                raise RuntimeError(f"{args[0]} exited: {''.join(self.stderr)[-2000:]}")
            if line.startswith(prefix):
                self.address = line[len(prefix) :].strip()
                return

    def stop(self) -> None:
        """Stop the process and wait for it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def server_url(graphmem_bin: str) -> Iterator[str]:
    """The URL of a graphmem server with KEYS, on the embedded store in a temporary folder."""
    data = tempfile.mkdtemp(prefix="graphmem-py-data-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_API_KEYS"] = ";".join(f"{k}={','.join(v)}" for k, v in KEYS.items())
    p = Process(
        [graphmem_bin, "serve", "--addr", "127.0.0.1:0", "--data", data],
        env,
        prefix="graphmem: listening on ",
    )
    yield p.address
    p.stop()
    if p.proc.returncode not in (0, -15):
        sys.stderr.write("".join(p.stderr)[-4000:])
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # The client reads these; the tests say everything explicitly.
    monkeypatch.delenv("GRAPHMEM_URL", raising=False)
    monkeypatch.delenv("GRAPHMEM_API_KEY", raising=False)


@pytest.fixture
def alice(server_url: str) -> Iterator[Graphmem]:
    """A client with alice's key, in her default scope."""
    with Graphmem(server_url, api_key=ALICE_KEY) as g:
        yield g


@pytest.fixture
def bob(server_url: str) -> Iterator[Graphmem]:
    """A client with bob's key."""
    with Graphmem(server_url, api_key=BOB_KEY) as g:
        yield g


@pytest.fixture
def name() -> str:
    """A name no other test uses, so tests sharing a scope stay apart."""
    return f"svc-{uuid.uuid4().hex[:10]}"
