"""The one transition: `apply(game, action, now) -> Accepted | Rejected`.

The engine handles what every game shares: the lobby, host controls (pause and
resume keep the remaining time, advance early once the game says its phase is
ready, end), deadlines carrying the phase they were armed for, the version bumped on
every accepted action, the report to the host when a player misses two
deadlines in a row, the host moving a campaign window (gameflow.core.campaign), players saying
they are away and the host marking one gone for good (gameflow.core.away). Everything
game-specific is delegated to the game's `Rules`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from gameflow.core import actions as A
from gameflow.core import away, campaign, names
from gameflow.core import options as options_of
from gameflow.core.events import Event, Kind, announce, changed, to_host
from gameflow.core.legal import ActionSpec, Field
from gameflow.core.phases import over, rearm
from gameflow.core.result import Accepted, Rejected, accepted, reject
from gameflow.core.rules import Rules, rules_for
from gameflow.core.state import (
    HOST_VIEW,
    LOBBY,
    OVER,
    Game,
    Phase,
    seed_digest,
    update,
    with_version,
)
from gameflow.core.text import N_, msg, nmsg

LANGUAGES: Final = ("nb", "sr", "en")
MAX_NAME: Final = names.MAX_NAME
MISSES_REPORTED: Final = 2


def new_game(
    kind: str,
    game_id: str,
    host: str,
    seed: str | int,
    *,
    lang: str = "nb",
    options: Mapping[str, Any] | None = None,
    setup: Mapping[str, Any] | None = None,
) -> Game:
    """A game in its lobby. `seed` decides every draw; `setup` fixes draws for tests."""
    opts = options_of.settle(rules_for(kind), options)  # OptionError: what fits
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    return Game(
        id=game_id,
        kind=kind,
        seed=str(seed),
        host=host,
        lang=lang,
        options=tuple(sorted(opts.items())),
        setup=json.dumps(dict(setup), sort_keys=True, separators=(",", ":")) if setup else "{}",
    )


def apply(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    """Apply `action` at time `now`. A rejection changes nothing; an accepted
    action bumps the version by one."""
    handler = _CORE.get(type(action))
    if handler is None:  # a game's own action: most inputs (it bumps the version itself)
        return _game_action(game, action, now)
    result = handler(game, action, now)
    if isinstance(result, Rejected):
        return result
    return accepted(with_version(result.state, game.version + 1), result.events)


def legal(game: Game, player: str) -> tuple[ActionSpec, ...]:
    """Everything `player` (or the host) may do now, game actions first."""
    rules = _RULES.get(game.kind) or _rules(game.kind)
    running = game.phase.name not in (LOBBY, OVER)  # game.running, without the call
    if running and player != game.host:
        # The common case, asked for every player after every input: a player's
        # own game actions and nothing else.
        return rules.legal(game, player) if player in game.players else ()
    specs: list[ActionSpec] = []
    seq = game.phase.seq
    hosted = player == game.host and bool(rules.host_kinds)
    if running and (game.seat(player) >= 0 or hosted):
        specs.extend(rules.legal(game, player))
    if game.phase.name == LOBBY:
        if game.seat(player) >= 0:
            specs.append(ActionSpec(A.Leave.kind, seq))
        if player == game.host:
            specs.append(ActionSpec(A.Start.kind, seq))
            specs.append(ActionSpec(A.Kick.kind, seq, (Field("target", game.players),)))
            names = tuple(sorted(rules.default_options()))
            specs.append(ActionSpec(A.SetOption.kind, seq, (Field("name", names),)))
            specs.append(ActionSpec(A.SetLanguage.kind, seq, (Field("lang", LANGUAGES),)))
    elif running and player == game.host:
        specs.append(ActionSpec(A.Resume.kind if game.phase.paused else A.Pause.kind, seq))
        if rules.ready(game):
            specs.append(ActionSpec(A.Advance.kind, seq))
        specs.append(ActionSpec(A.End.kind, seq))
    if player == game.host and not game.over:
        move = campaign.move_spec(game)
        if move is not None:
            specs.append(move)
    return tuple(specs)


def view(game: Game, viewer: str | None) -> dict[str, Any]:
    """The view of `viewer`: None for the public (TV) view, HOST_VIEW for the
    host's, a player id for that player's. Pure: the same game, the same view."""
    rules = rules_for(game.kind)
    # A game ended by the host in its lobby is over but was never dealt.
    dealt = game.phase.name != LOBBY and game.rules is not None
    if viewer is None:
        base = rules.public_view(game) if dealt else {}
    elif viewer == HOST_VIEW:
        base = rules.host_view(game) if dealt else {}
    elif game.seat(viewer) >= 0:
        base = rules.player_view(game, viewer) if dealt else {}
    else:
        raise KeyError(f"{viewer!r} is not in game {game.id}")
    head: dict[str, Any] = {
        "game": game.kind,
        "id": game.id,
        "lang": game.lang,
        "phase": game.phase.name,
        "phase_seq": game.phase.seq,
        "round": game.phase.round,
        "deadline": game.phase.deadline,
        "paused": game.phase.paused,
        "paused_left": game.phase.paused_left,
        "players": [{"id": p, "name": n} for p, n in zip(game.players, game.names, strict=True)],
        "seed_sha256": seed_digest(game.seed),
        "over": game.over,
        "winner": game.winner,
    }
    if game.over:
        head["seed"] = game.seed
    if viewer == HOST_VIEW:
        # Only the host's view counts inputs: the version moves with every one,
        # secret ones too, so in the public or a player's view its jumps would
        # tell who acted. A game with secret inputs whose host view must hold
        # nothing secret (the Traitors: how many night votes came) leaves it out.
        if not getattr(rules, "secret_inputs", False):
            head["version"] = game.version
        head["missed"] = dict(zip(game.players, game.missed, strict=True))
    head.update(base)
    return head


# -- game actions ----------------------------------------------------------------


def _game_action(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    phase = game.phase
    if phase.name == LOBBY or phase.name == OVER:
        return _not_running(game)
    if action.phase is not None and action.phase != phase.seq:
        return reject("stale", N_("That question has already closed."))
    by = action.by
    players = game.players
    seat = players.index(by) if by in players else -1  # game.seat, without the call
    rules = _RULES.get(game.kind) or _rules(game.kind)
    # A game may accept some of its own actions from the host (game master); it
    # lists their kinds in `host_kinds`. Host inputs never auto-advance a phase.
    if seat < 0 and not (by == game.host and action.kind in rules.host_kinds):
        return reject("not_in_game", N_("You are not playing in this game."))
    result = rules.act(game, action, now)
    if isinstance(result, Rejected):
        return result
    # The version bump and a player's reset miss count share one copy of the
    # Game (no game reads the version, so the phase's end may see it bumped); a
    # game that built its new state with `input_state` has bumped it already.
    new = result.state
    version = game.version + 1
    if seat < 0:
        if new.version != version:
            new = with_version(new, version)
        return accepted(new, result.events)
    if new.version != version or new.missed[seat]:
        values = list(new)
        values[_VERSION] = version
        missed = values[_MISSED]
        if missed[seat]:
            values[_MISSED] = _set(missed, seat, 0)
        new = tuple.__new__(Game, values)
    # Whether anyone is still awaited is asked first: usually someone is, and
    # then the option need not be read (both are pure, so the order changes
    # nothing else).
    now_phase = new.phase
    if (
        now_phase.seq == phase.seq
        and now_phase.paused_left is None  # not paused
        and rules.ready(new)
        and new.option("auto_advance", True)
    ):
        ended = rules.end_phase(new, now)
        return accepted(ended.state, result.events + ended.events)
    return accepted(new, result.events)


_MISSED: Final = Game._fields.index("missed")
_VERSION: Final = Game._fields.index("version")
_RULES: dict[str, Rules] = {}  # the registry (filled once, at import), without a call per input


def _rules(kind: str) -> Rules:
    rules = _RULES[kind] = rules_for(kind)
    return rules


# -- core actions -----------------------------------------------------------------


def _join(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    assert isinstance(action, A.Join)
    if game.phase.name != LOBBY:
        return reject("started", N_("The game has already started."))
    player = action.by or ""
    if not player or player.startswith("@"):
        return reject("bad_player", N_("That player id can't be used."))
    if game.seat(player) >= 0:
        return reject("joined", N_("You have already joined this game."))
    name = names.admit(game.names, action.name)  # cleaned, or refused (gameflow.core.names)
    if isinstance(name, Rejected):
        return name
    rules = _RULES.get(game.kind) or _rules(game.kind)
    if len(game.players) >= rules.max_players:
        return reject("full", N_("The game is full ({max} players)."), max=rules.max_players)
    new = update(
        game, players=(*game.players, player), names=(*game.names, name), missed=(*game.missed, 0)
    )
    text = nmsg(
        "{name} joined ({n} player).", "{name} joined ({n} players).", len(new.players), name=name
    )
    return accepted(new, (announce(text, game.phase.seq), changed()))


def _leave(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    return _remove(game, action.by or "", game.phase.seq)


def _kick(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    assert isinstance(action, A.Kick)
    if action.by != game.host:
        return _host_only()
    return _remove(game, action.target, game.phase.seq)


def _remove(game: Game, player: str, seq: int) -> Accepted[Game] | Rejected:
    if game.phase.name != LOBBY:
        return reject("started", N_("The game has already started."))
    i = game.seat(player)
    if i < 0:
        return reject("not_in_game", N_("That player is not in this game."))
    name = game.names[i]
    new = game._replace(
        players=_drop(game.players, i), names=_drop(game.names, i), missed=_drop(game.missed, i)
    )
    text = msg(N_("{name} left ({count} players)."), name=name, count=len(new.players))
    return accepted(new, (announce(text, seq), Event(Kind.CHANGED)))


def _set_option(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    assert isinstance(action, A.SetOption)
    if action.by != game.host:
        return _host_only()
    if game.phase.name != LOBBY:
        return reject("started", N_("The game has already started."))
    rules = rules_for(game.kind)
    if action.name not in rules.default_options():
        return reject("bad_option", N_("There is no setting called {name}."), name=action.name)
    value, problem = options_of.fit(rules, action.name, action.value)  # type and range
    if problem is not None:
        return Rejected("bad_value", problem)
    opts = dict(game.options)
    opts[action.name] = value
    return accepted(game._replace(options=tuple(sorted(opts.items()))), (Event(Kind.CHANGED),))


def _set_language(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    assert isinstance(action, A.SetLanguage)
    if action.by != game.host:
        return _host_only()
    if action.lang not in LANGUAGES:
        return reject("bad_language", N_("Choose one of the languages nb, sr or en."))
    return accepted(game._replace(lang=action.lang), (Event(Kind.CHANGED),))


def _start(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    if action.by != game.host:
        return _host_only()
    if game.phase.name != LOBBY:
        return reject("started", N_("The game has already started."))
    rules = rules_for(game.kind)
    n = len(game.players)
    if not rules.min_players <= n <= rules.max_players:
        return reject(
            "player_count",
            N_("This game needs {min} to {max} players; {count} have joined."),
            min=rules.min_players,
            max=rules.max_players,
            count=n,
        )
    if isinstance(action, A.Start) and action.zone:
        game = update(game, zone=action.zone)
    return rules.start(game, now)


def _pause(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    if action.by != game.host:
        return _host_only()
    if not game.running:
        return _not_running(game)
    if game.phase.paused:
        return reject("paused", N_("The game is already paused."))
    deadline = game.phase.deadline
    # A phase without a deadline remembers that with a negative remainder.
    left = -1.0 if deadline is None else max(0.0, deadline - now)
    phase = game.phase._replace(deadline=None, paused_left=left)
    text = msg(N_("The host has paused the game."))
    return accepted(game._replace(phase=phase), (announce(text, phase.seq), Event(Kind.CHANGED)))


def _resume(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    if action.by != game.host:
        return _host_only()
    if not game.running:
        return _not_running(game)
    if not game.phase.paused:
        return reject("not_paused", N_("The game is not paused."))
    left = game.phase.paused_left or 0.0
    deadline = None if left < 0 else now + left
    if deadline is not None and campaign.is_campaign(game):
        deadline = campaign.fit(game, deadline)  # never in the quiet hours
    phase = game.phase._replace(deadline=deadline, paused_left=None)
    seq = phase.seq
    events = [announce(msg(N_("The game goes on.")), seq), Event(Kind.CHANGED)]
    if deadline is not None:
        events.extend(rearm(game, seq, deadline, now))
    resumed = game._replace(phase=phase)
    rules = rules_for(game.kind)
    # Everyone got ready during the pause: move on now, as it would have then.
    if game.option("auto_advance", True) and rules.expected(resumed) and rules.ready(resumed):
        ended = rules.end_phase(resumed, now)
        return accepted(ended.state, (*events, *ended.events))
    return accepted(resumed, tuple(events))


def _advance(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    if action.by != game.host:
        return _host_only()
    if not game.running:
        return _not_running(game)
    if action.phase is not None and action.phase != game.phase.seq:
        return reject("stale", N_("That question has already closed."))
    if game.phase.paused:
        return reject("paused", N_("The game is paused: resume it first."))
    return end_when_ready(game, now)


def end_when_ready(game: Game, now: float) -> Accepted[Game] | Rejected:
    """End the running game's phase now if the game says it may (`ready`), as
    the host's advance and a replayed automatic advance do; else say why not.

    The game says whether its phase may end now, not the core from who is
    awaited: a phase that never ends early (a Traitors night) refuses alike
    before and after its secret inputs, so the refusal tells nothing."""
    rules = rules_for(game.kind)
    if not rules.ready(game):
        waiting = () if rules.secret_awaiting(game) else rules.awaiting(game)
        if waiting:
            return reject(
                "not_ready",
                N_("Not everyone is ready yet: waiting for {names}."),
                names=tuple(game.names[i] for i in waiting),
            )
        return reject("not_early", N_("This phase can't be ended early: it ends at its deadline."))
    ended = rules.end_phase(game, now)
    return accepted(ended.state, ended.events)


def _end(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    if action.by != game.host:
        return _host_only()
    if game.over:
        return _not_running(game)
    new = game._replace(phase=over(game, now), winner=None, ended_by_host=True)
    text = msg(N_("The host has ended the game."))
    return accepted(new, (announce(text, new.phase.seq), Event(Kind.OVER), Event(Kind.CHANGED)))


def _deadline(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    if not game.running:
        return _not_running(game)
    if action.phase != game.phase.seq:
        return reject("stale", N_("That question has already closed."))
    if game.phase.paused:
        return reject("paused", N_("The game is paused."))
    deadline = game.phase.deadline
    if deadline is not None and now < deadline:
        return reject("not_due", N_("There is still time left in this phase."))
    rules = rules_for(game.kind)
    missed = list(game.missed)
    reports: list[Event] = []
    # Where who is awaited is itself a secret (Traitors' night: only traitors
    # vote), misses go uncounted, so neither the host's counts nor its reports
    # can point at anyone.
    # Players away (gameflow.core.away) take the defaults like anyone who did
    # not answer, but their misses are neither counted nor reported.
    counted = () if rules.secret_awaiting(game) else away.present(game, rules.awaiting(game), now)
    for seat in counted:
        missed[seat] += 1
        if missed[seat] == MISSES_REPORTED:
            text = msg(N_("{name} has missed two deadlines in a row."), name=game.names[seat])
            reports.append(to_host(game.host, text, game.phase.seq))
    ended = rules.end_phase(game._replace(missed=tuple(missed)), now)
    return accepted(ended.state, tuple(reports) + ended.events)


def _host_only() -> Rejected:
    return reject("host_only", N_("Only the host can do that."))


def _not_running(game: Game) -> Rejected:
    if game.over:
        return reject("over", N_("The game is over."))
    return reject("not_started", N_("The game has not started yet."))


def _set(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return (*t[:i], v, *t[i + 1 :])


def _drop(t: tuple[Any, ...], i: int) -> tuple[Any, ...]:
    return (*t[:i], *t[i + 1 :])


_CORE: Final = {
    A.Join: _join,
    A.Leave: _leave,
    A.Kick: _kick,
    A.SetOption: _set_option,
    A.SetLanguage: _set_language,
    A.Start: _start,
    A.Pause: _pause,
    A.Resume: _resume,
    A.Advance: _advance,
    A.End: _end,
    A.Deadline: _deadline,
    A.MoveWindow: campaign.move_window,
    A.Away: away.set_away,
    A.Gone: away.set_gone,
    A.NotGone: away.set_gone,
}


__all__ = ["Phase", "apply", "legal", "new_game", "view"]
