"""The game's story in the product's app (issue #32, item 6): `bots.app` mounts
`/story/<token>` beside the TV page, opened by the TV link's token only once the
game is over; its QR code names the story on the service's public address; its
token stays out of the logs. In process, through httpx's ASGI transport (the
story's pages in a browser: tests/test_story_browser.py)."""

from __future__ import annotations

from pathlib import Path

from adapters.story.app import qr_svg
from adapters.tv import logfilter
from gameflow.core import actions as A
from tests.store_helpers import HOST, run
from tests.test_app import on_tv, runtime, serving


def test_the_story_opens_with_the_tv_token_once_the_game_is_over(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with serving(rt) as c:
            made, token = await on_tv(rt, "station", "en", 6)
            game_id = made.game.id
            other = await rt.tv.issue(game_id)
            assert (await c.get(f"/story/{token}")).status_code == 404  # the lobby
            await rt.service.submit(game_id, A.Start(HOST))
            assert (await c.get(f"/tv/{token}")).status_code == 200
            running = await c.get(f"/story/{token}")
            assert running.status_code == 404 and "Name3" not in running.text
            assert (await c.get(f"/story/{token}/qr.svg")).status_code == 404
            await rt.service.submit(game_id, A.End(HOST))

            page = await c.get(f"/story/{token}")
            assert page.status_code == 200
            assert page.headers["cache-control"] == "no-store"
            assert page.headers["referrer-policy"] == "no-referrer"
            assert "The host ended the game: no team won." in page.text
            assert all(f"Name{i}" in page.text for i in range(6))
            assert game_id not in page.text and token not in page.text
            # Every TV link of the game opens its story; nothing else does.
            assert (await c.get(f"/story/{other}")).status_code == 200
            assert (await c.get("/story/" + "x" * 43)).status_code == 404
            assert (await c.get("/story/not-a-token")).status_code == 404
            css = await c.get("/story/static/story.css")
            assert css.status_code == 200 and "text/css" in css.headers["content-type"]

            qr = await c.get(f"/story/{token}/qr.svg")
            assert qr.status_code == 200 and qr.headers["content-type"] == "image/svg+xml"
            url = rt.settings.tv_base_url().removesuffix("/tv/") + f"/story/{token}"
            assert qr.content == qr_svg(url)
            assert qr_svg(url) != qr_svg(url + "x")

    run(main())


def test_a_game_never_dealt_has_no_story(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with serving(rt) as c:
            made, token = await on_tv(rt, "traitors", "nb", 6)
            await rt.service.submit(made.game.id, A.End(HOST))
            assert (await rt.store.load(made.game.id)).over  # type: ignore[union-attr]
            assert (await c.get(f"/story/{token}")).status_code == 404

    run(main())


def test_story_tokens_stay_out_of_the_logs() -> None:
    token = "A" * 43
    assert logfilter.redact(f"GET /story/{token} HTTP/1.1") == "GET /story/<redacted> HTTP/1.1"
    assert logfilter.redact(f"GET /story/{token}/qr.svg") == "GET /story/<redacted>/qr.svg"
    assert logfilter.redact("GET /story/static/story.css") == "GET /story/static/story.css"
    assert logfilter.redact(f"GET /tv/{token}/events") == "GET /tv/<redacted>/events"
