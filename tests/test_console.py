"""The game master's console over HTTP (issue #32 item 1), in process: its
links (one game each, only a hash stored, rotation), its protections against
cross-site requests, its controls (offered only when they apply, applied once
per request id through the game service) and which console sees secrets.
The browser tests are in tests/test_console_browser.py."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from adapters.console.tokens import HASH_ATTR
from bots.app import Runtime, create_app
from gameflow.core import actions as A
from gameflow.core.engine import view
from gameflow.core.state import HOST_VIEW, Game
from tests.console_helpers import HOST, made, path_of, runtime
from tests.store_helpers import run

BASE = "http://muldvarp.test"
SAME = {"Origin": BASE, "Sec-Fetch-Site": "same-origin", "Accept": "application/json"}


@asynccontextmanager
async def client(rt: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(rt)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            yield c


def csrf_of(html: str) -> str:
    found = re.search(r'<meta name="csrf" content="([^"]+)"', html)
    assert found is not None, html[:500]
    return found.group(1)


def kinds_of(html: str) -> list[str]:
    return re.findall(r'<details class="control[^"]*" data-kind="([a-z_]+)"', html)


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


async def page(c: httpx.AsyncClient, path: str) -> tuple[str, str]:
    r = await c.get(path)
    assert r.status_code == 200, r.text[:300]
    return r.text, csrf_of(r.text)


async def console(c: httpx.AsyncClient, rt: Runtime, game: Game) -> tuple[str, str, str]:
    """A new console link of `game` opened: its path, page and CSRF token."""
    path = path_of(await rt.console_link(game))
    html, csrf = await page(c, path)
    return path, html, csrf


def test_a_link_opens_its_own_game_only_and_only_its_hash_is_kept(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with client(rt) as c:
            station = await made(rt, "station", names=("Ana", "Bo", "Cy", "Dag", "Eli"))
            traitors = await made(rt, "traitors", names=("Per", "Kari", "Ola", "Liv", "Siv", "Tor"))
            assert rt.console is not None
            one = path_of(await rt.console_link(station))
            other = path_of(await rt.console_link(traitors))
            html, _ = await page(c, one)
            shown = text_of(html)
            assert all(n in shown for n in ("Ana", "Bo", "Cy", "Dag", "Eli"))
            assert not any(n in shown for n in ("Per", "Kari", "Ola", "Liv", "Siv", "Tor"))
            assert "Station" in shown and "Traitors" not in shown
            # one game's secret under another game's id opens nothing
            secret = one.rsplit(".", 1)[1]
            forged = other.rsplit(".", 1)[0] + "." + secret
            for bad in (forged, one + "x", one[:-1], "/console/nothing", one.replace(".", "-")):
                assert (await c.get(bad)).status_code == 404, bad
            # only a hash is kept, never the secret
            stored = await rt.store.get_attr(station.id, HASH_ATTR)
            assert stored is not None and secret not in stored and len(stored) == 64
            # a second link works beside the first; rotating kills both
            second = path_of(await rt.console_link(station))
            assert (await c.get(one)).status_code == 200
            assert (await c.get(second)).status_code == 200
            fresh = path_of(await rt.console_link(station, True))
            assert (await c.get(one)).status_code == 404
            assert (await c.get(second)).status_code == 404
            assert (await c.get(f"{one}/events")).status_code == 404
            assert (await c.get(fresh)).status_code == 200
            assert (await c.get(other)).status_code == 200  # the other game's link lives on

    run(main())


def test_cross_site_posts_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with client(rt) as c:
            game = await made(rt, "station")
            elsewhere = await made(rt, "resistance")
            path, _, csrf = await console(c, rt, game)
            _, foreign = await page(c, path_of(await rt.console_link(elsewhere)))
            form = {"csrf": csrf, "rid": "request-0001", "kind": "pause"}
            attempts: list[tuple[dict[str, str], dict[str, str]]] = [
                ({**SAME, "Sec-Fetch-Site": "cross-site"}, form),
                ({**SAME, "Sec-Fetch-Site": "same-site"}, form),
                ({**SAME, "Origin": "https://evil.example"}, form),
                ({**SAME, "Origin": "null"}, form),
                (SAME, {**form, "csrf": ""}),
                (SAME, {k: v for k, v in form.items() if k != "csrf"}),
                (SAME, {**form, "csrf": csrf[:-1] + ("0" if csrf[-1] != "0" else "1")}),
                (SAME, {**form, "csrf": foreign}),  # another console's token
            ]
            for headers, data in attempts:
                r = await c.post(path, data=data, headers=headers)
                assert r.status_code == 403, (headers, data, r.text)
            after = await rt.store.load(game.id)
            assert after is not None and after.version == game.version and not after.phase.paused
            # the same request, same-site with its page's token, applies
            r = await c.post(path, data=form, headers=SAME)
            assert r.status_code == 200 and r.json()["ok"], r.text

    run(main())


def test_a_control_applies_once_per_request_id(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with client(rt) as c:
            game = await made(rt, "resistance")
            path, html, csrf = await console(c, rt, game)
            assert "pause" in kinds_of(html) and "resume" not in kinds_of(html)
            form = {"csrf": csrf, "rid": "tap-twice-01", "kind": "pause"}
            first = await c.post(path, data=form, headers=SAME)
            assert first.json() == {"ok": True, "notice": "Done: Pause"}
            again = await c.post(path, data=form, headers=SAME)  # a double tap, a resend
            assert again.json() == {"ok": True, "notice": "Already done."}
            after = await rt.store.load(game.id)
            assert after is not None and after.phase.paused and after.version == game.version + 1
            html, _ = await page(c, path)
            assert "resume" in kinds_of(html) and "pause" not in kinds_of(html)
            # without JavaScript the form posts the same way and gets the page back
            plain = {**SAME, "Accept": "text/html"}
            r = await c.post(
                path, data={**form, "rid": "plain-form-1", "kind": "resume"}, headers=plain
            )
            assert r.status_code == 200 and "Done: Resume" in r.text
            resumed = await rt.store.load(game.id)
            assert resumed is not None and not resumed.phase.paused

    run(main())


def test_a_control_that_cannot_apply_is_not_offered_nor_taken(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with client(rt) as c:
            lobby = await made(rt, "station", start=False, names=("Ana", "Bo", "Cy"))
            # three of five players: no start, only removing a player
            path, html, csrf = await console(c, rt, lobby)
            assert kinds_of(html) == ["kick"]
            r = await c.post(
                path, data={"csrf": csrf, "rid": "start-too-soon", "kind": "start"}, headers=SAME
            )
            assert r.status_code == 409 and not r.json()["ok"]
            # a running Station mission: nobody has answered, so no early advance
            game = await made(rt, "station")
            path, html, csrf = await console(c, rt, game)
            assert set(kinds_of(html)) == {"pause", "gone", "end"}, kinds_of(html)
            for kind in ("advance_early", "resume", "start", "set_option", "murder_free"):
                data = {"csrf": csrf, "rid": f"not-now-{kind}", "kind": kind}
                r = await c.post(path, data=data, headers=SAME)
                assert r.status_code == 409, (kind, r.text)
            after = await rt.store.load(game.id)
            assert after is not None and after.version == game.version

    run(main())


def tv_page(html: str) -> str:
    """The TV page without what moves with the wall clock (its timer)."""
    html = re.sub(r'data-now="[^"]*"', "", html)
    return re.sub(r">\d+(:\d\d)+<", "><", html)


def _role_lines(game: Game) -> list[str]:
    st: Any = game.rules
    return [f"{game.names[s]}: {st.role[s]}" for s in range(len(game.players))]


def test_secrets_reach_only_the_non_playing_game_masters_console(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with client(rt) as c:
            gm_game = await made(rt, "traitors")
            played = await made(rt, "traitors", host_plays=True)
            station = await made(rt, "station", host_plays=True)
            for game in (gm_game, played, station):
                tv = await rt.tv.issue(game.id)
                before_tv = tv_page((await c.get(f"/tv/{tv}")).text)
                viewers = [None, HOST_VIEW, *game.players]
                before = [view(game, v) for v in viewers]
                html, _ = await page(c, path_of(await rt.console_link(game)))
                shown = text_of(html)
                after = await rt.store.load(game.id)
                assert after == game  # opening the console changes nothing
                assert [view(after, v) for v in viewers] == before
                after_tv = tv_page((await c.get(f"/tv/{tv}")).text)
                assert after_tv == before_tv
                roles = _role_lines(game) if game.kind == "traitors" else []
                if game is gm_game:
                    assert "you see every secret" in shown
                    assert "Roles" in shown and "Shield:" in shown
                    for line in roles:
                        assert line in shown, line
                else:
                    assert "you see only what the table sees" in shown
                    assert "Roles" not in shown and ": traitor" not in shown
                    assert "Shield:" not in shown
                    for line in roles:
                        assert line not in shown, line
                # the TV never shows a role before the end
                assert "Roles" not in before_tv

    run(main())


def test_a_game_over_offers_no_controls(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with client(rt) as c:
            game = await made(rt, "station")
            path, _, csrf = await console(c, rt, game)
            r = await c.post(
                path, data={"csrf": csrf, "rid": "the-end-0001", "kind": "end"}, headers=SAME
            )
            assert r.json()["ok"], r.text
            html, _ = await page(c, path)
            assert kinds_of(html) == [] and "The game is over." in text_of(html)
            out = await rt.service.submit(game.id, A.Pause(HOST))
            assert out.rejected is not None

    run(main())


def test_a_campaign_window_moves_to_a_time_typed_in(tmp_path: Path) -> None:
    async def main() -> None:
        from gameflow.core import campaign
        from gameflow.core.engine import legal
        from gameflow.core.legal import find

        rt = runtime(tmp_path)
        async with client(rt) as c:
            game = await made(rt, "traitors")  # a campaign by default
            spec = find(legal(game, HOST), "move_window")
            assert spec is not None
            window = str(spec.options("window")[-1])
            option = next(o for name, _, o in campaign.declared(game) if name == window)
            path, html, csrf = await console(c, rt, game)
            assert "move_window" in kinds_of(html) and 'type="time"' in html
            form = {"csrf": csrf, "kind": "move_window", "f:window": f'"{window}"'}
            bad = await c.post(
                path, data={**form, "rid": "move-bad-01", "f:clock": "25:99"}, headers=SAME
            )
            assert bad.status_code == 409 and not bad.json()["ok"], bad.text
            empty = await c.post(path, data={**form, "rid": "move-empty-1"}, headers=SAME)
            assert empty.status_code == 409
            same = await rt.store.load(game.id)
            assert same is not None and same.version == game.version
            r = await c.post(
                path, data={**form, "rid": "move-good-01", "f:clock": "21:30"}, headers=SAME
            )
            assert r.json() == {"ok": True, "notice": "Done: Move a daily window"}, r.text
            after = await rt.store.load(game.id)
            assert after is not None and after.option(option) == "21:30"

    run(main())


def test_a_console_link_never_reaches_the_access_log() -> None:
    from adapters.tv import logfilter

    line = 'GET /console/g1.Abc_def-0123456789abcdefghijklmnopqrstuvwxyzABCD/events HTTP/1.1" 200'
    assert logfilter.redact(line) == 'GET /console/<redacted>/events HTTP/1.1" 200'
    assert logfilter.redact("GET /console/static/console.css") == "GET /console/static/console.css"


def test_the_game_master_option_is_chosen_in_the_lobby_and_read_by_the_console(
    tmp_path: Path,
) -> None:
    """`game_master` (watches/plays) is an option of every game, set in the
    lobby like any other and frozen at the start; the console shows which it
    is and shows secrets only for `watches` with a host who holds no seat."""

    async def main() -> None:
        rt = runtime(tmp_path)
        async with client(rt) as c:
            lobby = await made(rt, "traitors", start=False)
            assert lobby.option("game_master") == "watches"  # the Traitors' default
            path = path_of(await rt.console_link(lobby))
            shown = text_of((await page(c, path))[0])
            assert "you see every secret" in shown and "setting game_master" in shown
            bad = await rt.service.submit(lobby.id, A.SetOption(HOST, None, "game_master", "x"))
            assert bad.rejected is not None  # only plays or watches
            out = await rt.service.submit(lobby.id, A.SetOption(HOST, None, "game_master", "plays"))
            assert out.accepted, out.rejected
            started = await rt.service.submit(lobby.id, A.Start(HOST))
            assert started.accepted
            game = started.game
            shown = text_of((await page(c, path))[0])
            assert "you see only what the table sees" in shown
            assert "Roles" not in shown and "Shield:" not in shown
            for line in _role_lines(game):
                assert line not in shown, line
            assert "setting game_master" not in shown  # no change after the start
            late = await rt.service.submit(
                game.id, A.SetOption(HOST, None, "game_master", "watches")
            )
            assert late.rejected is not None
            # a seated host never sees secrets, whatever the option says
            seated = await made(rt, "traitors", host_plays=True)
            assert seated.option("game_master") == "watches"
            shown = text_of((await page(c, path_of(await rt.console_link(seated))))[0])
            assert "you hold a seat" in shown and "Roles" not in shown
            for line in _role_lines(seated):
                assert line not in shown, line
            # Station plays by default; watching a game with no secret view shows none
            station = await made(rt, "station", start=False)
            assert station.option("game_master") == "plays"
            out = await rt.service.submit(
                station.id, A.SetOption(HOST, None, "game_master", "watches")
            )
            assert out.accepted
            shown = text_of((await page(c, path_of(await rt.console_link(out.game))))[0])
            assert "keeps no secret view" in shown and "Roles" not in shown

    run(main())


def test_the_host_marks_a_player_gone_and_back(tmp_path: Path) -> None:
    """Issue #32 item 1: a player who left for good. Marked gone through the
    game service (as /gone does), it is announced to the table; the console
    then offers to bring them back, and that applies."""

    async def main() -> None:
        from gameflow.core.away import gone_players
        from gameflow.core.events import Kind
        from gameflow.i18n import render

        rt = runtime(tmp_path)
        async with client(rt) as c:
            game = await made(rt, "station")
            ana = game.players[game.names.index("Ana")]
            path, html, csrf = await console(c, rt, game)
            assert "gone" in kinds_of(html) and "not_gone" not in kinds_of(html)
            assert "Mark a player gone" in text_of(html)
            out = await rt.service.submit(game.id, A.Gone(HOST, None, ana))
            assert out.accepted, out.rejected
            said = [render(e.text, "en") for e in out.events if e.kind == Kind.ANNOUNCE and e.text]
            assert said == ["The host marked Ana as gone: the game answers for them."]
            assert gone_players(out.game) == (ana,)
            html, csrf = await page(c, path)
            assert "not_gone" in kinds_of(html)
            form = {"csrf": csrf, "rid": "back-again-1", "kind": "not_gone", "f:target": f'"{ana}"'}
            r = await c.post(path, data=form, headers=SAME)
            assert r.json() == {"ok": True, "notice": "Done: Bring a gone player back"}, r.text
            after = await rt.store.load(game.id)
            assert after is not None and gone_players(after) == ()
            html, _ = await page(c, path)
            assert "not_gone" not in kinds_of(html)

    run(main())


def test_the_host_mutes_and_unmutes_a_players_talk(tmp_path: Path) -> None:
    """Issue #33 item 4: in a game with talk through the bot the console
    mutes a player's talk (service/talk.py, as /mute does), once per request
    id; their lines are refused with HUSHED until it unmutes them."""

    async def main() -> None:
        from service import talk

        rt = runtime(tmp_path)
        async with client(rt) as c:
            game = await made(rt, "resistance")
            path, html, _ = await console(c, rt, game)
            assert "talk_mute" not in kinds_of(html)  # the table talks in the room
            game = await made(rt, "resistance", start=False)
            assert (
                await rt.service.submit(game.id, A.SetOption(HOST, name="table_talk", value=True))
            ).accepted
            assert (await rt.service.submit(game.id, A.Start(HOST))).accepted
            path, html, csrf = await console(c, rt, game)
            assert {"talk_mute", "talk_unmute"} <= set(kinds_of(html))
            assert "Mute a player&#39;s talk" in text_of(html)
            bo = game.players[game.names.index("Bo")]
            form = {"csrf": csrf, "rid": "mute-bo-0001", "kind": "talk_mute", "f:target": f'"{bo}"'}
            r = await c.post(path, data=form, headers=SAME)
            assert r.json()["ok"] and "Bo is muted" in r.json()["notice"], r.text
            said = await rt.service.talk(game.id, bo, "let me speak", key="tg:1")
            assert said.status == talk.REFUSED and said.reply is not None
            assert said.reply.msgid == talk.HUSHED
            assert (await rt.service.talk(game.id, game.players[0], "hi", key="tg:2")).to
            unmute = {**form, "rid": "unmute-bo-01", "kind": "talk_unmute"}
            r = await c.post(path, data=unmute, headers=SAME)
            assert r.json() == {"ok": True, "notice": "Bo may talk again."}, r.text
            again = await c.post(path, data=form, headers=SAME)  # resent: changes nothing
            assert again.json() == {"ok": True, "notice": "Already done."}
            said = await rt.service.talk(game.id, bo, "thank you", key="tg:3")
            assert said.status == talk.SENT, said
            # a player who is not in the game, or no CSRF token: nothing changes
            stray = {**form, "rid": "stray-target", "f:target": '"tg:999"'}
            assert (await c.post(path, data=stray, headers=SAME)).status_code == 409
            forged = {**form, "rid": "forged-0001", "csrf": "x.y"}
            assert (await c.post(path, data=forged, headers=SAME)).status_code == 403
            assert (
                await rt.service.talk(game.id, bo, "still here", key="tg:4")
            ).status == talk.SENT

    run(main())
