"""What the SMS gateway tells a game's host: the roster (STATUS), the
settings (SET, SETT, PODESI: issue #32), reports (a player opted out or in, a
private text that could not be delivered) and Twilio's delivery reports that
lead to them.

`SET` alone texts the settings a page at a time (`name=value`, the balance
table's warning first; a text costs by the segment, so a page stays within
three), `SET 2` the next page, `SET name` one setting's help and what it
takes, `SET name value` changes it (adapters/setup_view.py, shared with
Telegram's /set and /setup).

A mixin of `Gateway` (adapters/sms/inbound.py), apart so that the inbound
path, which reads and applies what players text, stays readable on its own.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from adapters import setup_view
from adapters.sms import render as R
from adapters.sms.directory import Directory, is_sms
from adapters.sms.outbound import OutMessage
from adapters.sms.phones import short_mask
from adapters.sms.renderer import SmsRenderer
from adapters.sms.segments import prepare, segments
from adapters.sms.settings import SmsSettings
from gameflow.core import actions, registry
from gameflow.core.options import fits, limit_of
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.i18n import render
from service.games import GameNotFound, GameService
from service.outbox import OutboxMessage
from service.ports import GameStore

if TYPE_CHECKING:
    from adapters.sms.inbound import Text

log = logging.getLogger(__name__)

# A host that is not an SMS player (Telegram) is told through this hook.
HostHook = Callable[[Game, Msg], Awaitable[None]]

MAX_SEGMENTS = 3  # a page of SET, as texted
SET_PAGE = N_("Settings {page}/{pages}: {items}.")
SET_MORE = N_("SET {next}: more. SET NAME: what it does. SET NAME VALUE: change it.")
SET_LAST = N_("SET NAME: what it does. SET NAME VALUE: change it.")
SET_LIST = N_("SET alone lists the settings.")
ONLY_HOST = N_("Only the host can do that.")


class HostReports:
    """The host's side of the gateway; `Gateway` sets these attributes."""

    service: GameService
    store: GameStore
    directory: Directory
    composer: SmsRenderer
    host_hook: HostHook | None
    clock: Callable[[], float]
    settings: SmsSettings

    if TYPE_CHECKING:  # provided by inbound.Gateway

        async def appended(self, game_id: str, messages: list[OutboxMessage]) -> None: ...
        async def submit(
            self, text: Text, game: Game, action: actions.Action, *, answer: bool = False
        ) -> None: ...

    async def roster(self, game: Game) -> str:
        """The players, SMS ones with a masked number ("Åse *67"; STOP if they
        opted out): the host's view, short enough for 15 players in two segments."""
        parts = []
        for pid, name in zip(game.players, game.names, strict=True):
            phone = await self.directory.phone_of(pid)
            if phone is None:
                parts.append(name)
            elif await self.directory.opted_out(phone):
                parts.append(f"{name} {short_mask(phone)} STOP")
            else:
                parts.append(f"{name} {short_mask(phone)}")
        return ", ".join(parts)

    async def set_text(self, text: Text, game: Game, args: tuple[str, ...]) -> None:
        """SET (SETT, PODESI): the settings a page at a time, one setting's
        help, or a change (the core's SetOption, refused with what fits)."""
        lang, player, say = game.lang, text.player, text.say
        if player != game.host:
            say.append(render(ONLY_HOST, lang))
        elif not args or args[0].isdecimal():
            page = int(args[0][:3]) if args else 1
            say.append(settings_page(game, page, self.settings.transliterate))
        elif setup_view.find(game, args[0]) is None:
            problem = msg(N_("There is no setting called {name}."), name=args[0])
            say.append(render(problem, lang) + " " + render(SET_LIST, lang))
        elif len(args) == 1:
            info = setup_view.find(game, args[0])
            assert info is not None
            rules = registry.get(game.kind).rules
            what = fits(info.name, info.default, limit_of(rules, info.name))
            say.append(render(setup_view.line(game, info), lang) + ". " + render(what, lang))
        else:
            name = args[0].casefold()
            action = actions.SetOption(player, None, name, setup_view.read(args[1]))
            await self.submit(text, game, action)
            after = await self.service.load(game.id)
            warning = setup_view.warning(after) if after.option(name) != game.option(name) else None
            if warning is not None:  # a text of its own: the commit's reply is the «OK.»
                lines = [render(warning, lang)]
                await self.appended(
                    game.id, self.composer.messages(after, player, lines, True, f"w:{text.sid}")
                )

    async def tell_host(self, game: Game, text: Msg, key: str) -> None:
        """A report to the host: by SMS if the host texts (through the game's
        outbox, under `key`: a report made twice is sent once), else through
        the hook."""
        sent = False
        if is_sms(game.host) and (await self.directory.reachable([game.host])):
            lines = [render(text, game.lang)]
            messages = self.composer.messages(game, game.host, lines, False, f"h:{key}")
            await self.appended(game.id, messages)
            sent = True
        if not sent and self.host_hook is not None:
            await self.host_hook(game, text)
        elif not sent:
            log.warning("no way to tell the host of %s: %s", game.id, text.msgid)

    # -- delivery reports -------------------------------------------------------------

    async def status(self, sid: str, status: str, error: str | None) -> None:
        """A status callback: record it; a failed private text is reported to the host."""
        before = await self.directory.update_status(sid, status, error, self.clock())
        if before is None or status not in ("failed", "undelivered"):
            return
        if before.status in ("failed", "undelivered") or not before.secret:
            return
        await self.report_failure(before.game, before.player, sid)

    async def report_failure(self, game_id: str | None, player: str | None, key: str) -> None:
        if game_id is None or player is None:
            return
        try:
            game = await self.service.load(game_id)
        except GameNotFound:
            return
        if player != game.host:
            await self.tell_host(
                game, msg(R.UNDELIVERED, name=player_name(game, player)), f"f:{key}"
            )

    async def on_failed(self, message: OutMessage, error: str) -> None:
        """The sender's hook: Twilio refused a private text outright."""
        # The text's own digest (no number in the store's keys): one report per text.
        key = hashlib.sha256(f"{message.to}\n{message.body}".encode()).hexdigest()[:24]
        await self.report_failure(message.game, message.player, key)


def settings_page(game: Game, page: int, transliterate: bool = False) -> str:
    """Page `page` of the game's settings as `name=value` items (the last
    page when `page` is past it), the balance warning first on page 1; each
    page at most `MAX_SEGMENTS` as texted (segments.prepare)."""
    lang = game.lang
    items = [f"{o.name}={_value(game, o, lang)}" for o in setup_view.options(game)]
    warning = setup_view.warning(game)
    head = render(warning, lang) if warning is not None else ""
    pages: list[list[str]] = [[]]
    for item in items:
        trial = [*pages[-1], item]
        text = _page(lang, head if len(pages) == 1 else "", len(pages), len(pages) + 1, trial)
        if pages[-1] and segments(prepare(text, lang, transliterate)) > MAX_SEGMENTS:
            pages.append([])
        pages[-1].append(item)
    at = max(1, min(page, len(pages)))
    return _page(lang, head if at == 1 else "", at, len(pages), pages[at - 1])


def _page(lang: str, head: str, at: int, count: int, items: list[str]) -> str:
    text = render(msg(SET_PAGE, page=at, pages=count, items=", ".join(items)), lang)
    tail = msg(SET_MORE, next=at + 1) if at < count else Msg(SET_LAST)
    return " ".join(t for t in (head, text, render(tail, lang)) if t)


def _value(game: Game, info: Any, lang: str) -> str:
    shown = setup_view.shown(game, info)
    return render(shown, lang) if isinstance(shown, Msg) else str(shown)


def player_name(game: Game, player: str) -> str:
    """`player`'s name in `game` ("?" for one not seated)."""
    seat = game.seat(player)
    return game.names[seat] if seat >= 0 else "?"
