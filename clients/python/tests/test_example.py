"""examples/agent.py against the fake OpenAI-compatible endpoint and a real server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import AGENT_KEY, HERE, Process
from graphmem import Graphmem


@pytest.fixture
def fake_llm(fakellm_bin: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    log = tmp_path / "requests.jsonl"
    p = Process([fakellm_bin, "-reply", "Noted, thanks.", "-log", str(log)], dict(os.environ), prefix="http://")
    yield "http://" + p.address, log
    p.stop()


def _run(server_url: str, llm_url: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPENAI_BASE_URL=llm_url, OPENAI_API_KEY="test-key", GRAPHMEM_URL=server_url,
               GRAPHMEM_API_KEY=AGENT_KEY)
    return subprocess.run(
        [sys.executable, str(HERE.parent / "examples" / "agent.py"), "--model", "fake-model", "--user", "Ada"],
        input=stdin, env=env, capture_output=True, text=True, timeout=120,
    )


def _agent(server_url: str, llm_url: str, stdin: str) -> str:
    done = _run(server_url, llm_url, stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_agent_remembers_across_runs(server_url: str, fake_llm: tuple[str, Path]) -> None:
    llm_url, log = fake_llm
    first = _agent(server_url, llm_url, "Our billing service listens on port 4417 since Monday.\n")
    assert first.strip() == "assistant: Noted, thanks."
    # A second process has no chat history: what it knows comes from graphmem.
    second = _agent(server_url, llm_url, "Which port does the billing service listen on?\n")
    assert second.strip() == "assistant: Noted, thanks."

    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) == 2 and all(r["model"] == "fake-model" for r in requests)
    last = requests[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user"]
    assert "4417" in last[0]["content"], last[0]["content"]
    assert "4417" not in requests[0]["messages"][0]["content"]

    with Graphmem(server_url, api_key=AGENT_KEY) as g:
        stored = g.episodes()
    said = {(e.speaker, e.role, e.content) for e in stored}
    assert ("Ada", "user", "Our billing service listens on port 4417 since Monday.") in said
    assert ("assistant", "assistant", "Noted, thanks.") in said


def test_agent_says_when_graphmem_is_down(fake_llm: tuple[str, Path]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    done = _run(url, fake_llm[0], "hello\n")
    assert done.returncode == 1
    assert done.stderr.startswith(f"agent: graphmem: cannot reach graphmem at {url}"), done.stderr
