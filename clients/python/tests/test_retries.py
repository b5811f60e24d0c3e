"""Retries on 429 and 503: a proxy in front of the real server answers the first requests itself."""

from __future__ import annotations

import email.utils
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from conftest import ALICE_KEY
from graphmem import AsyncGraphmem, Graphmem, GraphmemConnectionError, GraphmemError, RateLimitedError, UnavailableError


@dataclass
class Seen:
    """A request the proxy received."""

    method: str
    path: str
    body: bytes
    at: float


@dataclass
class Proxy:
    """Forwards to ``upstream`` once its scripted answers are used up."""

    upstream: str
    script: list[tuple[int, dict[str, str], bytes]] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    url: str = ""
    delay: float = 0.0
    delay_method: str = ""  # only this method is delayed, when set

    def fail(self, n: int, status: int = 503, retry_after: str | None = None, body: bytes | None = None) -> None:
        """Answer the next n requests with status (in the server's error shape unless body is given)."""
        headers = {"Content-Type": "application/json"}
        if retry_after is not None:
            headers["Retry-After"] = retry_after
        if body is None:
            code = "unavailable" if status == 503 else "rate_limited"
            body = json.dumps({"error": {"code": code, "message": "try again"}}).encode()
        self.script.extend([(status, headers, body)] * n)


@pytest.fixture
def proxy(server_url: str) -> Iterator[Proxy]:
    p = Proxy(server_url)
    lock = threading.Lock()
    upstream = httpx.Client(base_url=server_url, timeout=30)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _handle(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                p.seen.append(Seen(self.command, self.path, body, time.monotonic()))
                scripted = p.script.pop(0) if p.script else None
            if scripted is not None:
                status, headers, out = scripted
            else:
                if not p.delay_method or p.delay_method == self.command:
                    time.sleep(p.delay)
                fwd = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                r = upstream.request(self.command, self.path, content=body, headers=fwd)
                status, out = r.status_code, r.content
                headers = {"Content-Type": r.headers.get("Content-Type", "application/json")}
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_GET = do_POST = do_DELETE = _handle

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    p.url = f"http://127.0.0.1:{srv.server_address[1]}"
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield p
    srv.shutdown()
    srv.server_close()
    upstream.close()


def test_reads_wait_as_retry_after_asks(proxy: Proxy, name: str) -> None:
    proxy.fail(2, retry_after="1")
    with Graphmem(proxy.url, api_key=ALICE_KEY) as g:
        assert g.facts(subject=name) == []
    assert len(proxy.seen) == 3
    gaps = [b.at - a.at for a, b in zip(proxy.seen, proxy.seen[1:])]
    assert all(gap >= 0.9 for gap in gaps), gaps


def test_backoff_without_retry_after_and_an_http_date(proxy: Proxy, name: str) -> None:
    proxy.fail(1, status=429)
    soon = email.utils.formatdate(time.time() + 1, usegmt=True)
    proxy.fail(1, status=503, retry_after=soon)
    with Graphmem(proxy.url, api_key=ALICE_KEY, backoff=0.01) as g:
        assert g.search(name) is not None
    assert [s.path for s in proxy.seen] == ["/v1/search"] * 3


def test_retries_give_up(proxy: Proxy) -> None:
    proxy.fail(3, retry_after="0")
    with Graphmem(proxy.url, api_key=ALICE_KEY, max_retries=2) as g, pytest.raises(UnavailableError) as e:
        g.facts()
    assert e.value.status == 503 and e.value.code == "unavailable"
    assert len(proxy.seen) == 3
    # A Retry-After longer than the client waits is not waited for.
    proxy.fail(1, status=429, retry_after="3600")
    with Graphmem(proxy.url, api_key=ALICE_KEY) as g, pytest.raises(RateLimitedError):
        g.facts()
    assert len(proxy.seen) == 4


def test_writes_without_idempotency_key_are_sent_once(proxy: Proxy, alice: Graphmem, name: str) -> None:
    proxy.fail(1, retry_after="0")
    with Graphmem(proxy.url, api_key=ALICE_KEY) as g, pytest.raises(UnavailableError):
        g.add_facts([{"subject": name, "predicate": "port", "value": "1"}])
    assert len(proxy.seen) == 1
    fact = alice.add_facts([{"subject": name, "predicate": "port", "value": "2"}])[0]
    proxy.fail(1, retry_after="0")
    with Graphmem(proxy.url, api_key=ALICE_KEY) as g, pytest.raises(UnavailableError):
        g.retract(fact.fact_id)
    assert len(proxy.seen) == 2


def test_remember_is_retried_with_the_same_key(proxy: Proxy, alice: Graphmem, name: str) -> None:
    proxy.fail(1, retry_after="0")
    with Graphmem(proxy.url, api_key=ALICE_KEY) as g:
        ep = g.remember(f"{name} was retried once.")
    posts = [s for s in proxy.seen if s.method == "POST"]
    assert len(posts) == 2
    keys = {json.loads(s.body)["idempotency_key"] for s in posts}
    assert len(keys) == 1
    stored = [e for e in alice.iter_episodes() if e.content == f"{name} was retried once."]
    assert [e.id for e in stored] == [ep.id]


def test_a_proxy_error_page_is_still_an_error(proxy: Proxy) -> None:
    proxy.fail(1, status=503, body=b"<html>upstream down</html>")
    with Graphmem(proxy.url, api_key=ALICE_KEY, max_retries=0) as g, pytest.raises(UnavailableError) as e:
        g.facts()
    assert "503" in str(e.value) and "upstream down" in e.value.message


async def test_async_retries(proxy: Proxy, name: str) -> None:
    proxy.fail(2, retry_after="0")
    async with AsyncGraphmem(proxy.url, api_key=ALICE_KEY) as g:
        assert await g.facts(subject=name) == []
        proxy.fail(1, retry_after="0")
        with pytest.raises(UnavailableError):
            await g.add_facts([{"subject": name, "predicate": "port", "value": "1"}])
    assert len(proxy.seen) == 4


def test_timeouts(proxy: Proxy, name: str) -> None:
    proxy.delay = 0.6
    with Graphmem(proxy.url, api_key=ALICE_KEY, timeout=0.2, max_retries=0) as g:
        with pytest.raises(GraphmemConnectionError) as e:
            g.facts(subject=name)
        assert "did not answer GET" in str(e.value) and "0.2s" in str(e.value)
        # A waited episode is given the time the server may take to answer it.
        proxy.delay_method = "POST"
        ep = g.remember(f"{name} waited for extraction.", wait=True)
        assert ep.content == f"{name} waited for extraction."


def test_an_answer_of_another_shape_is_a_graphmem_error(proxy: Proxy) -> None:
    proxy.script.append((200, {"Content-Type": "text/html"}, b"<html>captive portal</html>"))
    with Graphmem(proxy.url, api_key=ALICE_KEY) as g, pytest.raises(GraphmemError) as e:
        g.facts()
    assert "unexpected answer to GET /v1/facts (200, text/html)" in str(e.value)
