"""The status page over HTTP: tokens, headers, logs and the live event stream.

A real uvicorn on loopback serves an in-memory source; httpx talks to it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from adapters.tv import logfilter
from adapters.tv.screens import render_screen
from adapters.tv.source import MemorySource
from adapters.tv.tokens import TokenBook, new_token, token_hash, well_formed
from bench import tv_games as demo
from bench.loopback import LoopbackServer
from gameflow.core import actions as A
from gameflow.core.engine import apply, view
from gameflow.core.result import Accepted
from gameflow.core.state import Game, with_version

pytestmark = pytest.mark.statuspage

PRIVATE = {
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-robots-tag": "noindex, nofollow",
}


@pytest.fixture
def source() -> MemorySource:
    return MemorySource()


@pytest.fixture
def server(source: MemorySource) -> Iterator[LoopbackServer]:
    with LoopbackServer(source, clock=lambda: demo.EPOCH + 95, keepalive=0.3) as srv:
        yield srv


def joined(game: Game, pid: str, name: str) -> Game:
    result = apply(game, A.Join(pid, None, name), demo.EPOCH)
    assert isinstance(result, Accepted), result
    state: Game = result.state
    return state


# -- tokens -------------------------------------------------------------------


def test_tokens_are_long_random_and_stored_only_hashed() -> None:
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(t) >= 43 and well_formed(t) for t in tokens)
    book = TokenBook()
    token = book.issue("g1")
    assert book.game_id(token) == "g1"
    stored = book.hashes()
    assert token not in json.dumps(stored)
    assert stored == {hashlib.sha256(token.encode()).hexdigest(): "g1"} == {token_hash(token): "g1"}
    assert book.game_id(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert book.game_id("../../etc/passwd") is None and book.game_id("") is None
    other = book.issue("g1")
    assert book.revoke(token) and book.game_id(token) is None and book.game_id(other) == "g1"
    assert book.revoke_game("g1") == 1 and book.game_id(other) is None


# -- HTTP -----------------------------------------------------------------------


def test_page_headers_and_unknown_or_revoked_links(
    source: MemorySource, server: LoopbackServer
) -> None:
    game = demo.lobby(5)
    server.publish(game, demo.info())
    token = server.call(lambda: source.issue(game.id))
    with httpx.Client() as client:
        page = client.get(server.url(token))
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        for key, value in PRIVATE.items():
            assert page.headers[key] == value, key
        assert "KRILL7" in page.text and "Ada" in page.text
        assert token not in page.text  # the page never echoes its own token
        css = client.get(f"{server.base}/tv/static/tv.css")
        assert css.status_code == 200 and css.headers["cache-control"] == "no-store"
        for bad in (new_token(), "short", token + "x"):
            gone = client.get(server.url(bad))
            assert gone.status_code == 404 and gone.headers["cache-control"] == "no-store"
            assert client.get(server.url(bad, "/events")).status_code == 404
        assert client.post(server.url(token)).status_code == 405  # nothing to write
        server.call(lambda: source.tokens.revoke(token))
        assert client.get(server.url(token)).status_code == 404


def test_access_log_never_shows_a_token(source: MemorySource) -> None:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Keep()
    access = logging.getLogger("uvicorn.access")
    access.addHandler(handler)
    try:
        with LoopbackServer(source, clock=lambda: demo.EPOCH) as server:
            game = demo.lobby(5)
            server.publish(game, demo.info())
            token = server.call(lambda: source.issue(game.id))
            with httpx.Client() as client:
                client.get(server.url(token))
                client.get(server.url(new_token()))
                client.get(server.url(token, "/events?after=999"), timeout=0.5)
    except httpx.ReadTimeout:
        pass
    finally:
        access.removeHandler(handler)
    text = "\n".join(records)
    assert records, "uvicorn logged no access lines"
    assert "/tv/<redacted>" in text
    assert token not in text
    assert (
        logfilter.redact(f"GET /tv/{token}/events?after=3") == "GET /tv/<redacted>/events?after=3"
    )
    assert logfilter.redact("GET /tv/static/tv.css") == "GET /tv/static/tv.css"


# -- Server-Sent Events -------------------------------------------------------------


class Events:
    """Reads an SSE stream in a thread and collects (id, event, data) triples."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.headers = headers or {}
        self.events: list[tuple[str | None, str, str]] = []
        self.raw: list[str] = []
        self.status = 0
        self.response_headers: dict[str, str] = {}
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with (
            httpx.Client(timeout=httpx.Timeout(10.0)) as client,
            client.stream("GET", self.url, headers=self.headers) as response,
        ):
            self.status = response.status_code
            self.response_headers = dict(response.headers)
            fields: dict[str, str] = {}
            for line in response.iter_lines():
                self.raw.append(line)
                if self._stop:
                    return
                if line == "":
                    if "event" in fields or "data" in fields:
                        self.events.append(
                            (
                                fields.get("id"),
                                fields.get("event", "message"),
                                fields.get("data", ""),
                            )
                        )
                    fields = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")

    def __enter__(self) -> Events:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop = True
        self._thread.join(3)

    def wait(self, count: int, timeout: float = 5.0) -> list[tuple[str | None, str, str]]:
        deadline = time.monotonic() + timeout
        while len(self.events) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return list(self.events)


def screen_tag(game: Game) -> str:
    """The event id a viewer of `game` gets: the tag of its screen (never its version)."""
    from adapters.tv.app import tag

    return tag(json.dumps(render_screen(view(game, None), demo.info()), ensure_ascii=False))


def test_events_deliver_each_new_version_live(source: MemorySource, server: LoopbackServer) -> None:
    game = demo.lobby(5)
    server.publish(game, demo.info())
    token = server.call(lambda: source.issue(game.id))
    with Events(server.url(token, "/events")) as stream:
        first = stream.wait(1)
        assert first and first[0][0] == screen_tag(game) and first[0][1] == "screen"
        assert stream.status == 200
        assert stream.response_headers["content-type"].startswith("text/event-stream")
        for key, value in PRIVATE.items():
            assert stream.response_headers[key] == value
        newer = joined(game, "tg:9999", "Zelda")
        began = time.monotonic()
        server.publish(newer)
        events = stream.wait(2)
        latency = time.monotonic() - began
        assert len(events) == 2, events
        ident, kind, data = events[1]
        assert ident == screen_tag(newer) and kind == "screen" and ident != first[0][0]
        payload = json.loads(data)
        assert payload["version"] == ident and "Zelda" in payload["html"]
        assert latency < 1.0
        assert token not in "\n".join(stream.raw)


def test_last_event_id_catch_up(source: MemorySource, server: LoopbackServer) -> None:
    game = demo.lobby(5)
    server.publish(game, demo.info())
    token = server.call(lambda: source.issue(game.id))
    # A viewer that saw another screen gets the current one at once.
    older = screen_tag(demo.lobby(4))
    with Events(server.url(token, "/events"), {"Last-Event-ID": older}) as s:
        events = s.wait(1)
        assert [e[0] for e in events] == [screen_tag(game)]
    # A viewer that is up to date gets nothing until something changes.
    with Events(server.url(token, "/events"), {"Last-Event-ID": screen_tag(game)}) as s:
        time.sleep(0.8)  # several keep-alives pass
        assert s.events == []
        assert any(line.startswith(": keep-alive") for line in s.raw)
        newer = joined(game, "tg:9998", "Yrsa")
        server.publish(newer)
        events = s.wait(1)
        assert [e[0] for e in events] == [screen_tag(newer)]


def test_revoking_a_link_ends_its_stream(source: MemorySource, server: LoopbackServer) -> None:
    game = demo.lobby(5)
    server.publish(game, demo.info())
    token = server.call(lambda: source.issue(game.id))
    with Events(server.url(token, "/events")) as s:
        assert len(s.wait(1)) == 1
        server.call(lambda: source.tokens.revoke(token))
        events = s.wait(2)
        assert events[-1][1] == "gone"
        server.publish(joined(game, "tg:9997", "Xena"))
        time.sleep(0.3)
        assert not any(e[1] == "screen" and "Xena" in e[2] for e in s.events)


def test_a_version_that_looks_the_same_is_not_sent(
    source: MemorySource, server: LoopbackServer
) -> None:
    """Versions whose screen is unchanged (e.g. traitors acting at night) send
    nothing, so the stream's timing cannot tell that anyone acted."""
    game = demo.lobby(5)
    server.publish(game, demo.info())
    token = server.call(lambda: source.issue(game.id))
    with Events(server.url(token, "/events")) as stream:
        assert len(stream.wait(1)) == 1
        same = with_version(game, game.version + 1)
        server.publish(same)
        time.sleep(0.5)
        assert len(stream.events) == 1
        newer = joined(same, "tg:9996", "Wenche")
        server.publish(newer)
        events = stream.wait(2)
        assert [e[0] for e in events] == [screen_tag(game), screen_tag(newer)]


def test_many_viewers_each_get_every_changed_screen_once() -> None:
    """The fan-out in-process: 200 streams on one game, 15 changes; every
    stream gets each version whose screen changed, once and in order, and
    unchanged versions to nobody."""
    import asyncio

    from adapters.tv.app import StatusPage, tag
    from adapters.tv.screens import render_screen
    from gameflow.core.engine import view

    states = [g for g in demo.bot_game(9, seed="fan") if g.phase.name != "lobby"][:16]

    async def run() -> tuple[list[list[str]], list[str]]:
        source = MemorySource()
        source.publish(states[0], demo.info())
        token = source.issue(states[0].id)
        page = StatusPage(source, keepalive=30.0)
        got: list[list[str]] = [[] for _ in range(200)]
        first = tag(
            json.dumps(render_screen(view(states[0], None), demo.info()), ensure_ascii=False)
        )

        async def consume(i: int) -> None:
            async for chunk in page._stream(token, states[0], first):
                if chunk.startswith(b"id: "):
                    got[i].append(chunk.split(b"\n")[0][4:].decode())

        tasks = [asyncio.create_task(consume(i)) for i in range(200)]
        await asyncio.sleep(0.05)
        for game in states[1:]:
            source.publish(game)
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        assert len(page.fanout.hubs) == 1  # one reader of the feed for all 200
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert page.fanout.hubs == {}  # the hub stops with its last viewer
        changed, last = [], render_screen(view(states[0], None), demo.info())
        for game in states[1:]:
            screen = render_screen(view(game, None), demo.info())
            if screen != last:
                changed.append(tag(json.dumps(screen, ensure_ascii=False)))
            last = screen
        return got, changed

    got, changed = asyncio.run(run())
    assert changed and all(g == changed for g in got)


def test_nothing_a_browser_gets_counts_the_inputs() -> None:
    """The page and the stream carry the screen's tag, never the game's version:
    the version counts every input, secret ones too, and its jump over a
    Traitors night would tell the table how many traitors voted. Two states
    that differ only in how many inputs led to them look the same to a TV."""
    import asyncio

    from adapters.tv.app import StatusPage, tag
    from adapters.tv.screens import render_page

    game = next(g for g in demo.bot_game(9, seed="tags") if g.phase.name != "lobby")
    more = with_version(game, game.version + 7)

    async def run() -> tuple[bytes, bytes, str, str]:
        source = MemorySource()
        source.publish(game, demo.info())
        page = StatusPage(source, clock=lambda: 1_800_000_000.0)
        pages = [
            render_page(view(g, None), demo.info(), 0.0, tag(await page.screen(g)))
            for g in (game, more)
        ]
        return await page.frame(game), await page.frame(more), pages[0], pages[1]

    a, b, html_a, html_b = asyncio.run(run())
    assert a == b and html_a == html_b
    assert f"id: {game.version}".encode() not in a
    assert f'data-version="{game.version}"' not in html_a
