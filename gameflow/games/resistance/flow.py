"""Resistance's phases: the deal, each proposal round, and the end of each phase.

proposal -> team_vote -> mission, with a rejected (or vetoed) team going back to
proposal. Leadership passes to the next seat after every team vote. The end of
the proposal settles what the leader left undone (cards, team), the end of the
vote counts it, and the end of the mission counts the fails and decides the game.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

from gameflow.core.events import Event, Kind, announce, changed, prompt, prompts, tell
from gameflow.core.phases import enter, over
from gameflow.core.result import Accepted, Rejected, accepted, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game, Phase, replace_at, update, with_rules
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.games.resistance import pacing
from gameflow.games.resistance.cards import (
    CARDS,
    DECKS,
    KEEPING_CLOSE_EYE,
    MISSION_CARDS,
    STRONG_LEADER,
    deck_for,
    parse_heroes,
    shipped_heroes,
)
from gameflow.games.resistance.plots import learn, settle_proposal
from gameflow.games.resistance.state import (
    FAIL,
    MISSION,
    MISSIONS,
    NOBODY,
    PROPOSAL,
    RESISTANCE,
    SIZES,
    SPIES,
    SPY,
    SUCCESS,
    TEAM_VOTE,
    WINS_NEEDED,
    Config,
    Fact,
    MissionRecord,
    Resistance,
    TeamVote,
)
from gameflow.games.resistance.texts import NO_ONE, card_name, mission_card, team_msg, vote_msg


def config_for(game: Game) -> Config:
    size = SIZES[len(game.players)]
    opts = dict(game.options)  # read once, not scanned once per option
    return Config(
        size.teams,
        size.double_fail if opts.get("double_fail", True) else 0,
        size.plot_cards if opts.get("plot_cards", True) else 0,
        bool(opts.get("heroes", False)),
        float(opts.get("proposal_seconds", 180.0)),
        float(opts.get("vote_seconds", 120.0)),
        float(opts.get("mission_seconds", 60.0)),
        int(opts.get("max_rejections", 5)) or 5,
    )


def start(game: Game, now: float) -> Accepted[Game] | Rejected:
    n = len(game.players)
    setup: dict[str, Any] = json.loads(game.setup) if game.setup != "{}" else {}
    roles = setup.get("roles")
    if roles is not None:
        if not isinstance(roles, dict) or set(roles) - set(game.players):
            return reject("bad_setup", N_("The fixed deal names unknown players or roles."))
        if any(r not in (SPY, RESISTANCE) for r in roles.values()):
            return reject("bad_setup", N_("The fixed deal names unknown players or roles."))
        spy = tuple(roles.get(p) == SPY for p in game.players)
    else:
        k = int(game.option("spies", 0)) or SIZES[n].spies
        if not 0 < k < n / 2:
            return reject("bad_setup", N_("The spies must be fewer than half the players."))
        chosen = rng_for(game.seed, "resistance/roles").sample(range(n), k)
        spy = tuple([i in chosen for i in range(n)])
    if "leader" in setup:
        leader = game.seat(str(setup["leader"]))
        if leader < 0:
            return reject("bad_setup", N_("The fixed deal names unknown players or roles."))
    else:
        leader = rng_for(game.seed, "resistance/leader").randrange(n)
    kind = str(game.option("plot_deck", "auto"))
    if kind not in DECKS:
        return reject("bad_setup", N_("The plot deck is auto, full or reduced."))
    if (bad := pacing.check(game)) is not None:
        return bad
    config = config_for(game)
    deck: tuple[str, ...] = ()
    if "plot_deck" in setup:
        fixed = setup["plot_deck"]
        if not isinstance(fixed, list) or any(c not in CARDS for c in fixed):
            return reject("bad_setup", N_("The fixed plot deck names unknown cards."))
        deck = tuple(fixed)
    elif config.draw:  # no shuffle without plot cards (a draw of its own: nothing else moves)
        cards = list(deck_for(n, kind))
        rng_for(game.seed, "resistance/plot_deck").shuffle(cards)
        deck = tuple(cards)
    heroes: tuple[str, ...] = ()
    if config.heroes:
        custom = str(game.option("hero_cards", ""))
        heroes = parse_heroes(custom) if custom.strip() else shipped_heroes(game.lang)
        order = list(heroes)
        rng_for(game.seed, "resistance/heroes").shuffle(order)
        heroes = tuple(order)
    st = Resistance(
        config=config,
        spy=spy,
        leader=leader,
        deck=deck if config.draw else (),
        knowledge=((),) * n,
        heroes=heroes,
    )
    game = update(game, rules=st, missed=(0,) * n, options=pacing.held(game))
    seq = game.phase.seq + 1
    names = game.names
    teams = [str(t) for t in config.teams]
    if config.double_fail:
        teams[config.double_fail - 1] += "*"
    events: list[Event] = [
        announce(
            msg(
                N_(
                    "The game has started: {count} players, {spies} spies. Team sizes: {teams}. "
                    "The first leader is {leader}."
                ),
                count=n,
                spies=sum(spy),
                teams="-".join(teams),
                leader=names[leader],
            ),
            seq,
        )
    ]
    # One message each side: Msg is immutable, so every spy's card can be the same.
    spies = tuple([names[i] for i in range(n) if spy[i]])
    spy_text = msg(N_("You are a SPY. The spies are: {names}."), names=spies)
    loyal_text = msg(N_("You are in the RESISTANCE."))
    for i, player in enumerate(game.players):
        events.append(tell(player, spy_text if spy[i] else loyal_text, seq, secret=True))
    return start_proposal(game, st, now, events, first=True)


# Transitions pass the Resistance state along and build the new Game once, at
# the end; `game.rules` may be older than `st` in between. A new proposal round
# resets the round's fields by index (one copy, no keyword handling): it runs
# after every team vote.
_PHASE: Final = Game._fields.index("phase")
_WINNER: Final = Game._fields.index("winner")
_RULES: Final = Game._fields.index("rules")
_F: Final = {name: i for i, name in enumerate(Resistance._fields)}
_DECK: Final = _F["deck"]
_HAND: Final = _F["hand"]
_TEAM: Final = _F["team"]
_VOTES: Final = _F["votes"]
_CARDS: Final = _F["cards"]
_DEALING: Final = _F["dealing_started"]
_STRONG: Final = _F["strong_played"]
_PASSED: Final = _F["passed"]
_VETO: Final = _F["veto"]
_SPOTLIGHT: Final = _F["spotlight"]
_WATCH: Final = _F["watch"]
_HERO: Final = _F["hero"]
_HERO_COUNT: Final = _F["hero_count"]
_PROPOSALS: Final = _F["proposals"]
_LEADER: Final = _F["leader"]
_RESULTS: Final = _F["results"]
_MISSION_NO: Final = _F["mission"]
_REJECTIONS: Final = _F["rejections"]
_OPINIONS: Final = _F["opinions_shown"]
_NONE: Final = {n: (None,) * n for n in SIZES}
_new: Final = tuple.__new__
_ON_MISSION: Final = {
    m: msg(N_("The team goes on mission {mission}."), mission=m) for m in range(1, MISSIONS + 1)
}
_VOTE_ON: Final = N_("Vote on the team {names}: approve or reject.")
_VOTE_FIRST: Final = N_("Vote on the team {names}. The opinion makers vote first: {makers}.")
_NO_VOTE: Final = msg(N_("no vote"))
_APPROVED: Final = N_(
    "The team is approved ({yes} of {count}). Approve: {approve}. Reject: {reject}."
)
_REJECTED: Final = N_(
    "The team is rejected ({yes} of {count}). Approve: {approve}. Reject: {reject}."
)
_ROUND: Final = N_(
    "Mission {mission}, proposal {attempt}: {leader} leads and picks {size} players."
)


def _with_rules_phase(game: Game, st: Resistance, phase: Phase) -> Game:
    """`update(game, rules=st, phase=phase)` by index: every phase change ends so."""
    values = list(game)
    values[_RULES] = st
    values[_PHASE] = phase
    made: Game = _new(Game, values)
    return made


def start_proposal(
    game: Game, st: Resistance, now: float, events: list[Event], first: bool
) -> Accepted[Game]:
    """A new proposal round: draw plot cards and the hero card (first round of
    a mission), and wait for the leader."""
    n = len(game.players)
    hand: tuple[str, ...] = ()
    deck = st.deck
    draw = st.config.draw
    if first and draw:
        hand, deck = deck[:draw], deck[draw:]
    # The hero card is drawn with the plot cards, once per mission round.
    hero = st.heroes[st.hero_count % len(st.heroes)] if st.heroes and first else ""
    none = _NONE[n]  # 5 to 10 players, as SIZES
    values = list(st)
    values[_DECK] = deck
    values[_HAND] = hand
    values[_TEAM] = ()
    values[_VOTES] = none
    values[_CARDS] = none
    values[_DEALING] = False
    values[_STRONG] = False
    values[_PASSED] = ()
    values[_VETO] = NOBODY
    values[_SPOTLIGHT] = ()
    values[_WATCH] = ()
    if hero:
        values[_HERO] = hero
        values[_HERO_COUNT] = st.hero_count + 1
    st = _new(Resistance, values)
    config = st.config
    mission = st.mission
    seconds, st = pacing.proposal(game, st, now, first)
    phase, timers = enter(game, PROPOSAL, mission, seconds, now)
    seq = phase.seq
    leader = game.names[st.leader]
    size = config.teams[mission - 1]
    attempt = st.rejections + 1
    text = msg(_ROUND, mission=mission, attempt=attempt, leader=leader, size=size)
    events.append(announce(text, seq))
    if hand:
        events.append(
            announce(
                msg(
                    N_("{leader} draws plot cards to give out: {cards}."),
                    leader=leader,
                    cards=tuple(card_name(c) for c in hand),
                ),
                seq,
            )
        )
    if hero:
        events.append(announce(msg(N_("Hero card: {hero}"), hero=hero), seq))
    events.append(prompt(game.players[st.leader], seq))
    if st.held:
        strong = {h.seat for h in st.held if h.card == STRONG_LEADER and h.seat != st.leader}
        events.extend(prompt(game.players[s], seq) for s in sorted(strong))
    events.extend(timers)
    events.append(changed(seq))
    return accepted(_with_rules_phase(game, st, phase), tuple(events))


def end_phase(game: Game, now: float) -> Accepted[Game]:
    name = game.phase.name
    if name == PROPOSAL:
        return _end_proposal(game, now)
    if name == TEAM_VOTE:
        st: Resistance = game.rules
        if st.makers_first():  # the opinion makers' time ran out
            return open_vote(game, st, now, [])
        return _end_vote(game, now)
    return _end_mission(game, now)


def random_team(game: Game) -> tuple[int, ...]:
    """A leader who misses the deadline gets a drawn team: themselves and others."""
    st: Resistance = game.rules
    others = [s for s in range(len(game.players)) if s != st.leader]
    rng = rng_for(game.seed, f"resistance/team/{game.phase.seq}")
    return (st.leader, *rng.sample(others, st.team_size - 1))


def _end_proposal(game: Game, now: float) -> Accepted[Game]:
    st: Resistance = game.rules
    events: list[Event] = []
    if st.hand or st.pending:  # cards the leader or a receiver left
        game, events = settle_proposal(game)
        st = game.rules
    seq = game.phase.seq
    if not st.team:
        st = update(st, team=random_team(game))
        events.append(
            announce(
                msg(
                    N_("{leader} did not propose in time; the drawn team is: {names}."),
                    leader=game.names[st.leader],
                    names=tuple(game.names[s] for s in st.team),
                ),
                seq,
            )
        )
        game = with_rules(game, st)
    phase, timers = enter(game, TEAM_VOTE, st.mission, pacing.vote(game, st, now), now)
    seq = phase.seq
    names = game.names
    team: tuple[Msg | str | int, ...] = tuple([names[s] for s in st.team])
    makers = st.opinion_makers()
    if makers:  # only they are asked now; everyone else once they have voted
        st = replace_at(st, _OPINIONS, False)
        first: tuple[Msg | str | int, ...] = tuple([names[s] for s in makers])
        events.append(announce(msg(_VOTE_FIRST, names=team, makers=first), seq))
        events += prompts([game.players[s] for s in makers], seq)
        game = with_rules(game, st)
    else:
        events.append(announce(msg(_VOTE_ON, names=team), seq))
        events += prompts(game.players, seq)
    events += timers
    events.append(changed(seq))
    return accepted(replace_at(game, _PHASE, phase), tuple(events))


def open_vote(game: Game, st: Resistance, now: float, events: list[Event]) -> Accepted[Game]:
    """The opinion makers have voted (or their time ran out: a missing vote is
    a rejection, as always): their votes are shown, and everyone else is asked
    in a team vote of its own, with the whole vote time. Nobody is waited for,
    or counted as missing a deadline, before they were asked."""
    names = game.names
    shown = tuple(
        msg(
            N_("{name}: {choice}"),
            name=names[s],
            choice=_NO_VOTE if st.votes[s] is None else vote_msg(bool(st.votes[s])),
        )
        for s in st.opinion_makers()
    )
    st = replace_at(st, _OPINIONS, True)
    phase, timers = enter(game, TEAM_VOTE, st.mission, pacing.vote(game, st, now), now)
    seq = phase.seq
    events.append(announce(msg(N_("The opinion makers have voted: {votes}."), votes=shown), seq))
    makers = st.opinion_makers()
    rest = [p for s, p in enumerate(game.players) if s not in makers and st.votes[s] is None]
    events += prompts(rest, seq)
    events += timers
    events.append(changed(seq))
    return accepted(_with_rules_phase(game, st, phase), tuple(events))


def _end_vote(game: Game, now: float) -> Accepted[Game]:
    st: Resistance = game.rules
    n = len(game.players)
    seq = game.phase.seq
    votes = st.votes
    yes = votes.count(True)
    approved = 2 * yes > n  # strict majority of all players; a missing vote rejects
    names = game.names
    pro: tuple[Msg | str | int, ...] = tuple([names[s] for s, v in enumerate(votes) if v])
    con: tuple[Msg | str | int, ...] = tuple([names[s] for s, v in enumerate(votes) if not v])
    record: TeamVote = _new(
        TeamVote,
        (st.mission, st.rejections + 1, st.leader, st.team, votes, approved, NOBODY, st.hero),
    )
    values = list(st)
    values[_PROPOSALS] = (*st.proposals, record)
    values[_LEADER] = (st.leader + 1) % n
    st = _new(Resistance, values)
    text = msg(
        _APPROVED if approved else _REJECTED,
        yes=yes,
        count=n,
        approve=pro or NO_ONE,
        reject=con or NO_ONE,
    )
    events: list[Event] = [announce(text, seq)]
    if not approved:
        return _rejected(game, st, now, events)
    phase, timers = enter(game, MISSION, st.mission, pacing.mission(game, st, now), now)
    seq = phase.seq
    events.append(announce(_ON_MISSION[st.mission], seq))
    players = game.players
    members: Iterable[int] = st.team
    if st.held:  # holders of mission-phase plot cards are asked too
        members = {*st.team, *(h.seat for h in st.held if h.card in MISSION_CARDS)}
    events += prompts([players[s] for s in sorted(members)], seq)
    events += timers
    events.append(changed(seq))
    return accepted(_with_rules_phase(game, st, phase), tuple(events))


def _rejected(game: Game, st: Resistance, now: float, events: list[Event]) -> Accepted[Game]:
    """A rejected or vetoed team: move the vote track; the fifth rejection in a
    row wins the game for the spies."""
    st = replace_at(st, _REJECTIONS, st.rejections + 1)
    if st.rejections >= st.config.max_rejections:
        events.append(
            announce(
                nmsg(
                    "{n} team in a row was rejected.",
                    "{n} teams in a row were rejected.",
                    st.config.max_rejections,
                ),
                game.phase.seq,
            )
        )
        return _game_over(game, st, SPIES, now, events)
    return start_proposal(game, st, now, events, first=False)


def _end_mission(game: Game, now: float) -> Accepted[Game]:
    st: Resistance = game.rules
    seq = game.phase.seq
    events: list[Event] = []
    if st.veto != NOBODY:
        last = st.proposals[-1]
        st = update(st, proposals=(*st.proposals[:-1], update(last, vetoed_by=st.veto)))
        return _rejected(game, st, now, events)
    cards = st.cards
    played = tuple([cards[s] or SUCCESS for s in st.team])  # a missing card is a success
    fails = played.count(FAIL)
    success = fails < st.config.fails_needed(st.mission)
    shown = tuple([(s, cards[s] or SUCCESS) for s in st.spotlight])
    for watcher, watched in st.watch:
        seen = cards[watched] or SUCCESS
        st = learn(st, watcher, Fact(st.mission, KEEPING_CLOSE_EYE, watched, seen))
        text = msg(
            N_("Keeping a Close Eye on You: {name} played {card}."),
            name=game.names[watched],
            card=mission_card(seen),
        )
        events.append(tell(game.players[watcher], text, seq, secret=True))
    for s, card in shown:
        events.append(
            announce(
                msg(
                    N_("In the spotlight, {name} played {card}."),
                    name=game.names[s],
                    card=mission_card(card),
                ),
                seq,
            )
        )
    mission = st.mission
    failed = tuple([s for s in st.team if cards[s] == FAIL])  # secret until the end's reveal
    record: MissionRecord = _new(
        MissionRecord, (mission, st.team, fails, success, st.rejections, shown, failed)
    )
    results = (*st.results, record)
    text = (
        nmsg(
            "Mission {mission} succeeded ({n} fail card).",
            "Mission {mission} succeeded ({n} fail cards).",
            fails,
            mission=mission,
        )
        if success
        else nmsg(
            "Mission {mission} failed ({n} fail card).",
            "Mission {mission} failed ({n} fail cards).",
            fails,
            mission=mission,
        )
    )
    events.append(announce(text, seq))
    values = list(st)
    values[_RESULTS] = results
    successes = sum([r.success for r in results])
    if successes >= WINS_NEEDED:
        return _game_over(game, _new(Resistance, values), RESISTANCE, now, events)
    if len(results) - successes >= WINS_NEEDED or len(results) >= MISSIONS:
        return _game_over(game, _new(Resistance, values), SPIES, now, events)
    values[_MISSION_NO] = mission + 1
    values[_REJECTIONS] = 0
    return start_proposal(game, _new(Resistance, values), now, events, first=True)


def _game_over(
    game: Game, st: Resistance, winner: str, now: float, events: list[Event]
) -> Accepted[Game]:
    values = list(game)
    values[_RULES] = st
    values[_PHASE] = over(game, now)
    values[_WINNER] = winner
    ended: Game = _new(Game, values)
    seq = ended.phase.seq
    text = msg(N_("The resistance wins!")) if winner == RESISTANCE else msg(N_("The spies win!"))
    spies: tuple[Msg | str | int, ...] = tuple(
        game.names[s] for s in range(len(game.players)) if st.spy[s]
    )
    events.append(announce(text, seq))
    events.append(announce(msg(N_("The spies were: {names}."), names=spies), seq))
    events.extend((Event(Kind.OVER, phase=seq), changed(seq)))
    return accepted(ended, tuple(events))


__all__ = ["SUCCESS", "config_for", "end_phase", "random_team", "start", "team_msg"]
