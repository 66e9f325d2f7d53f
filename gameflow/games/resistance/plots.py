"""Plot cards: dealing them, when each can be played, and their effects.

Timings (see docs/rules/resistance.md):
- dealt in the proposal phase by the leader, before the team is proposed;
- Strong Leader: in the proposal phase, before any card is given and before
  the team is proposed;
- the immediate cards needing a choice (Take Responsibility, Overheard
  Conversation, Open Up): by their receiver, in the proposal phase they were
  dealt in;
- No Confidence, In the Spotlight, Keeping a Close Eye on You: in the mission
  phase, until it ends (a veto stops the mission).

The cards that reveal information (Overheard Conversation, Open Up, Establish
Confidence, Keeping a Close Eye on You) produce a secret event to exactly the
player who learns something, and no public text; the public log shows that the
card was used, never on whom.
"""

from __future__ import annotations

from gameflow.core.events import Event, announce, changed, prompt, tell
from gameflow.core.result import Accepted, Rejected, accepted, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game, update, with_rules
from gameflow.core.text import N_, msg
from gameflow.games.resistance.actions import Give, Play
from gameflow.games.resistance.cards import (
    CARDS,
    CHOICE_CARDS,
    ESTABLISH_CONFIDENCE,
    IMMEDIATE,
    IN_THE_SPOTLIGHT,
    KEEPING_CLOSE_EYE,
    MISSION_CARDS,
    NO_CONFIDENCE,
    OPEN_UP,
    OVERHEARD_CONVERSATION,
    STRONG_LEADER,
    TAKE_RESPONSIBILITY,
)
from gameflow.games.resistance.state import (
    MISSION,
    NOBODY,
    PROPOSAL,
    Fact,
    Held,
    PlotUse,
    Resistance,
)
from gameflow.games.resistance.texts import card_name, team_msg, team_of


def _without(items: tuple[Held, ...], item: Held) -> tuple[Held, ...]:
    i = items.index(item)
    return (*items[:i], *items[i + 1 :])


def learn(st: Resistance, seat: int, fact: Fact) -> Resistance:
    k = st.knowledge
    return update(st, knowledge=(*k[:seat], (*k[seat], fact), *k[seat + 1 :]))


def _show_team(
    game: Game, st: Resistance, card: str, seat: int, about: int, text: str, who: str
) -> tuple[Resistance, Event]:
    """`card` shows `seat` the team of `about`: a fact they keep, and `text`
    told them in secret (`{who}` names `about` in it, `{team}` the team)."""
    spy = st.spy[about]
    st = learn(st, seat, Fact(st.mission, card, about, team_of(spy)))
    told = msg(text, **{who: game.names[about]}, team=team_msg(spy))
    return st, tell(game.players[seat], told, game.phase.seq, secret=True)


def playable(game: Game, seat: int) -> tuple[str, ...]:
    """The plot cards `seat` can play right now (each kind once)."""
    st: Resistance = game.rules
    name = game.phase.name
    if name == PROPOSAL:
        strong = (
            not (st.strong_played or st.dealing_started or st.team)
            and seat != st.leader
            and st.holds(seat, STRONG_LEADER)
        )
        out: list[str] = [STRONG_LEADER] if strong else []
        if st.pending:  # immediate cards waiting for their receiver's choice
            out.extend(h.card for h in st.pending if h.seat == seat and h.card not in out)
        return tuple(out)
    if name == MISSION and st.veto == NOBODY:
        mine = {h.card for h in st.held if h.seat == seat}
        if not mine:
            return ()
        return tuple(
            card
            for card in MISSION_CARDS
            if card in mine and (card == NO_CONFIDENCE or play_targets(game, seat, card))
        )
    return ()


def play_targets(game: Game, seat: int, card: str) -> tuple[int, ...]:
    """The allowed targets of `card` for `seat`; (NOBODY,) for untargeted cards."""
    st: Resistance = game.rules
    n = len(game.players)
    if card == IN_THE_SPOTLIGHT:
        return tuple(s for s in st.team if s not in st.spotlight)
    if card == KEEPING_CLOSE_EYE:
        watched = {w for _, w in st.watch}
        return tuple(s for s in st.team if s != seat and s not in watched)
    if card == TAKE_RESPONSIBILITY:
        return tuple(sorted({h.seat for h in st.held if h.seat != seat}))
    if card == OVERHEARD_CONVERSATION:
        return tuple(sorted({(seat - 1) % n, (seat + 1) % n} - {seat}))
    if card == OPEN_UP:
        return tuple(s for s in range(n) if s != seat)
    return (NOBODY,)


# -- dealing ---------------------------------------------------------------------


def give(game: Game, a: Give, seat: int) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    if game.phase.name != PROPOSAL:
        return reject("wrong_phase", N_("Plot cards are given out in the proposal phase."))
    if seat != st.leader:
        return reject("not_leader", N_("Only the leader gives out plot cards."))
    if not st.hand:
        return reject("no_cards", N_("There are no plot cards to give out."))
    if a.card not in st.hand:
        return reject("not_in_hand", N_("That plot card is not among the drawn cards."))
    to = game.seat(a.to)
    if to < 0 or to == seat:
        return reject("bad_receiver", N_("Give the card to another player of this game."))
    return deal_card(game, a.card, to)


def deal_card(game: Game, card: str, to: int) -> Accepted[Game]:
    """The leader gives `card` from the hand to `to`; immediate cards act now."""
    st: Resistance = game.rules
    seq = game.phase.seq
    hand = list(st.hand)
    hand.remove(card)
    leader = st.leader
    st = update(
        st,
        hand=tuple(hand),
        dealing_started=True,
        plot_log=(*st.plot_log, PlotUse(st.mission, card, leader, to, dealt=True)),
    )
    events: list[Event] = [
        announce(
            msg(
                N_("{leader} gives the plot card {card} to {name}."),
                leader=game.names[leader],
                card=card_name(card),
                name=game.names[to],
            ),
            seq,
        )
    ]
    spec = CARDS[card]
    receiver = game.players[to]
    if card == ESTABLISH_CONFIDENCE:
        shown = N_("Establish Confidence: the leader {leader} is {team}.")
        st, told = _show_team(game, st, card, to, leader, shown, "leader")
        events.append(told)
    elif card in CHOICE_CARDS:
        if card == TAKE_RESPONSIBILITY and not any(h.seat != to for h in st.held):
            events.append(
                announce(msg(N_("There is no plot card to take; the card is discarded.")), seq)
            )
        else:
            st = update(st, pending=(*st.pending, Held(to, card)))
            events.append(prompt(receiver, seq))
    elif spec.timing != IMMEDIATE:
        st = update(st, held=(*st.held, Held(to, card)))
    if not st.hand and not st.team:
        events.append(prompt(game.players[leader], seq))
    events.append(changed(seq))
    return accepted(with_rules(game, st), tuple(events))


# -- playing ---------------------------------------------------------------------


def play(game: Game, a: Play, seat: int) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    card = a.card
    if card not in CARDS:
        return reject("unknown_card", N_("There is no plot card called {card}."), card=card)
    if not (st.holds(seat, card) or st.owes(seat, card)):
        return reject("not_held", N_("You don't hold that plot card."))
    if card not in playable(game, seat):
        return reject("wrong_time", N_("You can't play {card} now."), card=card_name(card))
    targets = play_targets(game, seat, card)
    if targets == (NOBODY,):
        target = NOBODY
    else:
        target = game.seat(a.target) if a.target is not None else NOBODY
        if target not in targets:
            return reject(
                "bad_target", N_("That player can't be the target of {card}."), card=card_name(card)
            )
    take: str | None = None
    if card == TAKE_RESPONSIBILITY:
        theirs = [h.card for h in st.held if h.seat == target]
        if a.take is not None and a.take not in theirs:
            return reject("bad_take", N_("That player doesn't hold that plot card."))
        take = a.take if a.take is not None else theirs[0]
    return apply_card(game, seat, card, target, take)


def apply_card(
    game: Game, seat: int, card: str, target: int, take: str | None = None
) -> Accepted[Game]:
    """The effect of `seat` playing `card` on `target` (already validated)."""
    st: Resistance = game.rules
    seq = game.phase.seq
    me = game.players[seat]
    name = game.names[seat]
    item = Held(seat, card)
    if item in st.pending:
        st = update(st, pending=_without(st.pending, item))
    else:
        st = update(st, held=_without(st.held, item))
    public = card not in (KEEPING_CLOSE_EYE, OVERHEARD_CONVERSATION, OPEN_UP)
    st = update(
        st,
        plot_log=(
            *st.plot_log,
            PlotUse(st.mission, card, seat, NOBODY, target if public else NOBODY),
        ),
    )
    events: list[Event] = []
    if card == STRONG_LEADER:
        st = update(st, leader=seat, strong_played=True)
        text = msg(N_("{name} plays Strong Leader and becomes the leader."), name=name)
        events += [announce(text, seq), prompt(me, seq)]
    elif card == NO_CONFIDENCE:
        st = update(st, veto=seat)
        text = msg(N_("{name} plays No Confidence: the team is vetoed."), name=name)
        events.append(announce(text, seq))
    elif card == IN_THE_SPOTLIGHT:
        st = update(st, spotlight=(*st.spotlight, target))
        text = msg(
            N_("{name} puts {target} in the spotlight: their mission card will be shown."),
            name=name,
            target=game.names[target],
        )
        events.append(announce(text, seq))
    elif card == KEEPING_CLOSE_EYE:
        st = update(st, watch=(*st.watch, (seat, target)))
        text = msg(
            N_("You will see the mission card of {target} when the mission ends."),
            target=game.names[target],
        )
        events.append(tell(me, text, seq))
    elif card == TAKE_RESPONSIBILITY:
        taken = Held(target, take or "")
        st = update(st, held=(*_without(st.held, taken), Held(seat, taken.card)))
        text = msg(
            N_("{name} takes the plot card {card} from {target}."),
            name=name,
            card=card_name(taken.card),
            target=game.names[target],
        )
        events.append(announce(text, seq))
    elif card == OVERHEARD_CONVERSATION:
        shown = N_("Overheard Conversation: {target} is {team}.")
        st, told = _show_team(game, st, card, seat, target, shown, "target")
        events.append(told)
    elif card == OPEN_UP:
        shown = N_("Open Up: {name} shows you that they are {team}.")
        st, told = _show_team(game, st, card, target, seat, shown, "name")
        events.append(told)
        events.append(
            tell(
                me, msg(N_("You have shown your team to {target}."), target=game.names[target]), seq
            )
        )
    events.append(changed(seq))
    return accepted(with_rules(game, st), tuple(events))


def settle_proposal(game: Game) -> tuple[Game, list[Event]]:
    """At the proposal deadline: cards still in the hand go to drawn players, and
    immediate cards still waiting get a drawn target (the card must be used)."""
    events: list[Event] = []
    st: Resistance = game.rules
    if not (st.hand or st.pending):
        return game, events
    rng = rng_for(game.seed, f"resistance/settle/{game.phase.seq}")
    n = len(game.players)
    while st.hand:
        to = rng.choice([s for s in range(n) if s != st.leader])
        done = deal_card(game, st.hand[0], to)
        game, st = done.state, done.state.rules
        events.extend(done.events)
    while st.pending:
        item = st.pending[0]
        targets = play_targets(game, item.seat, item.card)
        if not targets:
            st = update(st, pending=st.pending[1:])
            game = with_rules(game, st)
            continue
        target = rng.choice(targets)
        take = None
        if item.card == TAKE_RESPONSIBILITY:
            take = rng.choice([h.card for h in st.held if h.seat == target])
        done = apply_card(game, item.seat, item.card, target, take)
        game, st = done.state, done.state.rules
        events.extend(done.events)
    return game, events
