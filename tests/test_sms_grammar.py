"""The SMS text grammar: commands in three languages, menus from legal actions,
the compact one-line Station choice, and no input that can make it raise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.sms import grammar as G
from adapters.sms import opt_out
from adapters.sms import render as R
from adapters.sms import sheet as S
from gameflow.core.state import Game
from tests.station_helpers import start

pytestmark = pytest.mark.sms


@pytest.mark.parametrize(
    ("text", "kind", "args"),
    [
        ("NEW STATION", "new", ("station",)),
        ("ny stasjon", "new", ("station",)),
        ("Nova stanica", "new", ("station",)),
        ("new resistance", "new", ("resistance",)),
        ("NY FORRÆDERE", "new", ("traitors",)),
        ("nova izdajnici", "new", ("traitors",)),
        ("new sta", "new", ("station",)),
        ("JOIN kprt Ana Marie", "join", ("KPRT", "Ana Marie")),
        ("delta KPRT Åse", "join", ("KPRT", "Åse")),
        ("bli med kprt Ola", "join", ("KPRT", "Ola")),
        ("Uđi KPRT Đorđe", "join", ("KPRT", "Đorđe")),
        ("udji kprt Ana", "join", ("KPRT", "Ana")),
        ("START GAME", "start", ()),
        ("start spill", "start", ()),
        ("Kjør", "start", ()),
        ("KJOR", "start", ()),
        ("počni", "start", ()),
        ("POCNI", "start", ()),
        ("hjelp", "help", ()),
        ("POMOĆ", "help", ()),
        ("status", "status", ()),
        ("Stanje", "status", ()),
        ("PAUSE", "pause", ()),
        ("pauza", "pause", ()),
        ("fortsett", "resume", ()),
        ("Nastavi", "resume", ()),
        ("advance", "advance", ()),
        ("neste", "advance", ()),
        ("DALJE", "advance", ()),
        ("END GAME", "end", ()),
        ("avslutt", "end", ()),
        ("KRAJ", "end", ()),
        ("Završi", "end", ()),
    ],
)
def test_commands_in_every_language(text: str, kind: str, args: tuple[str, ...]) -> None:
    cmd = G.parse(text)
    assert (cmd.kind, cmd.args) == (kind, args)


def test_new_takes_its_language_from_the_keyword() -> None:
    assert G.parse("NY STASJON").lang == "nb"
    assert G.parse("NOVA STANICA").lang == "sr"
    assert G.parse("NEW STATION").lang == "en"
    assert G.parse("NEW STATION NB").lang == "nb"
    assert G.parse("NEW").kind == "new_usage"
    assert G.parse("JOIN KPRT").kind == "join_usage"


def test_carrier_keywords_are_control_messages_never_commands() -> None:
    assert opt_out.classify(" stop ") == opt_out.STOP
    assert opt_out.classify("End") == opt_out.STOP
    assert opt_out.classify("UNSUBSCRIBE") == opt_out.STOP
    assert opt_out.classify("start") == opt_out.RESUME
    assert opt_out.classify("YES") == opt_out.RESUME
    assert opt_out.classify("help") == opt_out.HELP
    assert opt_out.classify("info.") == opt_out.HELP
    # A bare START or END is the carrier's; the game's own forms take a second word.
    assert G.parse("START").kind == G.UNKNOWN
    assert G.parse("END").kind == G.UNKNOWN
    for text in ("START GAME", "END GAME", "stop the vote", "2 g", "help me"):
        assert opt_out.classify(text) is None


def test_fold_ignores_case_and_diacritics() -> None:
    assert G.fold("Kjør ÆRØ Ćevap Đorđe Šuma Žica Åse") == "kjor aero cevap djordje suma zica ase"


def _game(lang: str = "en") -> Game:
    game = start(7, infiltrators=["ana", "bo", "cy"]).game
    return game._replace(lang=lang)


@pytest.mark.parametrize(
    ("text", "who", "values"),
    [
        ("2 V BO S", "ana", (2, "guard", "bo", "sabotage")),
        ("2 v bo", "ana", (2, "guard", "bo", None)),
        ("2 g", "dag", (2, "guard", None, None)),
        ("3 r - s", "ana", (3, "radio", None, "sabotage")),
        ("3, radio, -, sabotasje", "ana", (3, "radio", None, "sabotage")),
        ("1 ute bo", "dag", (1, "outside", "bo", None)),
        ("1 OUT Fred", "dag", (1, "outside", "fred", None)),
        ("1 teren gro", "dag", (1, "outside", "gro", None)),
        ("1 straža gro", "dag", (1, "guard", "gro", None)),
        ("1 straza gro sabotaža", "ana", (1, "guard", "gro", "sabotage")),
        ("2 vakt ingen", "dag", (2, "guard", None, None)),
        ("2 S BO SA", "ana", (2, "guard", "bo", "sabotage")),  # sr: straža, sabotaža
        ("2 V BO S", "ana", (2, "guard", "bo", "sabotage")),  # nb: vakt, sabotasje
    ],
)
def test_the_compact_station_choice(text: str, who: str, values: tuple[object, ...]) -> None:
    game = _game()
    found = G.match(text, R.menus(game, who))
    assert isinstance(found, G.Matched), found
    assert found.menu.kind == "choose"
    assert tuple(found.values[k] for k in ("plan", "job", "partner", "secret")) == values


@pytest.mark.parametrize(
    ("text", "who", "reason", "field"),
    [
        ("2 V BO S", "dag", "unclear", None),  # a loyal player has no secret action
        ("4 v", "dag", "unclear", "plan"),
        ("2 q", "dag", "unclear", "job"),
        ("x", "dag", "unclear", "plan"),
        ("", "dag", "nothing", None),
        ("2 r dag", "dag", "unclear", None),  # not yourself as partner
        ("1 2 3 4 5 6 7 8 9 10 11 12 13", "dag", "too_long", None),
    ],
)
def test_answers_that_fit_no_menu(text: str, who: str, reason: str, field: str | None) -> None:
    found = G.match(text, R.menus(_game(), who))
    assert found == G.Unmatched(reason, field)


def test_a_line_read_two_ways_is_ambiguous() -> None:
    game = start(7, infiltrators=["ana", "bo", "cy"]).game
    game = game._replace(names=("Ana", "Bo", "Cy", "Dag", "Eli", "Sara", "Gro"))
    menus = R.menus(game, "ana")
    assert G.match("2 v s", menus) == G.Unmatched("ambiguous")  # Sara, or sabotage?
    found = G.match("2 v - s", menus)
    assert isinstance(found, G.Matched) and found.values["secret"] == "sabotage"
    found = G.match("2 v sara", menus)
    assert isinstance(found, G.Matched) and found.values["partner"] == "fred"


def test_numbered_menus_come_from_legal_actions() -> None:
    d = start(7, infiltrators=["ana", "bo", "cy"])
    d.to_vote()
    game = d.game
    sh = S.sheet(game, "dag")
    assert sh is not None and sh.style == S.OPTIONS
    text = S.text(game, sh, "nb")
    assert text.endswith("Stem på: 1 Ana 2 Bo 3 Cy 4 Eli 5 Fred 6 Gro 7 Ingen. Svar med tallet.")
    for answer, target in [("1", "ana"), ("7", None), ("gro", "gro"), ("-", None), ("f", "fred")]:
        found = S.read(game, sh, "dag", answer)
        assert not isinstance(found, G.Unmatched), answer
        assert getattr(found, "target", "?") == target, (answer, found)
    assert S.read(game, sh, "dag", "8") == G.Unmatched("unclear", "for")
    assert S.read(game, sh, "dag", "dag") == G.Unmatched("unclear", "for")  # not yourself
    assert S.sheet(game, "host") is None  # host controls are keywords, not menus


def test_prompts_in_every_language() -> None:
    nb, sr = _game("nb"), _game("sr")
    ana, dag = S.sheet(nb, "ana"), S.sheet(sr, "dag")
    assert ana is not None and dag is not None
    assert S.menu_text(nb, ana, "nb") == (
        "Svar: plan 1-3, UTE/RADIO/VAKT, partner (navn/-), [SABOTASJE]. F.eks. 2 R BO"
    )
    assert S.menu_text(sr, dag, "sr") == (
        "Odgovor: plan 1-3, TEREN/RADIO/STRAŽA, partner (ime/-). Npr. 2 R BO"
    )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_no_text_makes_the_grammar_raise(text: str) -> None:
    game = _game()
    cmd = G.parse(text)
    assert isinstance(cmd, G.Command)
    opt_out.classify(text)
    for who in ("ana", "dag", "host"):
        menus = R.menus(game, who)
        found = G.match(text, menus)
        if not isinstance(found, G.Unmatched):
            assert found.menu in menus
        sh = S.sheet(game, who)
        if sh is not None:
            read = S.read(game, sh, who, text)
            if isinstance(read, G.Unmatched):
                assert S.unmatched(game, read, sh, "nb")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["1", "2", "3", "v", "r", "o", "s", "t", "-", "bo", "gro", "x"]), max_size=6
    )
)
def test_whatever_matches_is_legal(words: list[str]) -> None:
    game = _game()
    menus = R.menus(game, "ana")
    found = G.match(" ".join(words), menus)
    if isinstance(found, G.Matched):
        spec_fields = {f.name: f.options for f in menus[0].fields}
        for name, value in found.values.items():
            assert value in [o.value for o in spec_fields[name]]


@pytest.mark.parametrize(
    ("lang", "away", "back"),
    [("en", "AWAY", "BACK"), ("nb", "BORTE", "TILBAKE"), ("sr", "ODSUTAN", "NAZAD")],
)
def test_help_names_away_and_back_in_words_the_grammar_takes(
    lang: str, away: str, back: str
) -> None:
    """A campaign player learns of AWAY from HELP, in their language, and the
    words HELP gives are the ones the gateway reads."""
    text = R.t(R.HELP, lang)
    assert f"{away} " in text and f"{back}." in text, text
    assert G.parse(f"{away} 3").kind == "away"
    assert G.parse(f"{away} 2027-01-20").kind == "away"
    assert G.parse(back).kind == "back"
