"""Werewolf's reveal at the end (issue #32): every role, each night's
victim and what saved or did not save them, and the winners."""

from __future__ import annotations

from gameflow.core.definition import Chapter, Part, Story
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.games.werewolf import texts
from gameflow.games.werewolf.state import NOBODY, VILLAGE, Morning, Werewolf


def reveal(game: Game, brief: bool) -> tuple[Msg, ...]:
    st: Werewolf | None = game.rules
    if st is None or not game.over:
        return ()
    if game.winner is None:  # the host ended it: nobody won
        lines = [msg(N_("The host ended the game: no side won."))]
    else:
        side = Msg(texts.SIDE_NAMES[VILLAGE if game.winner == VILLAGE else "wolves"])
        lines = [msg(N_("Winners: {side}."), side=side)]
    roles = tuple(
        msg(N_("{name}: {role}"), name=game.names[s], role=Msg(texts.ROLE_NAMES[r]))
        for s, r in enumerate(st.roles)
        if r != "villager" or not brief
    )
    lines.extend(roles)
    if not brief:
        for m in st.history:
            if m.victim != NOBODY and m.saved:
                lines.append(
                    msg(
                        N_("Night {night}: the doctor saved {name}."),
                        night=m.night,
                        name=game.names[m.victim],
                    )
                )
    return tuple(lines)


def story(game: Game) -> Story | None:
    """The ended game night by night (issue #32, item 6): the winners, every
    player's role and fate, each night's secret picks (the pack's victim, the
    seer's look, the doctor's protection) apart from what the table saw (the
    morning and the lynch with its open votes), and the seed."""
    st: Werewolf | None = game.rules
    if not game.over or st is None:
        return None
    fates: dict[int, list[Msg]] = {}
    for m in st.history:
        if m.victim != NOBODY and not m.saved:
            fates.setdefault(m.victim, []).append(msg(N_("killed in night {night}"), night=m.night))
        if m.lynched != NOBODY:
            fates.setdefault(m.lynched, []).append(msg(N_("lynched on day {night}"), night=m.night))
    cast = tuple(
        Part(game.names[s], Msg(texts.ROLE_NAMES[r]), r == "wolf", tuple(fates.get(s, ())))
        for s, r in enumerate(st.roles)
    )
    chapters = tuple(_chapter(game, m) for m in st.history)
    return Story(reveal(game, True)[:1], cast, chapters, game.seed)


def _name(game: Game, seat: int) -> str | Msg:
    return Msg(N_("nobody")) if seat == NOBODY else game.names[seat]


def _chapter(game: Game, m: Morning) -> Chapter:
    secret = (
        msg(N_("The werewolves chose {name}."), name=_name(game, m.victim)),
        msg(N_("The seer looked at {name}."), name=_name(game, m.inspected)),
        msg(N_("The doctor protected {name}."), name=_name(game, m.protected)),
    )
    died = m.victim if m.victim != NOBODY and not m.saved else NOBODY
    public = [
        msg(texts.FOUND_DEAD, name=game.names[died]) if died != NOBODY else msg(texts.QUIET_NIGHT)
    ]
    by: dict[int, list[str]] = {}
    for voter, target in enumerate(m.votes):
        if target != NOBODY:
            by.setdefault(target, []).append(game.names[voter])
    for target, voters in sorted(by.items(), key=lambda kv: -len(kv[1])):
        public.append(
            msg(
                N_("Votes for {target}: {voters}."), target=game.names[target], voters=tuple(voters)
            )
        )
    if m.lynched != NOBODY:
        public.append(msg(N_("The village lynched {name}."), name=game.names[m.lynched]))
    title = msg(N_("Night and day {n}"), n=m.night)
    return Chapter(title, secret, tuple(public))
