"""What SMS play costs: segments an SMS player of a 7-player Station game
receives per round, from simulated games through the real SMS composer.

Every player is an SMS player; everyone answers at once with a random legal
choice and vote (the numbers depend on the texts, not on the play); phases
without an answer end by their deadline. Every public announcement is texted
too (players without a TV follow the game by text), merged with the player's
own lines and question into one text per commit. The figure printed per
language is the average over all players and rounds of all games.

The target is at most five segments per player-round in nb (issue #16), and
it is held: `BUDGET` is asserted for nb. A round is three texts: the mission
(the last vote's counts and who sits out, the round, the card, the three plans
and the menu: 2 or 3 segments), the round's result (1) and the vote (1); the
game's first text (the start and the role card) and its last (the end reveal)
come on top. What keeps it there (adapters/sms/short.py, sheet.py): the tally
is texted as counts (VOTES gives the names), a few of the round's texts have
shorter SMS forms, a menu's word options go without their field name, and its
example names the shortest GSM-7 name of a player in play. A player's own
answer is not echoed in a live game, and a line that a later line repeats is
sent once (adapters/sms/renderer.py). English is longer: `CEILING` holds what
is measured and must only go down. Every text stays within three segments (one
message on every phone), and nb and en stay in GSM-7.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from adapters.sms.outbound import OutMessage
from adapters.sms.renderer import CHANNEL, SmsRenderer
from adapters.sms.segments import is_gsm7, segments
from adapters.sms.settings import SmsSettings
from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.replay import parse_step
from service.compose import Origin
from tests.test_sms_segments import NAMES

pytestmark = pytest.mark.sms

GAMES = 12
BUDGET = 5.0  # the target, held in nb (4.94 measured)
CEILING = 5.15  # en, measured 5.10 (see above): lower it as texts shrink


def _ok(result: object) -> Game:
    assert isinstance(result, Accepted), result
    state: Game = result.state
    return state


async def simulate(lang: str, seed: int, transliterate: bool) -> tuple[int, int, list[OutMessage]]:
    """One game: (segments received by all players, player-rounds, the texts),
    as the SMS composer writes them into each commit's outbox."""
    ids = [f"sms:{seed:04d}{i:012x}" for i in range(7)]
    settings = SmsSettings(
        "AC", "token", "https://x", from_number="+4759440000", transliterate=transliterate
    )
    composer = SmsRenderer(settings)
    sent: list[OutMessage] = []

    def step(before: Game, action: A.Action, now: float, origin: Origin | None = None) -> Game:
        result = apply(before, action, now)
        after = _ok(result)
        for m in composer.compose(before, after, result.events, origin):  # type: ignore[union-attr]
            if "body" in m.payload:
                sent.append(OutMessage(m.payload["player"], m.payload["body"]))
        return after

    now = 1_000.0
    game = new_game("station", "g", "tg:host", f"cost-{seed}", lang=lang)
    for pid, name in zip(ids, NAMES[lang][: len(ids)], strict=True):
        game = _ok(apply(game, A.Join(pid, None, name), now))
    game = step(game, A.Start("tg:host"), now)
    rng = random.Random(seed)
    while not game.over:
        moved = False
        for pid in ids:
            for spec in legal(game, pid):
                choice = {"do": spec.kind, "as": pid, "phase": spec.phase}
                choice.update({f.name: rng.choice(f.options) for f in spec.fields})
                # As the gateway submits an SMS answer: the composer knows who answers.
                origin = Origin(pid, CHANNEL, game.phase.seq)
                game = step(game, parse_step(game, choice), now, origin)
                moved = True
                break
        if not moved:
            now += 1_000
            game = step(game, A.Deadline(None, game.phase.seq), now)
    total = sum(segments(m.body) for m in sent)
    return total, len(ids) * game.phase.round, sent


def average(lang: str, transliterate: bool = False) -> tuple[float, list[OutMessage]]:
    async def main() -> tuple[float, list[OutMessage]]:
        total = rounds = 0
        texts: list[OutMessage] = []
        for seed in range(GAMES):
            seg, player_rounds, sent = await simulate(lang, seed, transliterate)
            total += seg
            rounds += player_rounds
            texts.extend(sent)
        return total / rounds, texts

    return asyncio.run(main())


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_an_sms_player_gets_at_most_five_segments_a_round(lang: str) -> None:
    figure, texts = average(lang)
    print(f"\nStation, 7 players, {lang}: {figure:.2f} segments per SMS player per round")
    assert figure <= (BUDGET if lang == "nb" else CEILING)
    assert all(segments(m.body) <= 3 for m in texts)
    assert all(is_gsm7(m.body) for m in texts)


def test_serbian_cost_with_and_without_transliteration() -> None:
    plain, _ = average("sr")
    gsm, texts = average("sr", transliterate=True)
    print(f"\nStation, 7 players, sr: {plain:.2f} (UCS-2), {gsm:.2f} (SMS_TRANSLITERATE)")
    assert all(is_gsm7(m.body) and segments(m.body) <= 3 for m in texts)
    assert gsm < plain
