"""Run it back (issue #32, item 5): the same game again, with the same table.

After a game ends its host asks for the rematch (Telegram `/again CODE`, SMS
`AGAIN CODE`). `run_back` makes a new game of the same kind, in the same
language, with the same options (campaign settings included) and host, a
fresh seed and a new join code, and invites every player of the old game on
their own channel: each channel's `Inviter` turns the invitation into its
outbox messages (a Telegram button, a text to answer `YES CODE`), written to
the new game's outbox. The new game is keyed by the old one, so asking twice
makes one game and writes each invitation once (the outbox ignores a key
written again; a worker killed half way is repaired by asking again).

A player confirms with one tap or text: `rejoin` seats them under the name
they had in the old game. Joining follows the usual rules (a player in
another running game is refused as for any join). The host starts the new
game as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from gameflow.core import actions as A
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from service.compose import Origin
from service.outbox import OutboxMessage

if TYPE_CHECKING:
    from service.games import GameService, Outcome

OF = "rematch:of"  # the new game's attribute: the game it runs back
NOT_HOST = N_("Only the host can do that.")
NOT_OVER = N_("That game has not ended yet: run it back once it is over.")
NOT_INVITED = N_("There is no rematch with the code {code}.")


class Inviter(Protocol):
    """A channel's side: the invitations to a rematch, as its outbox messages."""

    def invite(self, old: Game, new: Game, code: str) -> list[OutboxMessage]:
        """Invite each of `old`'s players this channel reaches to `new`
        (join code `code`); keys unique in `new`'s outbox."""
        ...

    def wake(self, game_id: str) -> None:
        """Something waits in `game_id`'s outbox for this channel."""
        ...


def add_inviter(inviters: list[Inviter], inviter: Inviter) -> None:
    """Register a channel's inviter once per kind (a channel built again replaces it)."""
    inviters[:] = [i for i in inviters if type(i) is not type(inviter)]
    inviters.append(inviter)


@dataclass(frozen=True, slots=True)
class Rematch:
    """What became of a host's "run it back": the new game and its join
    code, or why not (`refused`); `duplicate` when it was made already."""

    game: Game | None = None
    code: str | None = None
    refused: Msg | None = None
    duplicate: bool = False


def invitations(
    inviters: Sequence[Inviter], old: Game, new: Game, code: str
) -> list[OutboxMessage]:
    return [m for i in inviters for m in i.invite(old, new, code)]


async def run_back(service: GameService, old_id: str, by: str) -> Rematch:
    """The rematch of the ended game `old_id`, asked by `by` (its host only).
    GameNotFound when there is no such game."""
    old = await service.load(old_id)
    if by != old.host:
        return Rematch(refused=msg(NOT_HOST))
    if not old.over:
        return Rematch(refused=msg(NOT_OVER))
    created = await service.create_game(
        old.kind, old.host, lang=old.lang, options=dict(old.options), key=f"again:{old.id}"
    )
    new, code = created.game, created.code
    if code is None or new.phase.name != "lobby":  # the rematch itself began (or ended)
        return Rematch(new, code, duplicate=True)
    await service.store.set_attr(new.id, OF, old.id)
    messages = invitations(service.inviters, old, new, code)
    if messages and await service.store.append_outbox(new.id, messages):
        for inviter in service.inviters:
            inviter.wake(new.id)
    return Rematch(new, code, duplicate=created.duplicate)


async def old_name(service: GameService, new: Game, player: str) -> str | None:
    """The name `player` had in the game `new` runs back (None: not invited)."""
    old_id = await service.store.get_attr(new.id, OF)
    if old_id is None:
        return None
    try:
        old = await service.load(old_id)
    except LookupError:
        return None
    seat = old.seat(player)
    return old.names[seat] if seat >= 0 else None


async def rejoin(
    service: GameService, code: str, player: str, *, key: str, origin: Origin | None = None
) -> tuple[Outcome | None, Msg | None]:
    """`player` takes up the invitation to the rematch with join code `code`:
    a join under their old name (with a number when a newcomer has it). (None, why) when there is no such rematch
    or they were not at the old table."""
    game_id = await service.store.game_for_code(code.upper())
    game = None
    if game_id is not None:
        try:
            game = await service.load(game_id)
        except LookupError:
            game = None
    name = await old_name(service, game, player) if game is not None else None
    if game is None or name is None:
        return None, msg(NOT_INVITED, code=code.upper())
    # Their old name, unless someone new took it in the lobby first: then
    # with a number, as Telegram's /join does with a taken first name.
    outcome = None
    for i, candidate in enumerate((name, f"{name[:29]} 2", f"{name[:29]} 3")):
        action = A.Join(player, None, candidate)
        outcome = await service.submit(
            game.id, action, key=key if i == 0 else f"{key}:{i}", origin=origin
        )
        if outcome.rejected is None or outcome.rejected.code != "name_taken":
            break
    return outcome, None
