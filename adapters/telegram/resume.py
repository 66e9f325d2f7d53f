"""Prompts lost to a restart, sent again once the bot is back.

The outbound queue lives in the worker's memory: a worker that dies with
prompts queued but not yet delivered loses them (the inputs never: they are
stored before anything is sent). A starting worker therefore looks, after a
grace period, at every running game whose current phase began before it
started, and sends each Telegram player who still owes an answer and has no
prompt of that phase up (the store's `tg:open` record) their question again.

The grace period leaves a live worker that is still delivering a phase's
prompts (a rolling restart) time to deliver and record them, and workers that
start together agree through a store claim which one resumes a game.
Players can always ask for their question again with /status.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

from adapters.telegram.notifier import TelegramNotifier
from service.games import GameNotFound, GameService

log = logging.getLogger(__name__)

RESUME_GRACE = 30.0  # seconds after the start before looking


async def resume_prompts(
    service: GameService,
    notifier: TelegramNotifier,
    *,
    since: float,
    grace: float = RESUME_GRACE,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> int:
    """Send again the lost prompts of phases that began before `since` (this
    worker's start, by the service's clock); returns how many were queued."""
    await sleep(grace)
    me = secrets.token_hex(8)
    sent = 0
    for game_id in await service.store.active_games():
        try:
            game = await service.load(game_id)
        except GameNotFound:
            continue
        if not game.running or game.phase.started > since:
            continue  # a phase this worker saw begin: its prompts are its own
        # One worker per game and phase among those starting within a minute.
        key = f"tg:resume:{game.id}:{game.phase.seq}:{int(clock() // 60)}"
        if await service.store.claim(key, me) != me:
            continue
        try:
            sent += await notifier.resume(game)
        except Exception:  # one game's trouble must not stop the others
            log.exception("%s: resuming its prompts failed", game_id)
    if sent:
        log.info("sent %d prompts again that a restart had lost", sent)
    return sent
