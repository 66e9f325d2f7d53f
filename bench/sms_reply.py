"""How long the reply to a refused SMS text takes to reach Twilio (issue #30).

A refused text commits nothing: its reply is appended to the game's outbox
and must leave at once, not at the delivery's next look (a second away).
Signed webhooks into the whole app (`bots.app`, as the tests build it) and
the real twilio client out to the fake Twilio API; each sample is the time
from posting the text to the reply reaching the fake. Prints the median, the
90th percentile and the maximum (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fake_twilio import FakeTwilio
from tests.test_sms_reply_in_commit import PHONES, app, lobby


async def measure(samples: int) -> list[float]:
    with FakeTwilio() as fake, tempfile.TemporaryDirectory() as data:
        async with app(Path(data), fake) as a:
            await lobby(a, 2)
            waits = []
            for _ in range(samples):
                before = len(fake.to(PHONES[0]))
                sent = time.time()
                await a.post(PHONES[0], "START SPILL")  # not the host: refused
                while len(fake.to(PHONES[0])) == before and time.time() - sent < 5:
                    await asyncio.sleep(0.002)
                waits.append(fake.messages[-1]["received"] - sent)
                await asyncio.sleep(0.01)
            return sorted(waits)


def main() -> None:
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    waits = asyncio.run(measure(parser.parse_args().samples))
    ms = [w * 1000 for w in waits]
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(f"n={len(ms)} median={statistics.median(ms):.1f} ms p90={p90:.1f} ms max={ms[-1]:.1f} ms")


if __name__ == "__main__":
    main()
