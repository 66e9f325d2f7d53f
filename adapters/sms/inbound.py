"""One inbound text, handled: parse, build one core action, submit, reply.

The webhook calls `Gateway.handle` after checking the signature and before it
answers Twilio, so an input is durable (stored by its MessageSid, and if it
became an action, committed by the game service under the same key) before
Twilio hears back; a text whose handling failed is answered with a 5xx, never
acknowledged. A redelivered MessageSid runs through again with its replies
suppressed: the service's idempotency key makes the action apply once, and a
first delivery that crashed or failed halfway is completed.

Replies go out through the outbound queue (not in the TwiML answer), so a reply
and the texts the transition caused keep their order.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from adapters.sms import grammar as G
from adapters.sms import opt_out, short
from adapters.sms import render as R
from adapters.sms import sheet as S
from adapters.sms.directory import Directory, player_id
from adapters.sms.notifier import ACTING, ANSWERED, CLOSED, Acting, SmsNotifier, live, split
from adapters.sms.outbound import OutMessage
from adapters.sms.phones import e164, short_mask
from adapters.sms.segments import prepare
from adapters.sms.settings import SmsSettings
from gameflow.core import actions as A
from gameflow.core.state import Game
from gameflow.core.text import Msg, msg
from gameflow.i18n import render
from gameflow.replay import parse_step
from service.games import GameNotFound, GameService
from service.ports import GameStore

log = logging.getLogger(__name__)

HOST_ACTIONS: dict[str, type[A.Action]] = {
    "start": A.Start,
    "pause": A.Pause,
    "resume": A.Resume,
    "advance": A.Advance,
    "end": A.End,
}

# A host that is not an SMS player (Telegram) is told through this hook.
HostHook = Callable[[Game, Msg], Awaitable[None]]
# A fresh TV link for a game (bots.app's Runtime.tv_link; the Telegram adapter's TvLink).
TvLink = Callable[[Game], Awaitable[str | None]]


class Gateway:
    def __init__(
        self,
        service: GameService,
        directory: Directory,
        notifier: SmsNotifier,
        settings: SmsSettings,
        *,
        host_hook: HostHook | None = None,
        tv_link: TvLink | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.service = service
        self.store: GameStore = service.store
        self.directory = directory
        self.notifier = notifier
        self.outbox = notifier.outbox
        self.settings = settings
        self.host_hook = host_hook
        self.tv_link = tv_link
        self.clock = clock

    def player_of(self, phone: str) -> str:
        return player_id(phone, self.settings.id_key)

    # -- inbound -------------------------------------------------------------------

    async def handle(self, sid: str, sender: str, body: str) -> bool:
        """Handle one text. True once it is dealt with (applied, refused, or
        answered); False if handling failed part way (the store or the records
        unreachable, say): then the webhook must not acknowledge it, so that
        Twilio delivers it again, and the MessageSid keeps that from applying
        anything twice."""
        phone = e164(sender, self.settings.default_region)
        if phone is None:
            log.warning("inbound text from an unusable number")
            return True
        fresh = False
        try:
            fresh = await self.directory.store_inbound(sid, phone, body, self.clock())
            await self._handle(sid, phone, body, quiet=not fresh)
        except Exception:
            log.exception("inbound text %s failed", sid)
            if fresh:  # tell the player once; a redelivery is quiet
                with contextlib.suppress(Exception):
                    await self.reply(phone, R.t(R.FAILED, self.settings.default_lang))
            return False
        return True

    async def _handle(self, sid: str, phone: str, body: str, quiet: bool) -> None:
        player = self.player_of(phone)
        game = await self._game_of(phone)
        # A phone in no game is answered in the language of the word it used.
        lang = game.lang if game is not None else G.language_of(body) or self.settings.default_lang
        say: list[str] = []
        control = opt_out.classify(body)
        if control is not None:
            await self._control(control, phone, player, game, lang, say)
        elif game is not None and self._pleading(game, player, body):
            await self._answer(sid, body, game, player, say)
        else:
            cmd = G.parse(body)
            lang = cmd.lang if game is None and cmd.lang else lang
            await self._command(sid, cmd, body, phone, player, game, lang, say)
        if say and not quiet:
            # Replies may hold a menu with secret options: private, and a failed
            # delivery is reported like any private text.
            game_id = game.id if game is not None else None
            await self.reply(
                phone, "\n".join(say), lang=lang, secret=True, player=player, game=game_id
            )

    async def _game_of(self, phone: str) -> Game | None:
        where = await self.store.whereis(phone)
        if where is None:
            return None
        try:
            game = await self.service.load(where[0])
        except GameNotFound:
            return None
        return None if game.over else game

    @staticmethod
    def _pleading(game: Game, player: str, body: str) -> bool:
        """A player asked for their own words takes their next text (of more
        than one word: STATUS and HELP still work) as the answer, whatever
        keyword it happens to start with ("Stop blaming me...")."""
        sh = S.sheet(game, player)
        return sh is not None and sh.style == S.FREE and len(G.tokens(body)) > 1

    async def _control(
        self, kind: str, phone: str, player: str, game: Game | None, lang: str, say: list[str]
    ) -> None:
        if kind == opt_out.HELP:
            say.append(R.t(R.HELP, lang))
        elif kind == opt_out.STOP:
            if await self.directory.opt_out(phone, self.clock()) and game is not None:
                await self.tell_host(game, msg(R.OPTED_OUT, name=_name(game, player)))
        elif kind == opt_out.RESUME:
            if await self.directory.opt_in(phone) and game is not None:
                await self.tell_host(game, msg(R.OPTED_IN, name=_name(game, player)))
            if game is not None:
                say.append(await self.status_text(game, player))

    async def _command(
        self,
        sid: str,
        cmd: G.Command,
        body: str,
        phone: str,
        player: str,
        game: Game | None,
        lang: str,
        say: list[str],
    ) -> None:
        kind = cmd.kind
        if kind == "help":
            say.append(R.t(R.HELP, lang))
        elif kind == "new_usage":
            say.append(R.t(R.NEW_USAGE, lang))
        elif kind == "join_usage":
            say.append(R.t(R.JOIN_USAGE, lang))
        elif kind == "new":
            await self._new(sid, cmd, phone, player, game, lang, say)
        elif kind == "join":
            await self._join(sid, cmd.args[0], cmd.args[1], phone, player, game, lang, say)
        elif game is None:
            say.append(R.t(R.NOT_IN_GAME, lang))
        elif kind == "status":
            say.append(await self.status_text(game, player))
        elif kind == "votes":
            say.append(render(short.recap(game), game.lang))
        elif kind in HOST_ACTIONS:
            phase = game.phase.seq if kind == "advance" else None
            await self._submit(sid, game, HOST_ACTIONS[kind](player, phase), player, say)
        else:
            await self._answer(sid, body, game, player, say)

    async def _new(
        self,
        sid: str,
        cmd: G.Command,
        phone: str,
        player: str,
        game: Game | None,
        lang: str,
        say: list[str],
    ) -> None:
        if game is not None:
            say.append(R.t(R.IN_ANOTHER, lang))
            return
        created = await self.service.create_game(cmd.args[0], player, lang=lang, key=f"sms:{sid}")
        await self.directory.set_phone(player, phone, created.game.id)
        await self.store.bind(phone, created.game.id, player)
        code = created.code or "?"
        tv = await self._tv(created.game)
        if tv:
            say.append(R.t(R.CREATED_TV, lang, code=code, tv=tv))
        else:
            say.append(R.t(R.CREATED, lang, code=code))

    async def _tv(self, game: Game) -> str | None:
        """The game's TV link for its host, when the app gives one (a failing
        link service costs the host the link, not the game)."""
        if self.tv_link is None:
            return None
        try:
            return await self.tv_link(game)
        except Exception:
            log.exception("no TV link for %s", game.id)
            return None

    async def _join(
        self,
        sid: str,
        code: str,
        name: str,
        phone: str,
        player: str,
        game: Game | None,
        lang: str,
        say: list[str],
    ) -> None:
        game_id = await self.store.game_for_code(code)
        if game_id is None:
            say.append(R.t(R.NO_SUCH_CODE, lang, code=code))
            return
        if game is not None and game.id != game_id:
            say.append(R.t(R.IN_ANOTHER, lang))
            return
        await self.directory.set_phone(player, phone, game_id)
        outcome = await self.service.submit(game_id, A.Join(player, None, name), key=sid)
        if outcome.rejected is not None:
            say.append(render(outcome.rejected.message, outcome.game.lang))
            return
        await self.store.bind(phone, game_id, player)
        joined = outcome.game
        seat = joined.seat(player)
        shown = joined.names[seat] if seat >= 0 else name
        say.append(R.t(R.WELCOME, joined.lang, name=shown, code=code))

    async def _answer(self, sid: str, body: str, game: Game, player: str, say: list[str]) -> None:
        """Read `body` against the sheet the player was last texted. A number
        typed for an older, different sheet is never mapped onto the new one:
        it is refused with the current sheet (a word names a value, not a
        place, so it is still read)."""
        lang = game.lang
        sh = S.sheet(game, player)
        if sh is None:
            say.append(await self.nothing_now(game, player))
            return
        sent = await self.notifier.sheets.key(game.id, player)
        if sent != sh.key and S.starts_with_number(body):
            say.extend((R.t(R.CHANGED, lang), S.text(game, sh, lang)))
            await self.notifier.sheets.mark(game, player, sh.key)
            return
        found = S.read(game, sh, player, body)
        if isinstance(found, G.Unmatched):
            say.append(S.unmatched(game, found, sh, lang))
            await self.notifier.sheets.mark(game, player, sh.key)
            return
        await self._submit(sid, game, found, player, say, answer=True)

    async def nothing_now(self, game: Game, player: str) -> str:
        """The reply to an answer when nothing is asked of the player: their
        answer is in, or the question closed before they answered (time ran
        out), and what comes next."""
        how = await self.notifier.sheets.closed(game.id, player)
        if how == ANSWERED:
            return R.t(R.ANSWER_IN, game.lang)
        if how == CLOSED:
            return R.t(R.LATE, game.lang)
        return R.t(R.NOTHING_NOW, game.lang)

    async def _submit(
        self,
        sid: str,
        game: Game,
        action: A.Action,
        player: str,
        say: list[str],
        *,
        answer: bool = False,
    ) -> None:
        # An answer's echo («Choice locked…») is not texted in a live game (see
        # adapters.sms.notifier): the notifier learns who is answering here.
        token = ACTING.set(Acting(game.id, player, game.phase.seq)) if answer else None
        try:
            outcome = await self.service.submit(game.id, action, key=sid)
        finally:
            if token is not None:
                ACTING.reset(token)
        after = outcome.game
        if outcome.rejected is not None:
            say.append(render(outcome.rejected.message, after.lang))
            sh = S.sheet(after, player)
            if sh is not None:  # what may be answered instead
                say.append(S.text(after, sh, after.lang))
                await self.notifier.sheets.mark(after, player, sh.key)
        elif (
            outcome.accepted
            and not self.notifier.texted(after, player)
            and (not answer or not live(after))
        ):
            # The commit texted the sender nothing: a host action is confirmed;
            # an answer only in a campaign (a live game's next text is minutes away).
            say.append(R.t(R.OK, after.lang))

    # -- status and the host -----------------------------------------------------------

    async def status_text(self, game: Game, player: str) -> str:
        """The player's current question again (STATUS); the host gets the roster."""
        lines = []
        sh = S.sheet(game, player)
        if sh is not None:
            lines.append(S.text(game, sh, game.lang))
            await self.notifier.sheets.mark(game, player, sh.key)
        if player == game.host:
            lines.append(await self.roster(game))
        return "\n".join(lines) or await self.nothing_now(game, player)

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

    async def tell_host(self, game: Game, text: Msg) -> None:
        """A report to the host: by SMS if the host texts, else through the hook."""
        sent = await self.notifier.text(game, game.host, [render(text, game.lang)], False)
        if not sent and self.host_hook is not None:
            await self.host_hook(game, text)
        elif not sent:
            log.warning("no way to tell the host of %s: %s", game.id, text.msgid)

    async def reply(
        self,
        phone: str,
        text: str,
        *,
        lang: str | None = None,
        secret: bool = False,
        player: str | None = None,
        game: str | None = None,
    ) -> None:
        if await self.directory.opted_out(phone):
            return
        body = prepare(text, lang or self.settings.default_lang, self.settings.transliterate)
        for chunk in split(body):
            await self.outbox.send(OutMessage(phone, chunk, game, player, secret))

    # -- delivery reports -------------------------------------------------------------

    async def status(self, sid: str, status: str, error: str | None) -> None:
        """A status callback: record it; a failed private text is reported to the host."""
        before = await self.directory.update_status(sid, status, error, self.clock())
        if before is None or status not in ("failed", "undelivered"):
            return
        if before.status in ("failed", "undelivered") or not before.secret:
            return
        await self.report_failure(before.game, before.player)

    async def report_failure(self, game_id: str | None, player: str | None) -> None:
        if game_id is None or player is None:
            return
        try:
            game = await self.service.load(game_id)
        except GameNotFound:
            return
        if player != game.host:
            await self.tell_host(game, msg(R.UNDELIVERED, name=_name(game, player)))

    async def on_failed(self, message: OutMessage, error: str) -> None:
        """The outbox's hook: Twilio refused a private text outright."""
        await self.report_failure(message.game, message.player)


def _action(game: Game, step: dict[str, Any], menu: G.Menu) -> A.Action | None:
    """The action a `grammar.match` of `menu` stands for (tests/test_scale reads
    answers this way); None if the rules' step reader refuses it."""
    del menu  # yes/no fields are booleans in legal(): no 0/1 to convert any more
    try:
        return parse_step(game, step)
    except ValueError:
        return None


def _name(game: Game, player: str) -> str:
    seat = game.seat(player)
    return game.names[seat] if seat >= 0 else "?"
