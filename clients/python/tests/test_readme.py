"""The README's "From Python" code runs as written against a real server."""

from __future__ import annotations

import re

import pytest

from conftest import README_KEY, REPO


def _python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## From Python", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_readme_python_section(server_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = _python_blocks()
    assert len(blocks) == 2
    monkeypatch.setenv("GRAPHMEM_URL", server_url)
    monkeypatch.setenv("GRAPHMEM_API_KEY", README_KEY)
    scope: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), scope)
    out = capsys.readouterr().out
    assert "3307" in out
    docs = scope["docs"]
    assert isinstance(docs, list)
    assert [t.name for t in scope["tools"]] == ["remember", "recall", "forget"]  # type: ignore[attr-defined]
    # The snippets close what they open: no "ResourceWarning: unclosed socket".
    assert scope["g"]._http.is_closed  # type: ignore[attr-defined]
    assert "no extraction model" in out
