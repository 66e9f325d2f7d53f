"""Button presses: checked against the game, then one tap acts, or a step in a
one-message draft (choice.py) is taken, or the draft is sent.

A press is checked before anything happens: it must be this adapter's, pressed
by the player it was drawn for, in the phase it was drawn in, for an action
`legal()` still offers with a value it still allows. Otherwise the presser gets
a short notice and nothing changes. The check runs on this process's last copy
of the game when it has one (no round trip); a copy may be behind another
worker's commits, so a press it refuses is checked again on the stored state,
and what a press finally does goes through `submit`, on the stored state.

A draft step is a compare-and-set on the stored draft. This process first
tries the swap against the draft it last wrote itself (one round trip when the
same worker took the previous tap, as it mostly does); any other outcome than
a swap that holds (the draft was changed elsewhere, the tap looks stale or
already taken) is decided again on the draft read from the store.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import CallbackQuery, Update

from adapters.telegram.choice import (
    Draft,
    build_action,
    draft_attr,
    editor,
    next_field,
    pick,
    summary,
    title_for,
)
from adapters.telegram.keyboards import (
    DONE_TOKEN,
    Press,
    Unknown,
    decode,
    is_multi,
    offered,
    option_of,
)
from adapters.telegram.labels import kind_label
from adapters.telegram.language import user_lang
from adapters.telegram.notifier import SWAP_TRIES, Recent, TelegramNotifier
from adapters.telegram.notifier import identity as identity_of
from adapters.telegram.renderer import CHANNEL, echo_of
from gameflow.core import actions as A
from gameflow.core.legal import ActionSpec, Value
from gameflow.core.question import question
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.i18n import render
from service.compose import Origin
from service.games import GameNotFound, GameService, Outcome

log = logging.getLogger(__name__)

NOT_YOURS = N_("That button is not yours.")
STALE = N_("That question has already closed.")
DONE = N_("Already sent.")
FINISH = N_("Finish your choice first.")

Key = tuple[int, int]  # (chat id, message id) of the pressed message


def blank_draft(game: Game, spec: ActionSpec, press: Press, key: Key) -> Draft:
    """An empty draft of `press`'s action, on the pressed message `key`."""
    return Draft(
        game.id, press.seq, press.seat, spec.kind, chat=key[0], message=key[1], spec=press.spec
    )


Checked = tuple[ActionSpec, dict[str, Value]]


class Presses:
    """The press handling of `handlers.Telegram` (a mixin: its fields are there)."""

    service: GameService
    notifier: TelegramNotifier
    default_lang: str
    answer_in_reply: bool
    answers: dict[str, dict[str, Any]]
    written: Recent[tuple[str, int], str]  # (game, seat) -> the draft we last stored

    async def submit(
        self,
        update: Update,
        game_id: str,
        action: A.Action,
        origin: Origin | None = None,
        *,
        key: str = "",
    ) -> Outcome:
        return await self.service.submit(
            game_id, action, key=key or f"tg:{update.update_id}", origin=origin
        )

    def refusal(self, outcome: Outcome) -> str | None:
        if outcome.rejected is not None:
            return render(outcome.rejected.message, outcome.game.lang)
        return None

    @staticmethod
    def check(game: Game, press: Press, me: str) -> Checked | str:
        """The spec the press is for and, for a one-tap press, its value; or
        the notice that refuses it."""
        # seat -1: a game master's button (the host of a game with host actions)
        owner = game.host if press.seat == -1 else None
        if 0 <= press.seat < len(game.players):
            owner = game.players[press.seat]
        if owner != me:
            return NOT_YOURS
        specs = offered(game, me)
        spec = specs[press.spec] if 0 <= press.spec < len(specs) else None
        if (
            press.seq != game.phase.seq
            or spec is None
            or spec.kind != press.kind
            or spec.phase != press.seq
        ):
            return STALE
        values: dict[str, Value] = {}
        if press.op == "a" and press.field >= 0:
            if press.field >= len(spec.fields):
                return STALE
            f = spec.fields[press.field]
            value = option_of(game, f, press.value)
            if isinstance(value, Unknown):
                return STALE
            values[f.name] = value
        return spec, values

    async def button(self, update: Update, context: Any) -> None:
        query = update.callback_query
        if query is None or query.message is None:
            return
        press = decode(query.data)
        stranger = user_lang(query.from_user, self.default_lang)
        if press is None:
            await self.notice(query, STALE, stranger)
            return
        me = identity_of(query.from_user.id)
        try:
            game, fresh = await self.service.current(press.game_id)
            checked = self.check(game, press, me)
            if isinstance(checked, str) and not fresh:
                game = await self.service.load(press.game_id)
                checked = self.check(game, press, me)
        except GameNotFound:
            await self.notice(query, STALE, stranger)
            return
        if isinstance(checked, str):
            await self.notice(query, checked, game.lang)
            return
        spec, values = checked
        key = (query.message.chat.id, query.message.message_id)
        if press.op in "dro":
            await self.step(update, query, game, spec, press, key)
        elif press.op == "a":
            await self.act(update, query, game, me, spec, values, key)
        else:  # "s": send the draft, read from the store (never a copy)
            stored = await self.service.store.get_attr(game.id, draft_attr(press.seat))
            draft = Draft.loads(stored)
            if draft is None or not draft.belongs(key, press.seq, spec.kind, press.spec):
                draft = blank_draft(game, spec, press, key)
            if next_field(spec, draft) is not None:
                await self.redraw(game, spec, draft, key)
                await self.notice(query, FINISH, game.lang)
                return
            await self.act(update, query, game, me, spec, draft.values, key)

    async def step(
        self,
        update: Update,
        query: CallbackQuery,
        game: Game,
        spec: ActionSpec,
        press: Press,
        key: Key,
    ) -> None:
        """One tap in a draft (set a field, toggle an option, start over): a
        compare-and-set on the stored draft, taken again on the newer draft
        when another tap got in between (see choice.py)."""
        store, name, mine = self.service.store, draft_attr(press.seat), (game.id, press.seat)
        stored = self.written.get(mine)
        fresh = stored is None
        if fresh:
            stored = await store.get_attr(game.id, name)
        for _ in range(SWAP_TRIES):
            draft = Draft.loads(stored)
            if (
                draft is None
                or not draft.belongs(key, press.seq, spec.kind, press.spec)
                or press.op in "ro"
            ):
                draft = blank_draft(game, spec, press, key)
            taken = update.update_id in draft.presses
            refused = None if taken else self.take(game, spec, press, draft)
            if (taken or refused is not None) and not fresh:
                stored, fresh = await store.get_attr(game.id, name), True
                continue  # decided on our own last write: decide again on the store's
            if taken:
                break  # Telegram delivered this tap again: it is in already
            if refused is not None:
                await self.redraw(game, spec, draft, key)
                await self.notice(query, refused, game.lang)
                return
            draft.took(update.update_id)
            text = draft.dumps()
            if await store.swap_attr(game.id, name, stored, text):
                self.written.put(mine, text)
                break
            stored, fresh = await store.get_attr(game.id, name), True
        else:
            # Nothing was taken: failing the update makes Telegram send it again.
            raise RuntimeError(f"{game.id}: the draft of seat {press.seat} kept changing")
        await self.redraw(game, spec, draft, key)
        await self.notice(query, None, game.lang)

    @staticmethod
    def take(game: Game, spec: ActionSpec, press: Press, draft: Draft) -> str | None:
        """Apply a "d" tap to `draft` (others change nothing here); the notice
        refusing it, if it is not the draft's next step or not an option."""
        if press.op != "d":
            return None
        nxt = next_field(spec, draft)
        if nxt is None or nxt[0] != press.field:
            return STALE
        done = is_multi(nxt[1]) and press.value == DONE_TOKEN
        value = None if done else option_of(game, nxt[1], press.value)
        if isinstance(value, Unknown):
            return STALE
        pick(draft, nxt[1], value, done)
        return None

    async def redraw(self, game: Game, spec: ActionSpec, draft: Draft, key: Key) -> None:
        lang = game.lang
        owner = game.players[draft.seat] if 0 <= draft.seat < len(game.players) else game.host
        q = question(game, owner)
        context = q.context if q is not None else ()
        now = min(max(self.service.clock(), game.phase.started), game.phase.deadline or 1e300)
        head = title_for(game, spec, lang, now, context)
        text, markup = editor(game, spec, draft, lang, head)
        self.notifier.edit(key[0], key[1], text, markup, label="draft")

    async def act(
        self,
        update: Update,
        query: CallbackQuery,
        game: Game,
        me: str,
        spec: ActionSpec,
        values: dict[str, Any],
        key: Key,
    ) -> None:
        lang = game.lang
        try:
            action = build_action(game, me, spec, values)
        except ValueError:
            await self.notice(query, STALE, lang)
            return
        origin = Origin(me, CHANNEL, spec.phase, message=(key[0], key[1]))
        outcome = await self.submit(update, game.id, action, origin)
        if outcome.duplicate:
            await self.notice(query, DONE, lang)
            return
        refusal = self.refusal(outcome)
        if refusal is not None:
            await self.notice(query, refusal, lang, translated=True)
            return
        echo = echo_of(origin, outcome.events)
        if echo is not None and echo.text is not None:
            text = render(echo.text, lang)
        else:
            lines = [f"✓ {kind_label(spec.kind, lang, game)}", *summary(game, spec, values, lang)]
            text = "\n".join(lines)
        self.notifier.lock(key[0], key[1], text)
        await self.notice(query, None, game.lang)

    async def notice(
        self, query: CallbackQuery, text: str | None, lang: str, *, translated: bool = False
    ) -> None:
        """Answer the press (Telegram shows `text` as a short toast; None just
        stops the button's spinner): behind the webhook, in the webhook's reply."""
        if text is not None and not translated:
            text = render(text, lang)
        if self.answer_in_reply:
            params: dict[str, Any] = {"callback_query_id": query.id}
            if text is not None:
                params["text"] = text
            self.answers[query.id] = params
            return
        try:
            await query.answer(text)
        except Exception:  # an answer that comes too late is harmless
            log.info("callback answer failed", exc_info=True)
