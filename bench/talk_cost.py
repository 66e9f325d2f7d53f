"""What the table's talk costs an SMS player a campaign day (issue #33), with
and without digests (adapters/sms/digest.py).

A Traitors campaign of 8 SMS players in `nb` plays one day of talk through
the game service, the SMS talker and the SMS delivery (the store, outbox and
digests as `muldvarp serve` runs them; Twilio replaced by a counter): each
player says a seeded random number of lines of 20 to 120 characters, in
bursts of conversation between 08:00 and 22:45, and the digests' timers are
the sweep's, run every 5 minutes of the day and of the days after until no
line waits. Counted: the talk texts and their segments each player receives
that day, the texts of the days after (what the day's cap and quiet hours
held back: a digest drops no line, the rest wait for the next one),
and how long a line waits from being said to being texted (worst, and the
worst of the lines texted the same day), for a moderate and a chatty table.

    .venv/bin/python bench/talk_cost.py [--seed 1]

Figures: docs/sms.md, "Talk".
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.sms.delivery import Delivery
from adapters.sms.directory import SqliteDirectory, player_id
from adapters.sms.outbound import OutMessage, Sent
from adapters.sms.renderer import SmsRenderer
from adapters.sms.segments import segments
from adapters.sms.sent_sheets import SentSheets
from adapters.sms.settings import SmsSettings
from adapters.sms.talk import SmsTalker
from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
from service import talk
from service.games import GameService

ZONE = ZoneInfo("Europe/Oslo")
DAY0 = datetime(2027, 1, 12, 8, 0, tzinfo=ZONE).timestamp()  # a Tuesday, 08:00
NAMES = ["Kari", "Ola", "Åse", "Per", "Liv", "Nils", "Mari", "Tor"]
WORDS = tuple(
    [
        "jeg",
        "tror",
        "at",
        "hun",
        "lyver",
        "om",
        "natten",
        "han",
        "var",
        "stille",
        "i",
        "dag",
        "vi",
        "må",
        "stemme",
        "ut",
        "noen",
        "nå",
    ]
)
TICK = 300.0  # the sweep's period (SWEEP) in the day played
KEY = "talk-cost"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Counter:
    """Twilio replaced: every text sent, with the time it went."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.wall = clock  # the delivery records an attempt's time by the sender's clock
        self.sent: list[tuple[float, OutMessage]] = []

    async def deliver(self, m: OutMessage) -> Sent:
        self.sent.append((self.clock(), m))
        return Sent(f"SM{len(self.sent):032x}")

    async def drain(self) -> None:
        return None


def schedule(rng: random.Random, lines_each: float) -> list[tuple[float, int, str]]:
    """(time, speaker, line) of one day's talk: bursts of conversation."""
    out: list[tuple[float, int, str]] = []
    total = int(lines_each * len(NAMES))
    bursts = [DAY0 + rng.uniform(0, 14.75 * 3600) for _ in range(8)]
    for _ in range(total):
        at = min(rng.choice(bursts) + rng.expovariate(1 / 600), DAY0 + 14.75 * 3600)
        words: list[str] = []
        size = rng.randint(20, 120)
        while len(" ".join(words)) < size:
            words.append(rng.choice(WORDS))
        out.append((at, rng.randrange(len(NAMES)), " ".join(words)))
    return sorted(out)


async def day(seed: int, lines_each: float, every: float, per_day: int) -> dict[str, Any]:
    """One day's talk texts per player (texts, segments), and the next
    morning's held ones."""
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock(DAY0 - 3600)
        store = SqliteStore(str(Path(tmp) / "cost.sqlite3"), clock=clock)
        directory = SqliteDirectory()
        settings = SmsSettings(
            account_sid="AC" + "0" * 32,
            auth_token="token",
            public_base_url="https://muldvarp.example.org",
            from_number="+4759440000",
            id_key=KEY,
            rate=0,
        )
        renderer = SmsRenderer(settings)
        service = GameService(store, composers=[renderer], clock=clock)
        counter = Counter(clock)
        sender: Any = counter  # Twilio's place: deliver, drain and clock
        delivery = Delivery(
            store, directory, sender, SentSheets(store), composer=renderer, wall=clock
        )
        talk.add_talker(service.talkers, SmsTalker(renderer, delivery.wake))
        options = {
            "pacing": "campaign",
            "timezone": "Europe/Oslo",
            "talk_digest_every": every,
            "talk_texts_per_day": per_day,
        }
        created = await service.create_game(
            "traitors", "tg:host", lang="nb", seed=f"c{seed}", options=options
        )
        game_id = created.game.id
        players = []
        for i, name in enumerate(NAMES):
            phone = f"+47912400{i:02d}"
            pid = player_id(phone, KEY)
            players.append(pid)
            await directory.set_phone(pid, phone, game_id)
            assert (await service.submit(game_id, A.Join(pid, None, name))).accepted
        assert (await service.submit(game_id, A.Start("tg:host"))).accepted
        await delivery.drain()
        counter.sent.clear()  # the start's texts are not talk

        events = schedule(random.Random(seed), lines_each)
        ticks = [DAY0 + k * TICK for k in range(int(16 * 3600 / TICK))]
        said = 0
        for at, kind, who, line in sorted(
            [(t, 1, s, ln) for t, s, ln in events] + [(t, 0, -1, "") for t in ticks]
        ):
            clock.now = at
            if kind:
                out = await service.talk(game_id, players[who], line, key=f"k{said}")
                said += out.status == talk.SENT
            else:
                await delivery.digests.sweep()
            await delivery.drain()
        day_end = clock.now
        clock.now = datetime(2027, 1, 13, 7, 5, tzinfo=ZONE).timestamp()
        # the days after, until no line waits (a chatty table's lines outrun
        # the day's cap: they wait, none is dropped)
        for _ in range(int(14 * 24 * 3600 / TICK)):
            if not await delivery.digests.sweep():
                break
            await delivery.drain()
            clock.now += TICK
        else:
            raise AssertionError("lines still waiting two weeks later")
        await delivery.drain()
        await delivery.digests.stop()
        await directory.close()
        await store.close()

    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    texted: dict[str, list[float]] = defaultdict(list)  # a recipient's lines' times
    for t, m in counter.sent:
        row = per[m.to]
        texted[m.to] += [t for x in m.body.splitlines() if not x.startswith("(")]
        if t <= day_end:
            row[0] += 1
            row[1] += segments(m.body)
            row[4] += sum(not x.startswith("(") for x in m.body.splitlines())
        else:
            row[2] += 1
            row[3] += segments(m.body)
    rows = [per[f"+47912400{i:02d}"] for i in range(len(NAMES))]
    # each recipient gets the others' lines in the order said: pair them up
    waits: list[float] = []
    same_day: list[float] = []
    for i in range(len(NAMES)):
        owed = [at for at, who, _ in events if who != i]
        got = texted[f"+47912400{i:02d}"]
        assert len(got) == len(owed), (i, len(got), len(owed))  # every line, once
        waits += [b - a for a, b in zip(owed, got, strict=True)]
        same_day += [b - a for a, b in zip(owed, got, strict=True) if b <= day_end]
    return {"lines": said, "rows": rows, "wait": max(waits), "same_day": max(same_day)}


def show(label: str, result: dict[str, Any]) -> str:
    rows = result["rows"]
    texts = [r[0] for r in rows]
    segs = [r[1] for r in rows]
    held = [r[2] for r in rows]
    shown = [r[4] for r in rows]
    return (
        f"{label:<44} lines {result['lines']:>3}  texts/player {statistics.mean(texts):5.1f}"
        f" (max {max(texts):>3})  segments/player {statistics.mean(segs):5.1f}"
        f" (max {max(segs):>3})  lines shown {statistics.mean(shown):5.1f}"
        f"  days after {statistics.mean(held):4.1f} texts"
        f"  worst wait {result['wait'] / 60:5.0f} min"
        f" (same day {result['same_day'] / 60:4.0f} min)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from gameflow.games import register_all

    register_all()
    for lines_each, table in ((8, "moderate"), (20, "chatty")):
        for every, cap, what in (
            (0.0, 0, "a text a line"),
            (1800.0, 12, "digests 30 min, 12/day"),
            (3600.0, 8, "digests 60 min, 8/day"),
        ):
            result = await day(args.seed, lines_each, every, cap)
            print(show(f"{table} ({lines_each}/player), {what}", result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
