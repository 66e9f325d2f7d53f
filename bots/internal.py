"""Internal routes: drive games over HTTP without a chat channel.

Mounted only when `MULDVARP_INTERNAL_TOKEN` is set, and every request must carry
`Authorization: Bearer <token>` (compared in constant time; 403 otherwise). They
exist for load and failover tests (tests/test_scale.py) and for operators'
smoke tests; they go through the same `GameService.submit` as the channels, with
the same guarantee: 200 only after the input is stored, and a redelivery with
the same `key` is answered as a duplicate, never applied twice.

  POST /internal/games                {kind, host, lang?, options?, seed?, key?}
  GET  /internal/games/{id}           version, phase, over, legal actions per player
  POST /internal/games/{id}/inputs    {key, step}: a game-script step; answers the
                                      outcome and the state after it (as GET)
  POST /internal/games/{id}/tv        a new TV link
"""

from __future__ import annotations

import hmac
import json
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from gameflow.core.engine import legal
from gameflow.core.state import Game
from gameflow.replay import parse_step
from service.games import GameNotFound

if TYPE_CHECKING:
    from bots.app import Runtime


def describe(game: Game) -> dict[str, Any]:
    """The game's version, phase and every legal action per player (secret: it
    names what each player may do, so it is for these routes only)."""
    acts: dict[str, list[dict[str, Any]]] = {}
    for player in (*game.players, game.host):
        specs = [
            {"do": s.kind, "phase": s.phase, "fields": {f.name: list(f.options) for f in s.fields}}
            for s in legal(game, player)
        ]
        if specs:
            acts[player] = specs
    return {
        "id": game.id,
        "version": game.version,
        "phase": game.phase.name,
        "seq": game.phase.seq,
        "deadline": game.phase.deadline,
        "over": game.over,
        "players": list(game.players),
        "legal": acts,
    }


def internal_routes(rt: Runtime) -> list[BaseRoute]:
    expected = f"Bearer {rt.settings.internal_token}".encode()

    def allowed(request: Request) -> bool:
        given = request.headers.get("authorization", "").encode()
        return hmac.compare_digest(given, expected)

    async def body(request: Request) -> dict[str, Any] | None:
        try:
            data = json.loads(await request.body() or b"{}")
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    async def create(request: Request) -> Response:
        if not allowed(request):
            return Response(status_code=403)
        data = await body(request)
        if data is None or not isinstance(data.get("kind"), str) or not data.get("host"):
            return JSONResponse({"error": "need kind and host"}, 400)
        try:
            made = await rt.service.create_game(
                data["kind"],
                str(data["host"]),
                lang=str(data.get("lang", "en")),
                options=data.get("options"),
                seed=data.get("seed"),
                key=data.get("key"),
            )
        except (ValueError, KeyError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        rt.metrics.games_created.inc(0 if made.duplicate else 1)
        return JSONResponse(
            {"id": made.game.id, "code": made.code, "duplicate": made.duplicate}, 201
        )

    async def show(request: Request) -> Response:
        if not allowed(request):
            return Response(status_code=403)
        try:
            game = await rt.service.load(request.path_params["game"])
        except (GameNotFound, ValueError):
            return JSONResponse({"error": "no such game"}, 404)
        return JSONResponse(describe(game))

    async def submit(request: Request) -> Response:
        if not allowed(request):
            return Response(status_code=403)
        data = await body(request)
        if data is None or not isinstance(data.get("step"), dict):
            return JSONResponse({"error": "need step"}, 400)
        game_id = request.path_params["game"]
        key = data.get("key")
        try:
            game = await rt.service.load(game_id)
            action = parse_step(game, data["step"])
            out = await rt.service.submit(game_id, action, key=None if key is None else str(key))
        except (GameNotFound, ValueError) as exc:
            status = 404 if isinstance(exc, GameNotFound) else 400
            return JSONResponse({"error": str(exc)}, status)
        verdict = "duplicate" if out.duplicate else "rejected" if out.rejected else "accepted"
        return JSONResponse(
            {
                "status": verdict,
                "code": out.rejected.code if out.rejected else None,
                "version": out.game.version,
                "over": out.game.over,
                "state": describe(out.game),
            }
        )

    async def tv(request: Request) -> Response:
        if not allowed(request):
            return Response(status_code=403)
        try:
            game = await rt.service.load(request.path_params["game"])
        except (GameNotFound, ValueError):
            return JSONResponse({"error": "no such game"}, 404)
        link = await rt.tv_link(game)
        return JSONResponse({"url": link}, 201)

    return [
        Route("/internal/games", create, methods=["POST"]),
        Route("/internal/games/{game}", show, methods=["GET"]),
        Route("/internal/games/{game}/inputs", submit, methods=["POST"]),
        Route("/internal/games/{game}/tv", tv, methods=["POST"]),
    ]
