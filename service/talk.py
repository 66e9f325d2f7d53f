"""Players at home talk through the bot (issue #33): the table's talk and a
team's private talk, relayed from the durable outbox on every channel.

A line a player says (Telegram: plain private text that answers no open
question; SMS: `SAY ...`) goes through `say()`:

1. the game's rules decide whether it may be said now and to whom
   (`GameDefinition.team`, `silenced`, `table_talk`): the team's private
   talk when the player's team may confer and the table's talk is closed
   (the traitors at night), or when the line asks for it (SMS `TEAM ...`,
   Telegram `/team ...`: the Resistance's spies and Station's infiltrators
   with the option `team_talk`), else the table's talk, open in a campaign
   outside its quiet hours and in a live game only with the option
   `table_talk`; never while paused, before the
   start or after the end, never from a murdered or banished player (seed
   002). A refusal says why, and when talk opens where it knows;
2. the line is cleaned (control and direction-changing characters dropped,
   white space collapsed), held to `MAX_LINE` characters, and flood control
   applies per player (`BURST` lines in `WINDOW` seconds earns a warning,
   then escalating mutes, `MUTES`);
3. the decision is committed in one atomic step
   (`GameStore.swap_attr_and_append`): the game's talk record (the store
   attribute `ATTR`: flood counters, who turned talk texts off, and the
   inbound keys recently seen with whom each line went to) is swapped by
   compare and set (so two workers never lose each other's counts)
   together with one outbox message per recipient, keyed by the inbound
   message's id: a worker that dies leaves both or neither. A redelivered
   update or webhook finds its key in the record and appends the same
   messages again, which the outbox skips (its keys are written once), so
   each line reaches each recipient once.

Who hears it is named by the bot with the speaker's game name, never a
name taken from the text, rendered once, and skipped for whoever turned
talk texts off (`MUTE`); each channel makes its own recipients' messages (a
`Talker`, registered on the service by the channel adapter): Telegram
players and the game's group, SMS players. Talk is never a game action:
it changes no state and is not in the game's log. Only with the option
`talk_record` (off; the host's choice at creation) does the talk record
keep each line relayed (`kept`: its time, the speaker's seat and name,
table or team, the text; the newest KEEP_SAID), for `muldvarp export
--with-talk`; the outbox keeps a line until the game's contacts are
forgotten, and the talk record goes with them (docs/operators.md).
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from gameflow.core import registry
from gameflow.core.campaign import is_campaign, quiet_ahead, quiet_of
from gameflow.core.clock import clock_text
from gameflow.core.names import clean
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.i18n import render
from service.outbox import OutboxMessage

log = logging.getLogger(__name__)

ATTR: Final = "talk"  # the game's talk record (GameStore.set_attr), JSON
MAX_LINE: Final = 500  # characters of one line
BURST: Final = 5  # lines a player may say within WINDOW seconds
WINDOW: Final = 30.0
WARNED_FOR: Final = 600.0  # a warning stands this long: the next flood mutes
MUTES: Final = (60.0, 300.0, 1800.0, 3 * 3600.0)  # escalating mutes, seconds
FORGIVE: Final = 24 * 3600.0  # a day without a mute starts the ladder again
KEEP_KEYS: Final = 64  # inbound keys remembered (Telegram and Twilio retry within minutes)
RECORD: Final = "talk_record"  # the option: the talk is kept with the game (off by default)
KEEP_SAID: Final = 1000  # lines kept with the option, the newest (a week's talk of a table)
TRIES: Final = 50  # compare-and-set rounds before giving up (workers racing)

SENT, REFUSED, CLOSED, DUPLICATE = "sent", "refused", "closed", "duplicate"

TABLE_LINE = N_("{name}: {text}")
TEAM_LINE = N_("{name} (team only): {text}")
DEAD = N_(
    "You are out of the game now, so you can no longer talk to those still "
    "playing. Thank you for playing: you can still follow the game."
)
OVER = N_("The game is over: talk is closed.")
NOT_STARTED = N_("Talk opens when the game starts.")
PAUSED = N_("The game is paused: talk opens again when the host resumes it.")
QUIET = N_("It is quiet hours: talk opens again at {time}.")
NOBODY = N_("Talk through the bot is closed now.")
NO_TEAM = N_("You have no team to talk with in private now.")
EMPTY = N_("Write something after the keyword to say it to the others.")
TOO_LONG = N_("That is too long: say it in at most {max} characters.")
WARNING = N_(
    "Slow down: that is too many lines at once, and that one was not sent. "
    "Flood again and you are muted for a while."
)
TEXTS_OFF = N_("Talk texts are off: you get only the game's own texts. UNMUTE turns them on.")
TEXTS_ON = N_("Talk texts are on again.")
HUSHED = N_("The host has muted you: what you say is not relayed for now.")
HUSH_DONE = N_("{name} is muted: what they say is not relayed until you unmute them.")
HUSH_UNDONE = N_("{name} may talk again.")
HUSH_USAGE = N_("Use /mute NAME to mute a player's talk, and /unmute NAME to let them talk again.")
NO_SUCH_PLAYER = N_("There is no player called {name}.")
ONLY_HOST = N_("Only the host can do that.")


@dataclass(frozen=True, slots=True)
class Said:
    """What became of a line: `status` (SENT, REFUSED with a `reply`, CLOSED:
    talk is no thing in this game now, DUPLICATE: a redelivery), the reply
    for the speaker, if any, and whom it went to."""

    status: str
    reply: Msg | None = None
    to: tuple[str, ...] = ()
    team: bool = False


class Talker(ABC):
    """A channel's side of the talk (subclassed by each channel's adapter):
    one recipient's outbox messages, and the group's where the channel has
    one; `wake_up` wakes the channel's delivery. The loop over the
    recipients is the service's (`messages`)."""

    channel: str = ""
    wake_up: Callable[[str], None] | None = None

    @abstractmethod
    def to(
        self, game: Game, player: str, text: str, key: str, private: bool
    ) -> list[OutboxMessage]:
        """`text` for `player` with outbox key `key` (none when `player` is
        not on this channel); `private`: a team's line, kept from forwarding."""

    def group(self, game: Game, text: str, key: str) -> list[OutboxMessage]:
        """The table's line for the game's group (none: the channel has none)."""
        return []

    def wake(self, game_id: str) -> None:
        """The channel's delivery: messages are ready for `game_id`."""
        if self.wake_up is not None:
            self.wake_up(game_id)


def add_talker(talkers: list[Talker], talker: Talker) -> None:
    """Register a channel's talker (one per channel: a newer one replaces it)."""
    talkers[:] = [t for t in talkers if t.channel != talker.channel]
    talkers.append(talker)


def tidy(raw: str) -> str:
    """The line as relayed: white space collapsed, control, format and
    direction characters dropped (as names are: gameflow/core/names.py)."""
    return clean(" ".join(raw.split()))


def audience(
    game: Game, player: str, now: float, team_only: bool = False
) -> tuple[tuple[str, ...], bool] | Said:
    """Whom `player` may talk to now and whether it is their team's private
    talk; or the refusal (`Said`). A plain line goes to the table while its
    talk is open, else to the player's team when it may confer; `team_only`
    (SMS `TEAM`, Telegram `/team`) asks for the team whatever the table does."""
    d = registry.get(game.kind)
    table, teams = kinds(game)
    if game.seat(player) < 0 or not (table or teams):
        if team_only and game.seat(player) >= 0:
            return Said(REFUSED, msg(NO_TEAM))
        return Said(CLOSED, msg(NOBODY))  # no talk in this game (a live one: the room)
    if game.over:
        return Said(REFUSED, msg(OVER))
    if not game.running:
        return Said(REFUSED, msg(NOT_STARTED)) if table else Said(CLOSED, msg(NOBODY))
    if d.silenced is not None and d.silenced(game, player):
        return Said(REFUSED, msg(DEAD))
    if game.phase.paused:
        return Said(REFUSED, msg(PAUSED))
    quiet = quiet_of(game) if is_campaign(game) else None
    if quiet is not None and quiet_ahead(game, now).inside:
        return Said(REFUSED, msg(QUIET, time=clock_text(quiet[1])))
    team = d.team(game, player) if teams and d.team is not None else ()
    open_now = table and (d.table_talk is None or d.table_talk(game))
    if team_only or not open_now:
        if len(team) > 1:
            return tuple(p for p in team if p != player), True
        return Said(REFUSED, msg(NO_TEAM)) if team_only else Said(CLOSED, msg(NOBODY))
    living = [
        p
        for p in game.players
        if p != player and not (d.silenced is not None and d.silenced(game, p))
    ]
    return tuple(living), False


def offered(game: Game, player: str) -> tuple[bool, bool]:
    """What talk the help lists for `player` now: whether the game has the
    table's talk (a campaign, or `table_talk`), and whether `player` has a
    team to talk with in private now (telling nobody else)."""
    d = registry.get(game.kind)
    table, teams = kinds(game)
    team = d.team(game, player) if teams and d.team is not None else ()
    return table, len(team) > 1


def kinds(game: Game) -> tuple[bool, bool]:
    """Whether `game` has the table's talk through the bot (a campaign, or
    the option `table_talk`) and whether it has a team's private talk (a
    game whose team talk is an option, `team_talk`, off, has none without it)."""
    table = is_campaign(game) or game.option("table_talk") is True
    teams = registry.get(game.kind).team is not None and game.option("team_talk") is not False
    return table, teams


def load_record(raw: str | None, what: str = "talk record") -> dict[str, Any]:
    """A JSON record kept in a game attribute (the talk record, the SMS
    digests'); an unreadable one starts afresh rather than stop the talk."""
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        log.warning("unreadable %s: started afresh", what)
        value = {}
    return value if isinstance(value, dict) else {}


def flood(rec: dict[str, Any], player: str, now: float) -> Msg | None:
    """Count one line of `player` at `now` into `rec` (changed in place);
    the refusal when it is one too many (a warning, then a mute)."""
    if player in rec.get("hushed", []):
        return msg(HUSHED)
    mine = rec.setdefault("flood", {}).setdefault(player, {})
    until = float(mine.get("until", 0.0))
    if now < until:
        return _muted(until - now)
    if until and now - until > FORGIVE:
        mine["level"] = 0
    recent = [t for t in mine.get("times", []) if now - float(t) < WINDOW]
    if len(recent) >= BURST:
        warned = float(mine.get("warned", 0.0))
        if now - warned > WARNED_FOR:
            mine["warned"] = now
            mine["times"] = recent
            return msg(WARNING)
        level = int(mine.get("level", 0))
        mine["until"] = now + MUTES[min(level, len(MUTES) - 1)]
        mine["level"] = level + 1
        mine["warned"] = 0.0
        mine["times"] = []
        return _muted(mine["until"] - now)
    mine["times"] = [*recent, now]
    return None


def _muted(seconds: float) -> Msg:
    return nmsg(
        "You are muted for flooding: you can talk again in {n} minute.",
        "You are muted for flooding: you can talk again in {n} minutes.",
        max(1, int((seconds + 59) // 60)),
    )


def _remember(rec: dict[str, Any], key: str, to: Sequence[str], team: bool, sent: bool) -> None:
    """An inbound key seen: a redelivery finds whom its line went to, if `sent`."""
    seen = [s for s in rec.get("seen", []) if s[0] != key]
    seen.append([key, list(to), team, sent])
    rec["seen"] = seen[-KEEP_KEYS:]


def _keep(rec: dict[str, Any], game: Game, player: str, text: str, team: bool, now: float) -> None:
    """The line in the game's record of talk (the option `talk_record`): its
    time, the speaker's seat and game name, table or team, the cleaned text."""
    said = [*rec.get("said", []), [now, game.seat(player), game.name_of(player), team, text]]
    rec["said"] = said[-KEEP_SAID:]


async def kept(store: Any, game: Game) -> list[dict[str, Any]]:
    """The talk kept of `game` (bots/export.py `--with-talk`): none unless
    the host turned `talk_record` on at its creation."""
    if game.option(RECORD) is not True:
        return []
    rec = load_record(await store.get_attr(game.id, ATTR))
    return [
        {"at": at, "seat": seat, "name": name, "to": "team" if team else "table", "text": text}
        for at, seat, name, team, text in rec.get("said", [])
    ]


async def texts_off(store: Any, game_id: str) -> frozenset[str]:
    """The players who turned talk texts off (`MUTE`), as the record says now:
    the SMS delivery drops their talk queued before (adapters/sms/digest.py)."""
    return frozenset(load_record(await store.get_attr(game_id, ATTR)).get("off", []))


def _line(game: Game, player: str, text: str, team: bool) -> Msg:
    return msg(TEAM_LINE if team else TABLE_LINE, name=game.name_of(player), text=text)


def messages(
    talkers: Sequence[Talker],
    game: Game,
    line: Msg,
    to: Sequence[str],
    key: str,
    team: bool,
    off: frozenset[str],
) -> list[OutboxMessage]:
    """`line`, rendered once in the game's language, for each of `to` who did
    not turn talk texts off (`off`) on each channel, keyed `t:{key}:{player}`,
    and for the game's group when it is the table's talk."""
    text = render(line, game.lang)
    out: list[OutboxMessage] = []
    for t in talkers:
        for player in to:
            if player not in off:
                out.extend(t.to(game, player, text, f"t:{key}:{player}", team))
        if not team:
            out.extend(t.group(game, text, f"t:{key}:group"))
    return out


async def say(
    store: Any,
    talkers: Sequence[Talker],
    game: Game,
    player: str,
    raw: str,
    *,
    key: str,
    now: float,
    team_only: bool = False,
) -> Said:
    """Relay one line of `player` in `game` (as loaded now), at most once
    per inbound `key`, to their team alone with `team_only`; see the module
    doc. `store` is the game store
    (service/ports.py: `get_attr`, `swap_attr_and_append`, `append_outbox`)."""
    text = tidy(raw)
    for _ in range(TRIES):
        raw_rec = await store.get_attr(game.id, ATTR)
        rec = load_record(raw_rec)
        off = frozenset(rec.get("off", []))
        seen = next((s for s in rec.get("seen", []) if s[0] == key), None)
        if seen is not None:  # a redelivery: complete what the first one began
            if seen[3] and text:
                line = _line(game, player, text[:MAX_LINE], bool(seen[2]))
                out = messages(talkers, game, line, seen[1], key, bool(seen[2]), off)
                await _append(store, talkers, game.id, out)
            return Said(DUPLICATE, to=tuple(seen[1]), team=bool(seen[2]))
        found = audience(game, player, now, team_only)
        if isinstance(found, Said):
            return found  # nothing counted, nothing stored: refused by the state
        to, team = found
        reply: Msg | None = None
        if not text:
            reply = msg(EMPTY)
        elif len(text) > MAX_LINE:
            reply = msg(TOO_LONG, max=MAX_LINE)
        else:
            reply = flood(rec, player, now)
        _remember(rec, key, to, team, reply is None)
        if reply is None and game.option(RECORD) is True:
            _keep(rec, game, player, text, team, now)
        out = (
            []
            if reply is not None
            else messages(talkers, game, _line(game, player, text, team), to, key, team, off)
        )
        # the record and the line's messages in one atomic step: both or neither
        if not await store.swap_attr_and_append(game.id, ATTR, raw_rec, json.dumps(rec), out):
            continue  # another worker's line got in first: count again
        if reply is not None:
            return Said(REFUSED, reply)
        _wake(talkers, game.id, out)
        return Said(SENT, to=to, team=team)
    raise RuntimeError(f"{game.id}: talk record contended {TRIES} times")


async def to_team(service: Any, game_id: str, player: str, text: str, *, key: str) -> Said:
    """`say()` to `player`'s team alone (SMS `TEAM ...`, Telegram `/team ...`),
    in the game as `service` (service/games.py `GameService`) loads it now."""
    game = await service.load(game_id)
    return await say(
        service.store, service.talkers, game, player, text,
        key=key, now=service.clock(), team_only=True,
    )  # fmt: skip


async def _append(
    store: Any, talkers: Sequence[Talker], game_id: str, out: list[OutboxMessage]
) -> None:
    if out:
        await store.append_outbox(game_id, out)
        _wake(talkers, game_id, out)


def _wake(talkers: Sequence[Talker], game_id: str, out: list[OutboxMessage]) -> None:
    if out:
        for t in talkers:
            t.wake(game_id)


async def texts(store: Any, game: Game, player: str, on: bool) -> Msg:
    """`MUTE` / `UNMUTE`: turn `player`'s talk texts off or on again (they stay
    in the game and get every game text); the reply."""
    for _ in range(TRIES):
        raw_rec = await store.get_attr(game.id, ATTR)
        rec = load_record(raw_rec)
        off = set(rec.get("off", []))
        (off.discard if on else off.add)(player)
        rec["off"] = sorted(off)
        if await store.swap_attr(game.id, ATTR, raw_rec, json.dumps(rec)):
            return msg(TEXTS_ON if on else TEXTS_OFF)
    raise RuntimeError(f"{game.id}: talk record contended {TRIES} times")


def player_named(game: Game, name: str) -> str | None:
    """The seated player whose game name is `name` (any case), if one is."""
    want = " ".join(name.split()).casefold()
    return next(
        (p for p, n in zip(game.players, game.names, strict=True) if n.casefold() == want), None
    )


async def hush(store: Any, game: Game, by: str, name: str, on: bool) -> Msg:
    """The host mutes (`on`) or unmutes a player's talk, by their game name
    (Telegram `/mute NAME`, SMS `MUTE NAME`); the reply."""
    if by != game.host:
        return msg(ONLY_HOST)
    if not name.strip():
        return msg(HUSH_USAGE)
    target = player_named(game, name)
    if target is None:
        return msg(NO_SUCH_PLAYER, name=name.strip())
    reply = await hush_player(store, game, target, on)
    assert reply is not None  # without a key nothing is "done before"
    return reply


async def hush_player(store: Any, game: Game, target: str, on: bool, key: str = "") -> Msg | None:
    """Mute (`on`) or unmute the seated player `target`: their lines are
    refused (with HUSHED) until unmuted; the reply for the host. A `key`
    (the console's request id) is done once: None for one done before (a
    double tap, a resent form), changing nothing."""
    for _ in range(TRIES):
        raw_rec = await store.get_attr(game.id, ATTR)
        rec = load_record(raw_rec)
        if key and any(s[0] == key for s in rec.get("seen", [])):
            return None
        hushed = set(rec.get("hushed", []))
        (hushed.add if on else hushed.discard)(target)
        rec["hushed"] = sorted(hushed)
        if key:
            _remember(rec, key, (), False, False)
        if await store.swap_attr(game.id, ATTR, raw_rec, json.dumps(rec)):
            break
    else:
        raise RuntimeError(f"{game.id}: talk record contended {TRIES} times")
    return msg(HUSH_DONE if on else HUSH_UNDONE, name=game.name_of(target))
