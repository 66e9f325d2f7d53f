"""One client process for tests/test_ratelimit.py: sends to a fake Bot API as
fast as a `RedisLimiter` lets it, every chat from a task of its own.

    python -m tests.ratelimit_client REDIS_URL PREFIX API_URL PER_CHAT CHAT...

The rates are rate_helpers.RATES (scaled up from Telegram's, so the test is
short); prints `done N` when all N are sent.
"""

from __future__ import annotations

import asyncio
import sys

import httpx

from adapters.ratelimit import RedisLimiter, bot_scope, telegram_buckets
from tests.fake_telegram import TOKEN
from tests.rate_helpers import RATES


async def send_all(limiter: RedisLimiter, api: str, per_chat: int, chats: list[int]) -> int:
    scope = bot_scope(TOKEN)
    sent = 0
    async with httpx.AsyncClient() as http:

        async def one_chat(chat: int) -> None:
            nonlocal sent
            for i in range(per_chat):
                while True:
                    grant = await limiter.reserve(telegram_buckets(scope, RATES, chat))
                    if grant.ok:
                        break
                    await asyncio.sleep(grant.wait)
                await asyncio.sleep(grant.wait)
                r = await http.post(
                    f"{api}{TOKEN}/sendMessage", json={"chat_id": chat, "text": f"m{i}"}
                )
                assert r.status_code == 200, r.text
                sent += 1

        await asyncio.gather(*(one_chat(c) for c in chats))
    return sent


async def main(argv: list[str]) -> None:
    url, prefix, api, per_chat, *chats = argv
    limiter = RedisLimiter.from_url(url, prefix=prefix)
    try:
        n = await send_all(limiter, api, int(per_chat), [int(c) for c in chats])
    finally:
        await limiter.close()
    print(f"done {n}", flush=True)


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    asyncio.run(main(sys.argv[1:]))
