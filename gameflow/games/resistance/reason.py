"""Resistance bots that reason, deciding from their own player's view only.

`decide(view, player, spec, rng)` answers one legal spec from `view`, which is
`engine.view(game, player)`: the public table, the player's role, their fellow
spies if they are one, and what their plot cards showed them. It never sees
the state, so it cannot know what its player could not (`decide` lists how
each side plays).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Final, NamedTuple

from gameflow.core import actions as A
from gameflow.core.legal import ActionSpec
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import (
    ESTABLISH_CONFIDENCE,
    IN_THE_SPOTLIGHT,
    KEEPING_CLOSE_EYE,
    NO_CONFIDENCE,
    OPEN_UP,
    OPINION_MAKER,
    OVERHEARD_CONVERSATION,
    STRONG_LEADER,
    TAKE_RESPONSIBILITY,
)
from gameflow.games.resistance.deduce import MODEL, Belief, Model, belief, mask
from gameflow.games.resistance.state import FAIL, SPY, SUCCESS


class Style(NamedTuple):
    """The bots' own habits (the deduction's `Model` expects roughly these)."""

    slack: float = 0.04  # approve a team this much worse than the best one seen ...
    slack_step: float = 0.1  # ... plus this per team already rejected this mission
    hide: float = 0.0  # a spy hides (plays success) while nothing hangs on the mission
    clean_reject: float = 0.0  # a spy rejects a clean team its cover would approve
    back: float = 0.0  # a spy approves a team with spies its cover would reject
    veto_at: float = 0.5  # the resistance vetoes a team at least this likely to fail
    own: float = 0.2  # a spy leader proposes a team with enough spies (else: as its cover)
    pivot: int = 7  # at tables up to this size, on a deciding mission, a spy leaves its
    # cover only if the vote turns on it (above: it always votes for the spies there)
    margin: int = 0  # ... or would turn with this many of the others' votes foreseen wrong


STYLE: Final = Style()


class Seen(NamedTuple):
    """What a decision needs from the view, read once."""

    ids: tuple[str, ...]
    me: int
    spy: bool
    spies: int  # mask of the spies (a spy's knowledge; 0 for the resistance)
    mission: int
    size: int
    need: int
    rejections: int
    last: bool  # this team is the last before a rejection loss
    max_rejections: int
    team: int
    successes: int
    failures: int
    leader: int


def seen(view: Mapping[str, Any], player: str) -> Seen:
    r = view["resistance"]
    ids = tuple(p["id"] for p in view["players"])
    seat = {p: i for i, p in enumerate(ids)}
    you = view["you"]
    spy = you["role"] == SPY
    mission = int(r["mission"])
    rej = int(r["rejections"])
    return Seen(
        ids,
        seat[player],
        spy,
        mask([seat[p] for p in you.get("spies", ())]) if spy else 0,
        mission,
        int(r["team_size"]),
        2 if mission == int(r["double_fail"]) else 1,
        rej,
        rej + 1 >= int(r["max_rejections"]),
        int(r["max_rejections"]),
        mask([seat[p] for p in r["team"]]),
        int(r["successes"]),
        int(r["failures"]),
        seat[r["leader"]],
    )


def _seats(m: int) -> list[int]:
    return [s for s in range(m.bit_length()) if m >> s & 1]


def best_team(
    b: Belief, size: int, need: int, rng: random.Random, *, with_me: int, spies: int = 0
) -> tuple[int, float]:
    """The team of `size` with seat `with_me` on it (and, for a spy, exactly
    `need` spies from `spies`) least likely under `b` to fail; ties drawn.
    Only the `size + 2` least suspect others are tried (a spy also tries its
    mates): the best team is among them in all but odd cases, and it keeps a
    ten-player vote to 35 teams instead of 126."""
    chance = [b.spy_chance(s) for s in range(b.players)]
    others = sorted((s for s in range(b.players) if s != with_me), key=chance.__getitem__)
    others = others[: size + 2] + [s for s in others[size + 2 :] if spies >> s & 1]
    best: list[int] = []
    low = 2.0
    for rest in combinations(others, size - 1):
        team = mask(rest) | 1 << with_me
        if spies and (team & spies).bit_count() != need:
            continue
        p = b.fail_chance(team, need)
        if p < low - 1e-9:
            low, best = p, [team]
        elif p < low + 1e-9:
            best.append(team)
    return (rng.choice(best), low) if best else (1 << with_me, 1.0)


def _trusted(b: Belief, among: Sequence[int], rng: random.Random, most: bool = True) -> int:
    """The seat among `among` the belief thinks least (or most) likely a spy."""
    keyed = [(b.spy_chance(s), rng.random(), s) for s in among]
    keyed.sort(reverse=not most)
    return keyed[0][2]


def decide(
    view: Mapping[str, Any],
    player: str,
    spec: ActionSpec,
    rng: random.Random,
    *,
    spies: int = 0,
    model: Model = MODEL,
    style: Style = STYLE,
) -> A.Action | None:
    """This player's answer to `spec` (None: let it pass for now).

    The resistance weighs every spy assignment still possible (`deduce.belief`):
    - a leader proposes, among the teams with themselves on, the one least likely
      to carry enough spies to fail it;
    - a voter approves a team whose chance of failing is close to the best team's
      they can see, more readily the more teams were rejected, and always the last
      team before the spies would win by rejections;
    - plot cards go to the players it trusts most (Opinion Maker to the one it
      trusts least); No Confidence vetoes a team that probably fails, In the
      Spotlight and Keeping a Close Eye watch the likeliest spy on the team.

    The spies know each other and look at themselves through the table's eyes
    (`deduce.belief(..., public=True)`):
    - they fail a mission with exactly as many cards as it needs (the lowest seats
      among them), hide now and then while nothing hangs on the mission, and play
      success when they cannot fail it (one spy on a two-fail mission);
    - a spy leader proposes themselves (and a second spy for a two-fail mission)
      with the players the table trusts most, but only `Style.own` of the time
      outside a deciding mission: otherwise the team its cover would propose, so
      that the leader's choice (which `deduce` reads) does not give it away;
    - they vote as their cover would (a member of the resistance in their seat),
      except on a mission that decides the game: then they back teams with enough
      spies and reject clean ones; the last team before a rejection loss passes.
      At tables of up to `Style.pivot` seats they leave their cover even then only
      when their votes together turn the outcome, as far as they can foresee the
      others' votes (each seat's cover vote from the public record): a vote that
      changes nothing would only show the table who they are;
    - they veto a clean team with No Confidence once the resistance has a success,
      and keep the cards that only help the resistance see."""
    s = seen(view, player)
    kind = spec.kind
    if kind == Mission.kind:
        return Mission(player, spec.phase, _card(s, spec, rng, style))
    if kind == Pass.kind:
        return Pass(player, spec.phase)
    mine = belief(view, player, spies, model)
    table = belief(view, player, spies, model, public=True) if s.spy else mine
    if kind == Vote.kind:
        cover = belief(view, player, spies, model, cover=True) if s.spy else mine
        vote = _approve(s, cover, rng, style)
        if (
            s.spy
            and len(s.ids) <= style.pivot
            and not s.last
            and (s.failures == 2 or s.successes == 2)
        ):
            vote = _pivotal(view, s, spies, model, rng, style, vote)
        return Vote(player, spec.phase, vote)
    if kind == Propose.kind:
        if s.spy and s.failures < 2 and s.successes < 2 and rng.random() >= style.own:
            cover = belief(view, player, spies, model, cover=True)
            team, _ = best_team(cover, s.size, s.need, rng, with_me=s.me)
        else:
            spies_needed = s.spies if s.spy else 0
            team, _ = best_team(table, s.size, s.need, rng, with_me=s.me, spies=spies_needed)
        return Propose(player, spec.phase, tuple(s.ids[x] for x in _seats(team)))
    if kind == Give.kind:
        card = str(spec.options("card")[0])
        return Give(player, spec.phase, card, s.ids[_receiver(s, table, card, rng)])
    if kind == Play.kind:
        return _play(s, mine, table, spec, player, rng, style)
    return None


def _card(s: Seen, spec: ActionSpec, rng: random.Random, style: Style) -> str:
    if FAIL not in spec.options("card"):
        return SUCCESS
    on = _seats(s.team & s.spies)
    if len(on) < s.need or on.index(s.me) >= s.need:
        return SUCCESS  # cannot fail it, or a mate with a lower seat fails it
    critical = s.failures == 2 or s.successes == 2
    return SUCCESS if not critical and rng.random() < style.hide else FAIL


def _approve(s: Seen, b: Belief, rng: random.Random, style: Style) -> bool:
    if s.last:
        return True  # a rejection now loses the game (a spy blends in: it would pass anyway)
    p = b.fail_chance(s.team, s.need)
    if p <= 1e-9:
        honest = True
    else:
        _, low = best_team(b, s.size, s.need, rng, with_me=s.me)
        honest = p <= low + style.slack + style.slack_step * s.rejections
    if not s.spy:
        return honest or _next_is_worse(s, b, p)
    # `b` is the spy's cover: what a member of the resistance in this seat would
    # see. Vote as the cover would unless the mission is worth the exposure.
    critical = s.failures == 2 or s.successes == 2
    if (s.team & s.spies).bit_count() >= s.need:
        return honest or critical or rng.random() < style.back
    return honest and not critical and rng.random() >= style.clean_reject


def _cover_vote(
    view: Mapping[str, Any],
    s: Seen,
    seat: int,
    spies: int,
    model: Model,
    rng: random.Random,
    style: Style,
) -> bool:
    """How a member of the resistance in `seat` would vote, from the public record."""
    b = belief(view, s.ids[seat], spies, model, cover=True)
    t = s._replace(me=seat, spy=False, spies=0)
    return _approve(t, b, rng, style)


def _pivotal(
    view: Mapping[str, Any],
    s: Seen,
    spies: int,
    model: Model,
    rng: random.Random,
    style: Style,
    wanted: bool,
) -> bool:
    """On a deciding mission the spies want a team with enough spies and no clean
    one, but a vote against the cover shows the table who they are. Vote as the
    cover would unless the spies' votes together turn the outcome, as far as the
    table's votes can be foreseen from the public record."""
    n = len(s.ids)
    mates = _seats(s.spies)
    yes_res = sum(
        _cover_vote(view, s, x, spies, model, rng, style) for x in range(n) if not s.spies >> x & 1
    )
    cover = sum(_cover_vote(view, s, x, spies, model, rng, style) for x in mates)
    want = len(mates) if wanted else 0
    turns = any(
        (2 * (y + cover) > n) != (2 * (y + want) > n)
        for y in range(yes_res - style.margin, yes_res + style.margin + 1)
    )
    return wanted if turns else _cover_vote(view, s, s.me, spies, model, rng, style)


def _next_is_worse(s: Seen, b: Belief, p: float) -> bool:
    """On the fourth team of a mission, the fifth leader's team passes whatever
    it is: back this one if that leader is likelier a spy than this team fails."""
    if s.rejections + 2 != s.max_rejections:
        return False
    fifth = (s.leader + 1) % len(s.ids)
    return fifth != s.me and b.spy_chance(fifth) >= p


def _receiver(s: Seen, b: Belief, card: str, rng: random.Random) -> int:
    others = [x for x in range(len(s.ids)) if x != s.me]
    if s.spy:
        res = [x for x in others if not s.spies >> x & 1]
        mates = [x for x in others if s.spies >> x & 1]
        if card == OPINION_MAKER or not mates:
            return _trusted(b, res, rng)
        return rng.choice(mates)
    if card == OPINION_MAKER:
        return _trusted(b, others, rng, most=False)
    return _trusted(b, others, rng)


def _play(
    s: Seen,
    mine: Belief,
    table: Belief,
    spec: ActionSpec,
    player: str,
    rng: random.Random,
    style: Style,
) -> A.Action | None:
    card = str(spec.options("card")[0])
    targets = [x for x in spec.options("target") if x is not None]
    seats = [s.ids.index(str(t)) for t in targets]

    def play(target: int | None = None) -> Play:
        return Play(player, spec.phase, card, None if target is None else s.ids[target])

    if card == STRONG_LEADER:
        if s.spy:
            return play() if not _leader_is_mate(s, table) else None
        return play() if _leader_doubt(s, mine) > 0.5 else None
    if card == NO_CONFIDENCE:
        if s.last:
            return None  # a veto counts as a rejection: it would end the game
        if s.spy:
            clean = (s.team & s.spies).bit_count() < s.need
            return play() if clean and (s.successes >= 1 or s.mission >= 3) else None
        return play() if mine.fail_chance(s.team, s.need) >= style.veto_at else None
    if card in (IN_THE_SPOTLIGHT, KEEPING_CLOSE_EYE):
        if s.spy or not seats:
            return None
        target = _trusted(mine, seats, rng, most=False)
        return play(target) if mine.spy_chance(target) > 0.05 else None
    if not seats:
        return play()
    if card == TAKE_RESPONSIBILITY:  # from a spy (resistance) or a trusted player (spy)
        if s.spy:
            return play(_trusted(table, [x for x in seats if not s.spies >> x & 1] or seats, rng))
        return play(_trusted(mine, seats, rng, most=False))
    if card == OVERHEARD_CONVERSATION:  # learn about the least certain neighbour
        keyed = sorted(seats, key=lambda x: (abs(mine.spy_chance(x) - 0.5), rng.random()))
        return play(keyed[0])
    if card == OPEN_UP:  # show oneself to a trusted player (a spy: to a mate)
        if s.spy:
            mates = [x for x in seats if s.spies >> x & 1]
            return play(rng.choice(mates) if mates else _trusted(table, seats, rng))
        return play(_trusted(mine, seats, rng))
    if card == ESTABLISH_CONFIDENCE:
        return play()
    return play(rng.choice(seats))


def _leader_doubt(s: Seen, b: Belief) -> float:
    return 0.0 if s.leader == s.me else b.spy_chance(s.leader)


def _leader_is_mate(s: Seen, b: Belief) -> bool:
    return bool(s.spies >> s.leader & 1)


__all__ = ["STYLE", "Seen", "Style", "best_team", "decide", "seen"]
