"""The internal routes check their whole body (issue #35 item 3), and every game
made is counted in /metrics whichever channel made it (item 6).

A malformed body (a wrong type anywhere, an unknown field, an option out of the
game's range) is a 400 saying what is wrong, and makes nothing: no game, no
count. Games made by signed Twilio webhooks count as the internal route's do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio, inbound
from tests.store_helpers import HOST, run
from tests.test_app import AUTH, runtime, serving

PUBLIC = "https://muldvarp.example.org"
NUMBER = "+4759440000"


def created(metrics: str) -> float:
    line = next(x for x in metrics.splitlines() if x.startswith("muldvarp_games_created_total "))
    return float(line.split()[1])


BAD_NEW_GAMES: list[tuple[Any, str]] = [
    ({"kind": "station", "host": HOST, "options": "str"}, "options"),
    ({"kind": "station", "host": HOST, "key": ["k"]}, "key"),
    ({"kind": "station", "host": {"a": 1}}, "host"),
    ({"kind": "station", "host": "@host"}, "host"),
    ({"kind": "station", "host": ""}, "host"),
    ({"kind": "station"}, "host"),
    ({"kind": ["station"], "host": HOST}, "kind"),
    ({"kind": "chess", "host": HOST}, "unknown game 'chess'"),
    ({"kind": "station", "host": HOST, "lang": "de"}, "lang"),
    ({"kind": "station", "host": HOST, "seed": True}, "seed"),
    ({"kind": "station", "host": HOST, "colour": "red"}, "colour"),
    ({"kind": "station", "host": HOST, "options": {"traps": [1]}}, "options.traps"),
    ({"kind": "station", "host": HOST, "options": {"infiltrators": 1000000}}, "0 to 7"),
    ({"kind": "station", "host": HOST, "options": {"nonsense": 1}}, "no setting called nonsense"),
    ({"kind": "station", "host": HOST, "options": {"timezone": "Mars/Olympus"}}, "time zone"),
    ('{"kind": "station", "host": "tg:host", "options": {"vote_seconds": 1e309}}', "vote_seconds"),
    ('{"kind": "station", "host": "tg:host", "options": {"vote_seconds": NaN}}', "vote_seconds"),
    ("[1, 2]", "not a JSON object"),
    ("{nope", "not a JSON object"),
    (b'{"kind": "station", "host": "\xff"}', "not a JSON object"),
]


def test_a_malformed_new_game_is_a_400_that_says_what_and_makes_nothing(tmp_path: Path) -> None:
    async def main() -> tuple[list[httpx.Response], list[str], str]:
        rt = runtime(tmp_path)
        answers = []
        async with serving(rt) as c:
            for body, _ in BAD_NEW_GAMES:
                if isinstance(body, dict):
                    answers.append(await c.post("/internal/games", json=body, headers=AUTH))
                else:
                    raw = body if isinstance(body, bytes) else body.encode()
                    headers = {**AUTH, "Content-Type": "application/json"}
                    answers.append(await c.post("/internal/games", content=raw, headers=headers))
            active = await rt.store.active_games()
            metrics = (await c.get("/metrics")).text
        return answers, active, metrics

    answers, active, metrics = run(main())
    for (body, says), r in zip(BAD_NEW_GAMES, answers, strict=True):
        assert r.status_code == 400, (body, r.status_code, r.text)
        assert says in r.json()["error"], (body, r.json())
    assert active == []
    assert created(metrics) == 0


def test_a_malformed_input_is_a_400_and_changes_nothing(tmp_path: Path) -> None:
    async def main() -> tuple[list[httpx.Response], dict[str, Any], dict[str, Any]]:
        async with serving(runtime(tmp_path)) as c:
            made = await c.post(
                "/internal/games", json={"kind": "station", "host": HOST}, headers=AUTH
            )
            url = f"/internal/games/{made.json()['id']}/inputs"
            for i in range(5):
                step = {"as": f"tg:{i}", "do": "join", "name": f"P{i}"}
                assert (await c.post(url, json={"step": step}, headers=AUTH)).status_code == 200
            start = {"step": {"as": HOST, "do": "start"}}
            assert (await c.post(url, json=start, headers=AUTH)).json()["status"] == "accepted"
            before = (await c.get(f"/internal/games/{made.json()['id']}", headers=AUTH)).json()
            choose = {"as": "tg:0", "do": "choose", "plan": 1, "job": "outside"}
            bad: list[Any] = [
                {"step": "join"},
                {"step": {"as": "tg:9", "do": ["join"]}},
                {"step": {"as": ["tg:9"], "do": "join", "name": "Zed"}},
                {"step": {"as": "tg:9", "do": "join", "name": "Zed"}, "key": ["k"]},
                {"step": {"as": "tg:0", "do": "start", "phase": "now"}},
                {"step": {**choose, "secret": {"a": 1}}},
                {"step": {**choose, "plan": "one"}},
                {"step": {"as": HOST, "do": "set_option", "name": "traps"}, "extra": 1},
                {},
            ]
            answers = [await c.post(url, json=b, headers=AUTH) for b in bad]
            after = (await c.get(f"/internal/games/{made.json()['id']}", headers=AUTH)).json()
        return answers, before, after

    answers, before, after = run(main())
    assert [r.status_code for r in answers] == [400] * len(answers), [r.text for r in answers]
    assert all(r.json()["error"] for r in answers)
    assert after == before


def test_internal_join_names_are_cleaned(tmp_path: Path) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with serving(runtime(tmp_path)) as c:
            made = await c.post(
                "/internal/games", json={"kind": "station", "host": HOST}, headers=AUTH
            )
            url = f"/internal/games/{made.json()['id']}/inputs"
            step = {"as": "tg:1", "do": "join", "name": "\u202eevil\u200b\u0000nul"}
            first = (await c.post(url, json={"step": step}, headers=AUTH)).json()
            again = {"as": "tg:2", "do": "join", "name": "ÉVILNUL"}
            second = (await c.post(url, json={"step": again}, headers=AUTH)).json()
        return first, second

    first, second = run(main())
    assert first["status"] == "accepted" and first["state"]["players"] == ["tg:1"]
    assert second["status"] == "rejected" and second["code"] == "name_taken"


@pytest.mark.sms
def test_games_made_by_sms_are_counted_in_metrics(tmp_path: Path, fake: FakeTwilio) -> None:
    """Three games made by signed Twilio webhooks (and one redelivered, which
    makes none) count three, as one made by the internal route counts one."""

    async def main() -> tuple[str, list[int], list[str]]:
        rt = runtime(
            tmp_path,
            PUBLIC_BASE_URL=PUBLIC,
            TWILIO_ACCOUNT_SID=ACCOUNT_SID,
            TWILIO_AUTH_TOKEN=AUTH_TOKEN,
            TWILIO_FROM=NUMBER,
            TWILIO_API_BASE_URL=fake.base_url,
        )
        statuses = []
        async with serving(rt) as c:
            texts = [("SM1", "+4790000001"), ("SM2", "+4790000002"), ("SM3", "+4790000003")]
            for sid, phone in [*texts, texts[0]]:  # the first one redelivered
                body, headers = inbound(PUBLIC + "/sms/twilio", sid, phone, NUMBER, "NEW STATION")
                statuses.append(
                    (await c.post("/sms/twilio", content=body, headers=headers)).status_code
                )
            after_sms = (await c.get("/metrics")).text
            made = await c.post(
                "/internal/games", json={"kind": "station", "host": HOST}, headers=AUTH
            )
            assert made.status_code == 201
            again = await c.post(
                "/internal/games",
                json={"kind": "station", "host": "tg:2", "key": "k"},
                headers=AUTH,
            )
            redo = await c.post(
                "/internal/games",
                json={"kind": "station", "host": "tg:2", "key": "k"},
                headers=AUTH,
            )
            assert again.json()["id"] == redo.json()["id"] and redo.json()["duplicate"]
            after_all = (await c.get("/metrics")).text
            games = await rt.store.active_games()
        return json.dumps([created(after_sms), created(after_all)]), statuses, games

    counts, statuses, games = run(main())
    assert statuses == [200, 200, 200, 200]
    assert len(games) == 5
    assert json.loads(counts) == [3.0, 5.0]
