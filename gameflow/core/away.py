"""Away players (#21 item 5): a player says they are away until a date.

A campaign runs for days; someone on a trip should neither hold the table up
nor be chased. While a player is away:

* at a deadline their choices take the defaults the game already gives anyone
  who did not answer (each game's `end_phase` does that; nothing changes here);
* the engine neither counts nor reports the deadlines they miss
  (`engine._deadline` leaves `away_seats` out);
* the scheduler sends them no reminders (`scheduler.deadlines` asks `present`);
* the host is told once, when they go away (a HOST event), and nobody else:
  `Game.away` is in no view, so the public view and the status page show
  nothing about why someone has not answered.

They are back by themselves when the instant passes (every check takes `now`,
so nothing needs to fire), or earlier with `Away(by, until=None)`.

`until` is an instant, or a local date "YYYY-MM-DD" of the game's zone, meaning
away through that whole day (back at the next local midnight). The action is
offered by `spec()` rather than by `engine.legal()`: `legal()` lists a player's
game actions, which every keyboard, SMS menu and bot walks as the question to
answer; being away is no answer to a question. The handler validates against
`spec()`, the same typed field a channel reads.

The host may mark a seated player as gone for good (#32 item 1: someone who
left mid-campaign): that is away until `GONE`, a time no game reaches, so every
game's rules treat them exactly as an away player with no per-game branch. It
is announced to the table, only the host takes it back (`NotGone`), and the
player cannot undo it with their own Away. Like Away, these host actions are
offered by `gone_specs()`, not by `engine.legal()`: the host has chat commands
for them (/gone, GONE), the console adds them to its controls, and no menu,
bot or recorded game that walks `legal()` picks them up.
"""

from __future__ import annotations

from datetime import date
from typing import Final

from gameflow.core import actions as A
from gameflow.core.clock import DAY, at, local_day, offset_at
from gameflow.core.events import Event, announce, changed, tell, to_host
from gameflow.core.legal import ActionSpec, Field
from gameflow.core.result import Accepted, Rejected, accepted, reject
from gameflow.core.state import Game, update
from gameflow.core.text import N_, msg

MAX_DAYS: Final = 366  # a longer "away" is leaving the game, not a trip
GONE: Final = 253402300799.0  # 9999-12-31 23:59:59 UTC: away for good (JSON has no infinity)


def spec(game: Game, player: str) -> ActionSpec | None:
    """The Away action `player` may send now: a seated player of a running game.
    `until` is free input (a date or an instant), None meaning "back"."""
    if not game.running or game.seat(player) < 0:
        return None
    return ActionSpec(A.Away.kind, game.phase.seq, (Field("until", (None,), free=True),))


def away_until(game: Game, player: str, now: float) -> float | None:
    """The instant `player` is away until, or None if they are not away at `now`."""
    for who, until in game.away:
        if who == player:
            return until if now < until else None
    return None


def away_seats(game: Game, now: float) -> frozenset[int]:
    """Seats of the players away at `now` (empty in the common case, cheaply)."""
    if not game.away:
        return frozenset()
    return frozenset(
        game.seat(who) for who, until in game.away if now < until and game.seat(who) >= 0
    )


def present(game: Game, seats: tuple[int, ...], now: float) -> tuple[int, ...]:
    """`seats` without those away at `now` (whom not to remind or report)."""
    gone = away_seats(game, now)
    return tuple(s for s in seats if s not in gone) if gone else seats


def resolve(game: Game, until: float | str, now: float) -> float | None:
    """The instant `until` stands for, or None if it is no usable future time."""
    if isinstance(until, str):
        try:
            day = date.fromisoformat(until.strip())
        except ValueError:
            return None
        t = at(game.zone, day.toordinal() + 1, 0.0)  # through that whole local day
    elif isinstance(until, int | float) and not isinstance(until, bool):
        t = float(until)
    else:
        return None
    if t != t or t <= now or t > now + MAX_DAYS * DAY:  # NaN, past, or too far
        return None
    return t


def parse_until(text: str, now: float) -> float | str:
    """What a player typed after /away or AWAY, as an Away `until`: an ISO date
    ("2027-01-20": away through that day) or a number of days from `now` ("3").
    ValueError if it is neither; the channels handle their own words for
    "back" (off, BACK, TILBAKE, NAZAD) before asking this."""
    word = text.strip()
    if word.isdigit() and 0 < int(word) <= MAX_DAYS:
        return now + int(word) * DAY
    try:
        return date.fromisoformat(word).isoformat()
    except ValueError:
        raise ValueError(f"not a date or a number of days: {text!r}") from None


def local_text(game: Game, t: float) -> tuple[str, bool]:
    """`t` as the game's local "YYYY-MM-DD HH:MM", and whether it is a midnight
    (then the texts say "through" the day before, which is what was asked)."""
    local = t + offset_at(game.zone, t)
    seconds = local % DAY
    if seconds == 0:
        return date.fromordinal(local_day(game.zone, t) - 1).isoformat(), True
    day = date.fromordinal(local_day(game.zone, t)).isoformat()
    minutes = int(seconds // 60)
    return f"{day} {minutes // 60:02d}:{minutes % 60:02d}", False


def gone_players(game: Game) -> tuple[str, ...]:
    """The seated players the host marked as gone, in seat order."""
    gone = {who for who, until in game.away if until >= GONE}
    return tuple(p for p in game.players if p in gone) if gone else ()


def gone_specs(game: Game) -> tuple[ActionSpec, ...]:
    """The host's Gone and NotGone of a running game: whom each may name."""
    if not game.running:
        return ()
    gone = gone_players(game)
    seated = tuple(p for p in game.players if p not in gone)
    seq = game.phase.seq
    specs = [ActionSpec(A.Gone.kind, seq, (Field("target", seated),))] if seated else []
    if gone:
        specs.append(ActionSpec(A.NotGone.kind, seq, (Field("target", gone),)))
    return tuple(specs)


def set_gone(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    """The host's Gone or NotGone: the player away for good, or back."""
    assert isinstance(action, A.Gone | A.NotGone)
    if action.by != game.host:
        return reject("host_only", N_("Only the host can do that."))
    if game.over:
        return reject("over", N_("The game is over."))
    if not game.running:
        return reject("not_started", N_("The game has not started yet."))
    target = action.target
    if game.seat(target) < 0:
        return reject("not_in_game", N_("That player is not in this game."))
    name = game.name_of(target)
    seq = game.phase.seq
    others = tuple((w, u) for w, u in game.away if w != target and now < u)
    was_gone = target in gone_players(game)
    if isinstance(action, A.NotGone):
        if not was_gone:
            return reject("not_gone", N_("{name} is not marked as gone."), name=name)
        text = msg(
            N_("The host marked {name} as back: they answer for themselves again."), name=name
        )
        return accepted(update(game, away=others), (announce(text, seq), changed()))
    if was_gone:
        return reject("gone", N_("{name} is already marked as gone."), name=name)
    text = msg(N_("The host marked {name} as gone: the game answers for them."), name=name)
    away = tuple(sorted((*others, (target, GONE))))
    return accepted(update(game, away=away), (announce(text, seq), changed()))


def set_away(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    """The Away action: mark the player away until an instant, or back."""
    assert isinstance(action, A.Away)
    player = action.by or ""
    if game.over:
        return reject("over", N_("The game is over."))
    if not game.running:
        return reject("not_started", N_("The game has not started yet."))
    if spec(game, player) is None:
        return reject("not_in_game", N_("You are not playing in this game."))
    if player in gone_players(game):
        return reject("gone_by_host", N_("The host marked you as gone; only the host can undo it."))
    seq = game.phase.seq
    # Entries whose time has passed are dropped on the way: they mean nothing now.
    others = tuple((w, u) for w, u in game.away if w != player and now < u)
    was = away_until(game, player, now)
    if action.until is None:
        if was is None:
            return reject("not_away", N_("You are not marked as away."))
        back = msg(N_("Welcome back: you are no longer marked as away."))
        return accepted(update(game, away=others), (tell(player, back, seq),))
    until = resolve(game, action.until, now)
    if until is None:
        return reject(
            "bad_until",
            N_("Give a date in the future as YYYY-MM-DD (at most {days} days ahead)."),
            days=MAX_DAYS,
        )
    when, whole_day = local_text(game, until)
    if whole_day:
        mine = msg(
            N_("You are marked as away through {date}: the defaults answer for you."), date=when
        )
    else:
        mine = msg(
            N_("You are marked as away until {time}: the defaults answer for you."), time=when
        )
    events: list[Event] = [tell(player, mine, seq)]
    if was is None:  # the host is told once, when they go away (not on a new date)
        name = game.name_of(player)
        if whole_day:
            host = msg(
                N_("{name} is away through {date}; the defaults answer for them."),
                name=name,
                date=when,
            )
        else:
            host = msg(
                N_("{name} is away until {time}; the defaults answer for them."),
                name=name,
                time=when,
            )
        events.append(to_host(game.host, host, seq))
    away = tuple(sorted((*others, (player, until))))
    return accepted(update(game, away=away), tuple(events))
