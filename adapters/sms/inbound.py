"""One inbound text, handled: parse, build one core action, submit, reply.

The webhook calls `Gateway.handle` after checking the signature and before it
answers Twilio, so an input is durable (stored by its MessageSid, and if it
became an action, committed by the game service under the same key) before
Twilio hears back; a text whose handling failed is answered with a 5xx, never
acknowledged. A redelivered MessageSid runs through again with its replies
suppressed: the service's idempotency key makes the action apply once, and a
first delivery that crashed or failed halfway is completed.

The reply to an input that commits (a join's welcome, a command's «OK.») is
decided in that commit: the service hands the composer the input's `Origin`
(its MessageSid), and the composer writes the reply into the outbox with the
texts the transition causes, in the same atomic step. So a worker killed
between the commit and answering Twilio can't lose it, and it leaves as soon
as the commit's texts do. A refused or read-only input commits nothing: its
reply goes into the game's outbox (`append_outbox`, keyed by the MessageSid)
before Twilio hears back, and wakes this worker's delivery at once. A reply
to a phone in no game goes out through the in-memory queue (at most once). Answers are
read against the current state's question; a number is refused while that
question's menu is still on its way to the player (see `_answer`). What a
player was last texted, and how their last question closed (answered, or
its time ran out), is the delivery's record (`SentSheets`).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from adapters.sms import grammar, host_commands, lobby, opt_out, rematch, short, talk
from adapters.sms import render as words
from adapters.sms import sheet as menu
from adapters.sms.console import ConsoleLink, console_text
from adapters.sms.directory import Directory, player_id
from adapters.sms.host_reports import HostHook, HostReports, player_name
from adapters.sms.outbound import OutMessage, TwilioSender
from adapters.sms.phones import e164
from adapters.sms.renderer import (
    ANSWERED,
    CHANNEL,
    CLOSED,
    SmsRenderer,
    reply_key,
    reply_lines,
    split,
)
from adapters.sms.segments import prepare
from adapters.sms.sent_sheets import ATTR as SHEETS
from adapters.sms.sent_sheets import SentSheets
from adapters.sms.settings import SmsSettings
from gameflow.core import actions
from gameflow.core.away import parse_until
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import render
from service.compose import Origin
from service.games import GameNotFound, GameService, Outcome
from service.outbox import OutboxMessage
from service.ports import GameStore
from service.rematch import add_inviter

log = logging.getLogger(__name__)

# The reply to a number typed against an older menu (see `Gateway._answer`).
# Not counted, and why; the new menu follows in the outbox (MENU is STATUS).
STALE = N_(
    "Not counted: that number was for an earlier menu. A new one is on its way: "
    "answer that one. MENU sends it again."
)

# A fresh TV link for a game (bots.app's Runtime.tv_link; the Telegram adapter's TvLink).
TvLink = Callable[[Game], Awaitable[str | None]]


class Say(list[str]):
    """The reply's lines, and the key of the sheet it carries (recorded as
    texted when the reply is delivered). `texted` is the game's record of
    the sheets last texted (SentSheets), read with the game when the text
    came in (one round trip for both), or None when not read."""

    sheet: str | None = None
    texted: tuple[str, str | None] | None = None  # (game id, the record)

    def ask(self, game: Game, sh: menu.Sheet) -> None:
        self.append(menu.text(game, sh, game.lang))
        self.sheet = sh.key


@dataclass(frozen=True)
class Text:
    """One inbound text as its handlers take it: its MessageSid (the key of
    the action it becomes and of its reply), the sender's phone and player
    id, the body, the game the phone is in (None: none) as read when the
    text came in, the language of the reply, and the reply's lines (`say`)."""

    sid: str
    phone: str
    body: str
    player: str
    game: Game | None
    lang: str
    say: Say


class Gateway(HostReports):
    console_link: ConsoleLink | None = None  # set by the composition root (bots/app.py)

    def __init__(
        self,
        service: GameService,
        directory: Directory,
        composer: SmsRenderer,
        sheets: SentSheets,
        outbox: TwilioSender,
        settings: SmsSettings,
        *,
        host_hook: HostHook | None = None,
        tv_link: TvLink | None = None,
        clock: Callable[[], float] = time.time,
        wake: Callable[[str], None] | None = None,
    ) -> None:
        self.service = service
        self.store: GameStore = service.store
        self.directory = directory
        self.composer = composer
        self.sheets = sheets
        self.outbox = outbox
        self.settings = settings
        self.host_hook = host_hook
        self.tv_link = tv_link
        self.clock = clock
        # The delivery's wake-up: a reply appended with no commit leaves at once.
        self.wake = wake
        talk.register(service, composer, self._wake)
        add_inviter(service.inviters, rematch.SmsInviter(composer, self._wake))

    def _wake(self, game_id: str) -> None:
        if self.wake is not None:
            self.wake(game_id)

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
                    await self.reply(phone, words.t(words.FAILED, self.settings.default_lang))
            return False
        return True

    async def _handle(self, sid: str, phone: str, body: str, quiet: bool) -> None:
        player = self.player_of(phone)
        say = Say()
        game = await self._game_of(phone, say)
        # A phone in no game is answered in the language of the word it used.
        lang = (
            game.lang
            if game is not None
            else grammar.language_of(body) or self.settings.default_lang
        )
        text = Text(sid, phone, body, player, game, lang, say)
        control = opt_out.classify(body)
        if control is not None:
            await self._control(control, text)
        elif game is not None and self._pleading(game, player, body):
            await self._answer(text, game)
        else:
            # A host's words (GONE NAME) are the host's alone: from anyone
            # else they are read as what they would be otherwise (an answer).
            host = game is not None and player == game.host
            cmd = rematch.parse(body, game is not None) or grammar.parse(body, host=host)
            if game is None and cmd.lang:
                text = replace(text, lang=cmd.lang)
            await self._command(text, cmd)
        if say and not quiet:
            # Replies may hold a menu with secret options: private, and a failed
            # delivery is reported like any private text.
            if game is None:  # NEW or JOIN may have put the phone in a game
                game = await self._game_of(phone)
            if game is not None:
                lines = self.composer.messages(
                    game, player, ["\n".join(say)], True, f"r:{sid}", sheet=say.sheet
                )
                await self.appended(game.id, lines)
            else:
                await self.reply(phone, "\n".join(say), lang=text.lang, secret=True, player=player)

    async def _game_of(self, phone: str, say: Say | None = None) -> Game | None:
        """The game `phone` is in (None: none, or it is over). With `say`, the
        game's record of the sheets last texted is read in the same round
        trip and kept there (`Say.texted`) for `_older`."""
        where = await self.store.whereis(phone)
        if where is None:
            return None
        try:
            if say is None or self.sheets.store is None:  # (no record in the store)
                game = await self.service.load(where[0])
            else:
                game, record = await self.service.load_with(where[0], SHEETS)
                say.texted = (game.id, record)
        except GameNotFound:
            return None
        return None if game.over else game

    @staticmethod
    def _pleading(game: Game, player: str, body: str) -> bool:
        """A player asked for their own words takes their next text (of more
        than one word: STATUS and HELP still work) as the answer, whatever
        keyword it happens to start with ("Stop blaming me...")."""
        sh = menu.sheet(game, player)
        return sh is not None and sh.style == menu.FREE and len(grammar.tokens(body)) > 1

    async def _control(self, kind: str, text: Text) -> None:
        game, player, say = text.game, text.player, text.say
        if kind == opt_out.HELP:
            say.append(words.help_text(game, player, text.lang))
        elif kind == opt_out.STOP:
            if await self.directory.opt_out(text.phone, self.clock()) and game is not None:
                opted = msg(words.OPTED_OUT, name=player_name(game, player))
                await self.tell_host(game, opted, text.sid)
        elif kind == opt_out.RESUME:
            if await self.directory.opt_in(text.phone) and game is not None:
                opted = msg(words.OPTED_IN, name=player_name(game, player))
                await self.tell_host(game, opted, text.sid)
            if game is not None:
                await self.status_text(game, player, say)

    async def _command(self, text: Text, cmd: grammar.Command) -> None:
        kind, game, player, say, lang = cmd.kind, text.game, text.player, text.say, text.lang
        if kind == "help":
            say.append(words.help_text(game, player, lang))
        elif kind == "new_usage":
            say.append(words.t(words.NEW_USAGE, lang))
        elif kind == "join_usage":
            say.append(words.t(words.JOIN_USAGE, lang))
        elif kind == "new":  # NEW, JOIN: adapters/sms/lobby.py
            await lobby.new(self, text, cmd.args[0])
        elif kind == "join":
            await lobby.join(self, text, cmd.args[0], cmd.args[1])
        elif kind in ("again", "again_usage", "rejoin"):  # a rematch: adapters/sms/rematch.py
            await rematch.command(self, text, cmd)
        elif game is None:
            say.append(words.t(words.NOT_IN_GAME, lang))
        elif kind == "status":
            await self.status_text(game, player, say)
        elif kind == "votes":
            say.append(render(short.recap(game), game.lang))
        elif kind in ("away", "back"):
            await self._away(text, game, cmd)
        elif kind in talk.KINDS:  # SAY, MUTE, UNMUTE: adapters/sms/talk.py
            say.extend(await talk.command(self.service, text.sid, cmd, game, player))
        elif kind == "set":  # SET, SETT, PODESI: adapters/sms/host_reports.py
            await self.set_text(text, game, cmd.args)
        elif kind == "console":  # the game master's console link, to the host alone
            say.extend(await console_text(self.console_link, cmd.args, game, player))
        elif kind in host_commands.KINDS:  # START, MOVE, GONE...: adapters/sms/host_commands.py
            await host_commands.command(self, text, game, cmd)
        else:
            await self._answer(text, game)

    async def _away(self, text: Text, game: Game, cmd: grammar.Command) -> None:
        """AWAY date / days (BORTE, ODSUTAN), BACK (TILBAKE, NAZAD): see
        gameflow.core.away. The core's own text to the player confirms it
        (texted with the commit); a text it can't read gets the usage line."""
        until: float | str | None = None
        if cmd.kind == "away":
            word = cmd.args[0] if cmd.args else ""
            if grammar.fold(word) not in grammar.BACK | {"off", "av"}:
                try:
                    until = parse_until(word, self.clock())
                except ValueError:
                    text.say.append(words.t(words.AWAY_USAGE, game.lang))
                    return
        await self.submit(text, game, actions.Away(text.player, None, until))

    async def _answer(self, text: Text, game: Game) -> None:
        """Read the text's body against the player's question in the current state.

        A number names a place in the menu the player read: "2" on an older
        vote is another player on the new one, and "1" on the last team's
        approval approves the next team. With the texts in the outbox, a
        question is committed a moment before its menu leaves, so a number
        may have been typed for the menu before. The delivery records the
        sheet it texts a player just before Twilio gets the text
        (`SentSheets`), so when that record names another sheet than the
        question open now (or says a question closed since), the new menu
        is not on the phone yet: the number is refused, nothing changes, and
        the player is told to answer the new menu, which the outbox sends
        ahead of this reply. A word (a name, yes, a card) names a value, not
        a place, and reads as meant whatever menu it was typed on. No record
        at all (the game's first question on its way, a game older than the
        record) reads the number as before."""
        lang, player, say = game.lang, text.player, text.say
        sh = menu.sheet(game, player)
        if sh is None:
            say.append(await self.nothing_now(game, player))
            return
        if grammar.leads_with_number(text.body) and await self._older(game, player, sh, say):
            say.append(words.t(STALE, lang))
            return
        found = menu.read(game, sh, player, text.body)
        if isinstance(found, grammar.Unmatched):
            say.append(menu.unmatched(game, found, sh, lang))
            say.sheet = sh.key  # the refusal shows the sheet it was read against
            return
        await self.submit(text, game, found, answer=True)

    async def _older(self, game: Game, player: str, sh: menu.Sheet, say: Say) -> bool:
        """Whether the player's last texted menu is not `sh` (see `_answer`);
        the record read with the game when there is one (no awaits between)."""
        if say.texted is not None and say.texted[0] == game.id:
            key, closed = SentSheets.last_in(say.texted[1], player)
        else:
            key, closed = await self.sheets.last(game.id, player)
        return (key is not None or closed is not None) and key != sh.key

    async def nothing_now(self, game: Game, player: str) -> str:
        """The reply to an answer when nothing is asked of the player: their
        answer is in, or the question closed before they answered (time ran
        out), and what comes next."""
        how = await self.sheets.closed(game.id, player)
        if how == ANSWERED:
            return words.t(words.ANSWER_IN, game.lang)
        if how == CLOSED:
            return words.t(words.LATE, game.lang)
        return words.t(words.NOTHING_NOW, game.lang)

    async def submit(
        self, text: Text, game: Game, action: actions.Action, *, answer: bool = False
    ) -> None:
        """`action` for `text` into `game`: a refusal's reason (and what may be
        answered instead) goes to `text.say`, an accepted one's reply with its commit."""
        player, say = text.player, text.say
        # An answer's echo («Choice locked…») is not texted in a live game (see
        # adapters.sms.renderer): the composer learns who is answering here,
        # and writes the reply to the input with its commit (`reply_lines`).
        seq = game.phase.seq if answer else None
        origin = Origin(player, CHANNEL, seq, reply=text.sid)
        outcome = await self.service.submit(game.id, action, key=text.sid, origin=origin)
        after = outcome.game
        if outcome.rejected is not None:
            say.append(render(outcome.rejected.message, after.lang))
            sh = menu.sheet(after, player)
            if sh is not None:  # what may be answered instead
                say.ask(after, sh)
        else:
            self.unless_carried(outcome, origin, say)

    @staticmethod
    def unless_carried(outcome: Outcome, origin: Origin, say: Say) -> None:
        """An accepted input's reply, when its commit does not carry it (no
        SMS composer, or one that failed and recovered): said as before, after
        the commit. A duplicate's was written by the commit that applied it."""
        if not outcome.accepted:
            return
        prefix = reply_key(origin) + ":"
        if any(m.channel == CHANNEL and m.key.startswith(prefix) for m in outcome.messages):
            return
        say.extend(reply_lines(outcome.game, origin, outcome.messages))

    async def appended(self, game_id: str, messages: list[OutboxMessage]) -> None:
        """`messages` into the game's outbox with no commit (a refusal's
        reply, a report to the host), and this worker's delivery woken for
        them: they leave now, not at the delivery's next look."""
        await self.store.append_outbox(game_id, messages)
        if self.wake is not None:
            self.wake(game_id)

    # -- status and the host -----------------------------------------------------------

    async def status_text(self, game: Game, player: str, say: Say) -> None:
        """The player's current question again (STATUS); the host gets the roster."""
        sh = menu.sheet(game, player)
        if sh is not None:
            say.ask(game, sh)
        if player == game.host:
            say.append(await self.roster(game))
        if sh is None and player != game.host:
            say.append(await self.nothing_now(game, player))

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
