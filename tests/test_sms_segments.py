"""SMS segments: the GSM-7 / UCS-2 arithmetic, and every template of the SMS
adapter in every language, with realistic names, within two segments (Norwegian
and English in GSM-7; Serbian in GSM-7 once transliterated)."""

from __future__ import annotations

import pytest

from adapters.sms import render as R
from adapters.sms import sheet as S
from adapters.sms.segments import encoding, is_gsm7, prepare, segments, transliterate
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.games.station.actions import Choose

pytestmark = pytest.mark.sms

NAMES = {
    "nb": [
        "Kristoffer",
        "Ingeborg",
        "Sigurd",
        "Åse",
        "Bjørnar",
        "Torbjørn",
        "Ragnhild",
        "Gunnhild",
        "Solveig",
        "Øystein",
        "Margrethe",
        "Halvard",
        "Jørgen",
        "Ingrid",
        "Aleksander",
    ],
    "sr": [
        "Đorđe",
        "Milica",
        "Aleksandar",
        "Jelena",
        "Nikola",
        "Dragana",
        "Miloš",
        "Snežana",
        "Vladimir",
        "Ljubica",
        "Stefan",
        "Katarina",
        "Branislav",
        "Živko",
        "Tijana",
    ],
}
NAMES["en"] = NAMES["nb"]


def test_segment_arithmetic() -> None:
    assert segments("") == 0
    assert segments("a" * 160) == 1 and segments("a" * 161) == 2
    assert segments("a" * 306) == 2 and segments("a" * 307) == 3
    assert is_gsm7("Blåbær på Ærøy, Øystein!") and encoding("æøåÆØÅ") == "gsm7"
    assert segments("€" * 80) == 1 and segments("€" * 81) == 2  # extension: two septets
    assert encoding("Đorđe") == "ucs2"
    assert segments("č" * 70) == 1 and segments("č" * 71) == 2 and segments("č" * 135) == 3
    assert segments("😀" * 35) == 1 and segments("😀" * 36) == 2  # surrogate pairs
    assert transliterate("Čačak, Ćuprija, Đorđe, Šabac, Žabalj") == (
        "Cacak, Cuprija, Djordje, Sabac, Zabalj"
    )
    assert prepare("«Send valget» – nå", "nb", False) == '"Send valget" - nå'
    assert prepare("Đorđe", "sr", False) == "Đorđe"
    assert prepare("Đorđe", "nb", True) == "Djordje"


def _game(lang: str, n: int) -> Game:
    game = new_game("station", "g", "tg:host", "seed", lang=lang, options={"auto_advance": False})
    ids = [f"sms:{i:016x}" for i in range(n)]
    for pid, name in zip(ids, NAMES[lang][:n], strict=True):
        game = _ok(apply(game, A.Join(pid, None, name), 1.0))
    return _ok(apply(game, A.Start("tg:host"), 1.0))


def _ok(result: object) -> Game:
    assert isinstance(result, Accepted), result
    state: Game = result.state
    return state


def _menu(game: Game, player: str) -> str:
    sh = S.sheet(game, player)
    assert sh is not None
    return S.menu_text(game, sh, game.lang)


def _longest_prompts(game: Game) -> tuple[str, str]:
    """The longest choice prompt (an infiltrator's) and vote menu of the game."""
    st = game.rules
    spy = next(p for s, p in enumerate(game.players) if st.infiltrator[s])
    choose = _menu(game, spy)
    for p in game.players:
        game = _ok(apply(game, Choose(p, None, 1, "guard"), 2.0))
    game = _ok(apply(game, A.Advance("tg:host", game.phase.seq), 3.0))  # mission -> discussion
    game = _ok(apply(game, A.Advance("tg:host", game.phase.seq), 4.0))  # discussion -> vote
    vote = _menu(game, game.players[0])
    assert vote and choose
    return choose, vote


@pytest.mark.parametrize("lang", ["nb", "en", "sr"])
@pytest.mark.parametrize("players", [7, 15])
def test_every_template_fits_two_segments(lang: str, players: int) -> None:
    game = _game(lang, players)
    choose, vote = _longest_prompts(game)
    hints = {"hint": max(choose, vote, key=len)}
    rendered: dict[str, str] = {}
    for msgid, params in R.TEMPLATES.items():
        values = {k: v for k, v in params.items() if v != ""}
        if msgid == R.REPLY:
            rendered[msgid] = choose
            continue
        if msgid == R.NUMBERED:
            rendered[msgid] = vote
            continue
        if "hint" in params:
            values.update(hints)
        if "field" in params:
            values["field"] = R.field_name("partner", lang)
        if "name" in values:
            values["name"] = max(NAMES[lang], key=len)
        rendered[msgid] = R.t(msgid, lang, **values)
    rendered["roster"] = ", ".join(f"{n} *67 STOP" for n in NAMES[lang][:players])
    report = []
    for msgid, text in rendered.items():
        sent = prepare(text, lang, transliterate_sr=True)
        plain = prepare(text, lang, transliterate_sr=False)
        report.append((segments(sent), encoding(plain), msgid[:40]))
        assert segments(sent) <= 2, (msgid, sent)
        if lang in ("nb", "en"):
            assert is_gsm7(plain), (msgid, plain)
        else:
            assert is_gsm7(sent), (msgid, sent)
    print(lang, players, sorted(report, reverse=True)[:3])
