"""The chosen stack's own CPU per SMS input: what a worker that did nothing of
its own would spend (issue #20, item 2).

Why: bench/knee.py shows a `serve` worker spending 3.5-4 ms of CPU an input,
and the issue's goal (five times the first probe's knee) needs about 1 ms on a
2-core machine (its `reach:` line). This probe measures the floor under that
figure: a bare Starlette app on uvicorn, configured as `serve` runs it (uvloop,
httptools, the heap frozen), that for each signed webhook checks Twilio's
signature, makes `--trips` Redis round trips through redis-py (the store's
blocking pool; GETs and SETs of a snapshot-sized value) and sends `--texts`
texts through the twilio SDK (the project's AiohttpClient) to the fake Twilio
on loopback. No game, no rules, no composing: what is left is the cost of the
layers the project has chosen (python-telegram-bot aside), which no change
inside the project takes away.

The load is open-loop: inputs are sent at `--rate` a second whatever the
answers do, for `--seconds`, once per layer (the webhook alone; with the round
trips; with the texts too). Reported per layer: the app's CPU ms per input
(from /proc, as the knee reports the worker's), the webhook's p50/p99, and
the same run's Redis floor.

    .venv/bin/python bench/stack_floor.py                # 11 round trips, 1.8 texts
    .venv/bin/python bench/stack_floor.py --rate 300 --trips 6 --texts 1
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bench.common import machine, pct, redis_url  # noqa: E402
from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio, inbound  # noqa: E402
from tests.scale_workers import cpu_seconds, free_port  # noqa: E402

PUBLIC = "https://muldvarp.example.org"
FROM = "+4759440000"
VALUE = "x" * 2400  # about one snapshot


def texts_for(i: int, per_input: float) -> int:
    """How many texts input `i` sends so that inputs 0..n-1 send round(n *
    per_input) in all, spread evenly (1.8 a input: 2, 2, 2, 2, 1, ...)."""
    return round((i + 1) * per_input) - round(i * per_input)


def app(redis: str, twilio: str) -> Any:
    """The bare webhook: signature, round trips, texts; its answer is empty TwiML.
    The form is parsed as adapters/sms/webhook.py parses it (the standard
    library), the signature checked as there."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route
    from twilio.request_validator import RequestValidator

    from adapters.sms.outbound import twilio_client
    from adapters.sms.settings import SmsSettings
    from adapters.store.redis_store import RedisStore

    db = RedisStore.from_url(redis).client  # the store's own client and pool
    # the SDK's client as serve builds it (its lazy imports done at start)
    sms = twilio_client(SmsSettings(ACCOUNT_SID, AUTH_TOKEN, PUBLIC, api_base_url=twilio))
    check = RequestValidator(AUTH_TOKEN)

    async def hook(request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))
        url = PUBLIC + request.url.path + ("?" + request.url.query if request.url.query else "")
        if not check.validate(url, form, request.headers.get("X-Twilio-Signature", "")):
            return Response("bad signature", status_code=403)
        trips, texts = int(request.query_params["trips"]), int(request.query_params["texts"])
        key = f"{{floor}}:{form['From']}"
        for k in range(trips):
            if k % 2:
                await db.set(key, VALUE)
            else:
                await db.get(key)
        for _ in range(texts):
            await sms.messages.create_async(
                to=form["From"], from_=FROM, body="Ditt valg er lagret."
            )
        return Response("<Response/>", media_type="text/xml")

    async def healthz(request: Request) -> Response:
        return Response("ok")

    return Starlette(routes=[Route("/sms", hook, methods=["POST"]), Route("/healthz", healthz)])


def serve(port: int, redis: str, twilio: str) -> None:
    import gc

    import uvicorn

    config = uvicorn.Config(app(redis, twilio), host="127.0.0.1", port=port, log_level="warning")
    gc.collect()
    gc.freeze()  # as bots/serve.settle_heap
    uvicorn.Server(config).run()


async def layer(
    port: int, pid: int, twilio: FakeTwilio, rate: float, seconds: float, trips: int,
    per_text: float,
) -> tuple[float, list[float]]:  # fmt: skip
    """Inputs at `rate` a second for `seconds`: the app's CPU s per input and
    the round trips of the webhooks (s). Every text meant must have reached
    the fake Twilio, or the figure would be of less work than it says."""
    texts0 = len(twilio.messages)
    lat: list[float] = []
    n = int(rate * seconds)
    path = "/sms"
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as client:

        async def one(i: int) -> None:
            query = f"?trips={trips}&texts={texts_for(i, per_text)}"
            phone = f"+47900{i % 1000:05d}"
            data, headers = inbound(
                PUBLIC + path + query, f"SM{uuid.uuid4().hex}", phone, FROM, "1"
            )
            t0 = time.monotonic()
            async with client.post(
                f"http://127.0.0.1:{port}{path}{query}", data=data, headers=headers
            ) as r:
                await r.read()
                assert r.status == 200, r.status
            lat.append(time.monotonic() - t0)

        c0, start = cpu_seconds(pid), time.monotonic()
        tasks = []
        for i in range(n):
            wait = start + i / rate - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            tasks.append(asyncio.create_task(one(i)))
        await asyncio.gather(*tasks)
        c1 = cpu_seconds(pid)
    assert c0 is not None and c1 is not None
    meant = sum(texts_for(i, per_text) for i in range(n))
    if len(twilio.messages) - texts0 != meant:
        raise SystemExit(f"{meant} texts meant, {len(twilio.messages) - texts0} reached Twilio")
    return (c1 - c0) / n, lat


async def healthy(port: int, proc: subprocess.Popen[bytes]) -> None:
    async with aiohttp.ClientSession() as client:
        for _ in range(300):
            if proc.poll() is not None:
                raise SystemExit("the app exited before it was ready")
            try:
                async with client.get(f"http://127.0.0.1:{port}/healthz") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit("the app never became ready")


async def probe(args: argparse.Namespace, url: str, twilio: FakeTwilio) -> None:
    from bench.knee import floor

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, __file__, "--serve", str(port), "--redis", url, "--api", twilio.base_url]
    proc = subprocess.Popen(cmd, env=env)
    try:
        await healthy(port, proc)
        pairs = (await floor(url))[0]
        print(f"floor: {pairs:,.0f} GET+SET pairs/s with 32 in flight")
        await layer(port, proc.pid, twilio, args.rate, 2.0, args.trips, args.texts)  # warm up
        for name, trips, texts in (
            ("webhook + signature", 0, 0.0),
            (f"+ {args.trips} Redis round trips", args.trips, 0.0),
            (f"+ {args.texts:g} texts through the SDK", args.trips, args.texts),
        ):
            cpu, lat = await layer(port, proc.pid, twilio, args.rate, args.seconds, trips, texts)
            print(
                f"  {name:<34} {cpu * 1000:5.2f} CPU ms an input  p50 {pct(lat, 0.5):6.1f} ms"
                f"  p99 {pct(lat, 0.99):6.1f} ms  ({len(lat)} inputs at {args.rate:g}/s)",
                flush=True,
            )
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--redis", help="a Redis URL to use (default: start a redis-server here)")
    p.add_argument("--rate", type=float, default=200.0, help="inputs a second")
    p.add_argument("--seconds", type=float, default=15.0, help="each layer's stretch")
    p.add_argument("--trips", type=int, default=11, help="Redis round trips an input")
    p.add_argument("--texts", type=float, default=1.8, help="texts an input")
    p.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # the app's own process
    p.add_argument("--api", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve is not None:
        serve(args.serve, args.redis, args.api)
        return
    print(machine())
    with redis_url(args.redis) as url, FakeTwilio() as twilio:
        asyncio.run(probe(args, url, twilio))


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    main()
