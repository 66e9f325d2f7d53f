"""The end's reveal (issue #32, item 3): each game's `GameDefinition.reveal`.

Whole games played by the games' own bots; what the reveal says is checked
against what happened, taken from the inputs and the events of the game rather
than from the reveal's own reading of the state: every player with their role,
the winners, the seed, and the secret actions that decided the game (Station: who
sabotaged; the Resistance: who played Fail; the Traitors: whom they murdered,
tempted and forced). The SMS form (`brief`) is measured at each game's largest
table in nb, sr and en, with the end screen's link beside it: at most 3 segments.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from adapters.sms.segments import encoding, prepare, segments
from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.events import Kind
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.core.text import Msg
from gameflow.games import resistance, station, traitors
from gameflow.games.resistance import bots as rbots
from gameflow.games.resistance.actions import Mission
from gameflow.games.station.balance import play as play_station
from gameflow.games.traitors import bots as tbots
from gameflow.games.traitors.actions import Murder, Tempt
from gameflow.i18n import LANGUAGES, render

pytestmark = pytest.mark.core

# Names as people type them, in GSM-7, none inside another (so a name found in
# a line is that player); a production seed is 32 hex digits.
NAMES = (
    "Kristoffer", "Ingeborg", "Aleksandar", "Margrethe", "Sebastian", "Johannes",
    "Kathrine", "Magdalena", "Christian", "Henriette", "Fredrik", "Gabriela",
    "Nikolaj", "Josefine", "Vladimir", "Annelise", "Benjamin", "Cecilie",
    "Dragoslav", "Elisabeth", "Torbjorn", "Milica", "Oskar", "Tijana",
)  # fmt: skip
SEED = "9f86d081884c7d659a2feaa0c55ad015"
# The end screen's link line as the SMS sends it under the reveal: its words (53
# characters in sr) and a link of 75 (a 43-character token after a base address).
LINK_LINE = "x" * 130
EPOCH = 1_700_000_000.0


def named(game: Game) -> Game:
    """The game with people's names instead of the bots' and a production seed
    (the reveal reads both from the game; the play is the same)."""
    return game._replace(names=NAMES[: len(game.players)], seed=SEED)


def lines_of(reveal: tuple[Msg, ...], lang: str = "en") -> list[str]:
    return [render(m, lang) for m in reveal]


def listed(line: str, label: str) -> list[str]:
    """The names a role line lists after its label ("The spies: A, B.")."""
    assert line.startswith(label), (line, label)
    return [n for n in NAMES if re.search(rf"\b{n}\b", line[len(label) :])]


# -- playing whole games ----------------------------------------------------------


def station_game(players: int, seed: str) -> Game:
    box: dict[str, Game] = {}
    play_station(players, seed, watch=lambda game, events: box.update(game=game))
    return box["game"]


def resistance_game(players: int, seed: int) -> tuple[Game, dict[int, set[str]]]:
    """A Resistance game with plot cards, and who played Fail on each mission,
    from the mission cards the players sent (the last one counts)."""
    game = rbots.start_game(players, seed, {"plot_cards": True})
    rng, now = random.Random(seed), EPOCH
    cards: dict[int, dict[str, str]] = {}
    while not game.over:
        acted = False
        for p in game.players:
            for spec in legal(game, p):
                action = rbots.simple_action(game, p, spec, rng)
                if action is None or spec.kind in (A.Leave.kind, A.Start.kind):
                    continue
                now += 0.5
                mission = game.rules.mission
                result = apply(game, action, now)
                if isinstance(result, Accepted):
                    if isinstance(action, Mission):
                        cards.setdefault(mission, {})[p] = action.card
                    game, acted = result.state, True
                break
        if not acted and not game.over:
            now = max(now, game.phase.deadline or now)
            result = apply(game, A.Deadline(None, game.phase.seq), now)
            assert isinstance(result, Accepted)
            game = result.state
    fails = {m: {p for p, c in by.items() if c == "fail"} for m, by in cards.items()}
    return game, fails


def traitors_game(
    players: int, seed: str, options: dict[str, Any], *, tempt: bool = False
) -> tuple[Game, list[Any]]:
    """A Traitors game played by the Traitors' bots, and every event it told;
    with `tempt`, traitors who may tempt always do (the bots murder first)."""
    game = tbots.start_game(players, seed, options)
    rng, now = random.Random(seed), EPOCH
    told: list[Any] = []
    for _ in range(tbots.MAX_STEPS):
        if game.over:
            break
        acted = False
        for p in game.players:
            for spec in legal(game, p):
                action = tbots.choose(game, p, spec, rng)
                offered = [s for s in legal(game, p) if s.kind == Tempt.kind]
                if tempt and offered and spec.kind in (Murder.kind, Tempt.kind):
                    target = offered[0].options("target")[0]
                    action = Tempt(p, offered[0].phase, str(target))
                if action is None:
                    continue
                now += 1.0
                result = apply(game, action, now)
                if isinstance(result, Accepted):
                    told.extend(result.events)
                    game, acted = result.state, True
                    break
            if acted:
                break
        if not acted and not game.over:
            now = max(now, game.phase.deadline or now)
            result = apply(game, A.Deadline(None, game.phase.seq), now)
            assert isinstance(result, Accepted)
            told.extend(result.events)
            game = result.state
    assert game.over
    return game, told


# -- no reveal before the end -----------------------------------------------------


@pytest.mark.parametrize("kind", ["station", "resistance", "traitors"])
def test_no_reveal_before_the_end_or_for_a_game_never_dealt(kind: str) -> None:
    definition = {"station": station, "resistance": resistance, "traitors": traitors}[kind].GAME
    reveal = definition.reveal
    assert reveal is not None
    game = new_game(kind, "g1", "host", "s", lang="en")
    for i in range(definition.rules.min_players):
        result = apply(game, A.Join(f"p{i}", None, NAMES[i]), EPOCH)
        assert isinstance(result, Accepted)
        game = result.state
    ended = apply(game, A.End("host"), EPOCH)
    assert isinstance(ended, Accepted) and ended.state.over
    assert reveal(ended.state, False) == reveal(ended.state, True) == ()
    started = apply(game, A.Start("host"), EPOCH)
    assert isinstance(started, Accepted) and started.state.running
    assert reveal(started.state, False) == reveal(started.state, True) == ()


NO_WINNER = {
    "station": ("The host ended the game: no team won.", "No team won. Infiltrators: "),
    "resistance": ("The host ended the game: no side won.", "No side won. Spies: "),
    "traitors": ("The game master ended the game: no side won.", "No side won."),
}


@pytest.mark.parametrize("kind", sorted(NO_WINNER))
def test_a_game_the_host_ended_reveals_no_winner_and_every_role(kind: str) -> None:
    definition = {"station": station, "resistance": resistance, "traitors": traitors}[kind].GAME
    assert definition.reveal is not None
    game = new_game(kind, "g1", "host", SEED, lang="en")
    for i in range(definition.rules.min_players + 1):
        result = apply(game, A.Join(f"p{i}", None, NAMES[i]), EPOCH)
        assert isinstance(result, Accepted)
        game = result.state
    started = apply(game, A.Start("host"), EPOCH)
    assert isinstance(started, Accepted)
    ended = apply(started.state, A.End("host"), EPOCH + 1)
    assert isinstance(ended, Accepted) and ended.state.over and ended.state.winner is None
    full = lines_of(definition.reveal(ended.state, False))
    brief = lines_of(definition.reveal(ended.state, True))
    assert full[0] == NO_WINNER[kind][0] and brief[0].startswith(NO_WINNER[kind][1])
    assert all(name in "\n".join(full) for name in ended.state.names)
    assert full[-1] == f"Fair deal: seed {SEED}" and f"Seed: {SEED}." in brief


# -- what the reveal says, against what happened ------------------------------------


def test_station_reveal_names_roles_winners_seed_and_every_sabotage() -> None:
    game = named(station_game(15, "reveal-1"))
    st = game.rules
    sabotages = [
        (rec.round, game.names[s])
        for rec in st.history
        for s, c in enumerate(rec.choices)
        if c is not None and c.sabotage
    ]
    assert sabotages, "the bots sabotaged nothing: pick another seed"
    reveal = station.GAME.reveal
    assert reveal is not None
    lines = lines_of(reveal(game, False))
    winner = {"loyal": "Winners: the loyal crew.", "infiltrators": "Winners: the infiltrators."}
    assert lines[0] == winner[str(game.winner)]
    bad = {game.names[s] for s in range(15) if st.infiltrator[s]}
    assert set(listed(lines[2], "The loyal crew:")) == set(game.names) - bad
    assert set(listed(lines[3], "The infiltrators:")) == bad
    for round_, name in sabotages:
        row = next(line for line in lines if line.startswith(f"Round {round_} "))
        assert f"{name} sabotaged" in row
    assert lines[-1] == f"Fair deal: seed {SEED}"
    for lang in LANGUAGES:  # every name and the seed in every language, no ids
        text = "\n".join(lines_of(reveal(game, False), lang))
        assert all(name in text for name in game.names) and SEED in text
        assert not any(re.search(rf"\b{p}\b", text) for p in game.players)


def test_resistance_reveal_names_who_played_fail_on_each_mission() -> None:
    game, fails = resistance_game(10, 7)
    game = named(game)
    named_fails = {
        m: {game.names[game.seat(p)] for p in players} for m, players in fails.items() if players
    }
    assert named_fails, "nobody played Fail: pick another seed"
    reveal = resistance.GAME.reveal
    assert reveal is not None
    lines = lines_of(reveal(game, False))
    assert (
        lines[0]
        == {"spies": "Winners: the spies.", "resistance": "Winners: the resistance."}[
            str(game.winner)
        ]
    )
    spies = {game.names[s] for s in range(10) if game.rules.spy[s]}
    assert set(listed(lines[1], "The resistance:")) == set(game.names) - spies
    assert set(listed(lines[2], "The spies:")) == spies
    for rec in game.rules.results:
        row = next(line for line in lines if line.startswith(f"Mission {rec.mission} "))
        played = named_fails.get(rec.mission, set())
        if played:
            tail = row.split("Fail played by ", 1)[1]
            assert {n for n in NAMES if re.search(rf"\b{n}\b", tail)} == played
        else:
            assert row.endswith("no fail card.")
    assert lines[-1] == f"Fair deal: seed {SEED}"
    brief = lines_of(reveal(game, True))
    for mission, players in named_fails.items():
        for name in players:
            assert re.search(rf"\b{name} \([0-9, ]*\b{mission}\b", brief[1]), brief


def test_traitors_reveal_names_murders_temptations_and_forcings() -> None:
    game, told = traitors_game(12, "reveal-18", {"recruit": True}, tempt=True)
    game = named(game)
    by_id = dict(zip(game.players, game.names, strict=True))
    murdered = [
        e.text.param("name")
        for e in told
        if e.kind == Kind.ANNOUNCE
        and e.text.msgid == "Breakfast: {name} was murdered in the night."
    ]
    letters = {by_id[e.to] for e in told if e.text and e.text.msgid.startswith("A letter: ")}
    joined = {by_id[e.to] for e in told if e.text and e.text.msgid.startswith("You are now a")}
    # the seed's game has a murder, a temptation accepted, one declined, and forcings
    assert murdered and letters & joined and letters - joined and joined - letters
    reveal = traitors.GAME.reveal
    assert reveal is not None
    text = "\n".join(lines_of(reveal(game, False)))
    bot_names = {f"P{i}": n for i, n in enumerate(game.names)}  # the events name the bots' names
    for name in murdered:
        assert f"the traitors murdered {bot_names[str(name)]}" in text
    for name in letters:
        answer = "accepted" if name in joined else "declined"
        assert f"the traitors tempted {name}, who {answer}" in text
    for name in joined - letters:
        assert f"the traitors forced {name} to join" in text
    winners = text.splitlines()[0]
    assert winners.startswith("Winners, the ")
    expected = {game.names[s] for s in traitors_winners(game)}
    assert {n for n in game.names if re.search(rf"\b{n}\b", winners)} == expected
    assert text.splitlines()[-1] == f"Fair deal: seed {SEED}"


def traitors_winners(game: Game) -> list[int]:
    """The survivors of the winning side, from the end's announcement."""
    st = game.rules
    role = "traitor" if game.winner == "traitors" else "loyal"
    return [s for s in st.seats() if st.role[s] == role]


# -- every player exactly once in the role lines --------------------------------------

ROLE_LINES = {
    "station": ("The loyal crew: {names}.", "The infiltrators: {names}."),
    "resistance": ("The resistance: {names}.", "The spies: {names}."),
    "traitors": ("The loyal: {names}.", "The traitors: {names}."),
}


def role_names(reveal: tuple[Msg, ...], kind: str) -> dict[str, list[str]]:
    """Each role line's players by name, read from the messages' parameters."""
    out: dict[str, list[str]] = {}
    for m in reveal:
        if m.msgid in ROLE_LINES[kind]:
            items = m.param("names")
            assert isinstance(items, tuple)
            names = [i.param("name") if isinstance(i, Msg) else i for i in items]
            out[m.msgid] = [str(n) for n in names if n != Msg("nobody")]
    return out


def _bad_seats(kind: str, game: Game) -> set[int]:
    st = game.rules
    n = len(game.players)
    if kind == "station":
        return {s for s in range(n) if st.infiltrator[s]}
    if kind == "resistance":
        return {s for s in range(n) if st.spy[s]}
    return {s for s in range(n) if st.role[s] == "traitor"}


PLAYS: dict[str, Callable[[int, int], Game]] = {
    "station": lambda n, seed: station_game(5 + n % 4, f"prop-{seed}"),
    "resistance": lambda n, seed: resistance_game(5 + n % 6, seed)[0],
    "traitors": lambda n, seed: traitors_game(
        6 + n % 5, f"prop-{seed}", {"recruit": bool(seed % 2)}, tempt=bool(seed % 2)
    )[0],
}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=hst.sampled_from(sorted(PLAYS)), seed=hst.integers(0, 10_000), n=hst.integers(0, 9))
def test_every_player_is_in_exactly_one_role_line_and_the_right_one(
    kind: str, seed: int, n: int
) -> None:
    game = named(PLAYS[kind](n, seed))
    definition = {"station": station, "resistance": resistance, "traitors": traitors}[kind].GAME
    assert definition.reveal is not None
    roles = role_names(definition.reveal(game, False), kind)
    good_line, bad_line = ROLE_LINES[kind]
    everyone = roles.get(good_line, []) + roles.get(bad_line, [])
    assert sorted(everyone) == sorted(game.names)  # each player exactly once
    bad = {game.names[s] for s in _bad_seats(kind, game)}
    assert set(roles.get(bad_line, [])) == bad


# -- the SMS form: at most 3 segments at the largest table ----------------------------

LARGEST: dict[str, Callable[[int], Game]] = {
    "station": lambda seed: station_game(15, f"sms-{seed}"),
    "resistance": lambda seed: resistance_game(10, seed)[0],
    "traitors": lambda seed: traitors_game(
        24, f"sms-{seed}", {"recruit": bool(seed % 2)}, tempt=bool(seed % 2)
    )[0],
}


@pytest.mark.parametrize("kind", sorted(LARGEST))
def test_the_sms_reveal_fits_three_segments_with_the_link_at_the_largest_table(
    kind: str,
) -> None:
    definition = {"station": station, "resistance": resistance, "traitors": traitors}[kind].GAME
    assert definition.reveal is not None
    worst: dict[str, int] = {}
    for seed in range(12):
        game = named(LARGEST[kind](seed))
        brief = definition.reveal(game, True)
        bad = {game.names[s] for s in _bad_seats(kind, game)}
        for lang in LANGUAGES:
            text = "\n".join(lines_of(brief, lang))
            assert SEED in text and all(re.search(rf"\b{n}\b", text) for n in bad)
            sent = prepare(f"{text}\n{LINK_LINE}", lang, False)
            # Serbian too stays in GSM-7: 153 characters a segment, not 67.
            assert encoding(sent) == "gsm7", (lang, sent)
            worst[lang] = max(worst.get(lang, 0), segments(sent))
    assert max(worst.values()) <= 3, worst
    print(f"\n{kind}: SMS reveal segments with the link, worst of 12 games: {worst}")
