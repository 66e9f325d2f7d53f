"""The game master's /gm over Telegram's wire format (issue #32): every action
has a name that says what it does and one line of help (`Words.action_help`),
"Forbid tonight's murder" is not offered on a day before any death list, and
a host-scored mission's silver is set from the keyboard; /console is in the
command menu and in the host's /help (never a player's)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.fake_telegram import FakeBotApi, Harness, buttons, serving
from tests.store_helpers import run
from tests.telegram_helpers import clocked_store, telegram_bot

HOST = 1
PEOPLE = {11: "Ana", 12: "Bo", 13: "Cy", 14: "Dag", 15: "Eli", 16: "Fred"}


async def started(h: Harness, settings: str = "") -> str:
    """A Traitors game of six, `settings` (/set lines) set in the lobby; its id."""
    code, game_id = await h.new(HOST, "traitors")
    for uid, name in PEOPLE.items():
        await h.command(uid, name, f"/start {code}")
    if settings:
        await h.command(HOST, "Hana", settings)
    await h.command(HOST, "Hana", "/startgame")
    return game_id


def menu_of(h: Harness) -> dict[str, Any]:
    menu = h.api.last_with_buttons(HOST)
    assert menu is not None
    return menu


def test_gm_names_each_action_with_what_it_does(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (_api, h):
            await started(h, "/set death_list on")
            await h.command(HOST, "Hana", "/gm")
            menu = menu_of(h)
            text = menu["text"]
            assert text.startswith("The game master's actions now:"), text
            assert "Murder-free night: Nobody is murdered tonight" in text, text
            assert "Score the mission: Records today's real-life mission" in text, text
            assert "Call the final round table: Brings the final round table forward" in text
            assert "Murder without a vote" not in text
            labels = [label for label, _ in buttons(menu)]
            assert "Murder-free night" in labels, labels
            # day 1, the death list in play for tonight but not written yet: no veto
            assert not any("|forbid_murder|" in data for _, data in buttons(menu))
            assert "Forbid" not in text

    run(go())


def test_gm_in_norwegian_explains_too(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (_api, h):
            await started(h, "/lang nb")
            await h.command(HOST, "Hana", "/gm")
            text = menu_of(h)["text"]
            lines = text.splitlines()
            assert len(lines) >= 5, text
            # every action's line has its help after the name, in Norwegian
            assert all(": " in line for line in lines[1:-1]), text
            assert "Records" not in text and "Nobody is murdered" not in text, text

    run(go())


def test_a_mission_is_scored_with_its_silver_from_the_keyboard(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (_api, h):
            game_id = await started(h)
            await h.command(HOST, "Hana", "/gm")
            menu = menu_of(h)
            score = next(data for _, data in buttons(menu) if "|score|" in data)
            assert await h.press(HOST, "Hana", menu, score) is None
            editor = menu_of(h)
            assert "Silver the mission earned:" in editor["text"], editor["text"]
            twenty = next(data for label, data in buttons(editor) if label == "20")
            await h.press(HOST, "Hana", editor, twenty)
            editor = menu_of(h)
            for name in ("Ana", "Bo"):
                pick = next(
                    data for label, data in buttons(editor) if re.sub(r"^\W+ ", "", label) == name
                )
                await h.press(HOST, "Hana", editor, pick)
                editor = menu_of(h)
            done = [
                data for label, data in buttons(editor) if data.endswith("|!") or "Done" in label
            ]
            assert done, buttons(editor)
            await h.press(HOST, "Hana", editor, done[0])
            editor = menu_of(h)
            assert "Silver the mission earned: 20" in editor["text"], editor["text"]
            send = next(data for _, data in buttons(editor) if data.startswith("s|"))
            await h.press(HOST, "Hana", editor, send)
            game = await h.service.load(game_id)
            m = game.rules.mission
            assert m.scored and m.silver == 20, m
            assert sorted(game.names[s] for s in m.access) == ["Ana", "Bo"]

    run(go())


def test_console_is_in_the_menu_and_in_the_hosts_help_only(tmp_path: Path) -> None:
    async def go() -> None:
        clock, store = clocked_store(tmp_path, "menu.sqlite3")
        async with serving(FakeBotApi()) as api, Harness(api, store, clock) as h:
            for code, line in (
                ("en", "Host: your game master's console, a private link"),
                ("nb", "Vert: spillmesterkonsollen din, en privat lenke"),
                ("sr", "Domaćin: tvoja konzola voditelja igre, privatni link"),
            ):
                menu = {c["command"]: c["description"] for c in api.menus[code]}
                assert menu.get("console") == line, (code, menu)
            code, _ = await h.new(HOST, "traitors")
            for uid, name in PEOPLE.items():
                await h.command(uid, name, f"/start {code}")
            console = "/console: your game master's console, a private web page"
            await h.command(HOST, "Hana", "/help")
            assert any(line.startswith(console) for line in api.texts(HOST)[-1].splitlines())
            await h.command(11, "Ana", "/help")
            assert console not in api.texts(11)[-1]
            await h.command(HOST, "Hana", "/startgame")
            await h.command(HOST, "Hana", "/help")
            lines = api.texts(HOST)[-1].splitlines()
            assert any(line.startswith(console) for line in lines), lines
            await h.command(11, "Ana", "/help")
            assert console not in api.texts(11)[-1]
        await store.close()

    run(go())
