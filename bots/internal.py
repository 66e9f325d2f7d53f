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

Every body is checked whole before anything is done (pydantic models, strict
types, no unknown fields), and the options by the game's own limits
(gameflow.core.options): anything malformed is a 400 whose `error` says what is
wrong and `problems` where, and changes nothing.
"""

from __future__ import annotations

import hmac
import json
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from gameflow.core.engine import legal
from gameflow.core.rules import known_games
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


def _id(value: str, *, player: bool = False) -> str:
    """An id (a key, a host): 1 to 200 characters, none of them a space or a
    control character; a player id never starts with @ (the host's view)."""
    if not 0 < len(value) <= 200 or any(c.isspace() or not c.isprintable() for c in value):
        raise ValueError("an id is 1 to 200 characters without spaces or control characters")
    if player and value.startswith("@"):
        raise ValueError("a player id never starts with @")
    return value


Id = Annotated[str, AfterValidator(_id)]
PlayerId = Annotated[str, AfterValidator(lambda v: _id(v, player=True))]
OptionValue = Annotated[bool | int | float | str, Field(union_mode="left_to_right")]


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    kind: str
    host: PlayerId
    lang: Literal["nb", "sr", "en"] = "en"
    options: dict[Annotated[str, StringConstraints(max_length=64)], OptionValue] | None = None
    seed: Annotated[str, StringConstraints(min_length=1, max_length=200)] | int | None = None
    key: Id | None = None


class Step(BaseModel):
    """A game-script step's envelope; its own fields are the game's to read."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)

    by: Id | None = Field(None, alias="as")
    do: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    phase: int | None = None


class NewInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    key: Id | None = None
    step: Step


SHOULD = "Input should be "
_MEMBERS = frozenset({"bool", "int", "float", "str", "constrained-str", "function-after[_id()]"})


def refusal(exc: ValidationError) -> JSONResponse:
    """400 naming every problem of a body: where (`options.vote_seconds`) and what."""
    found: dict[str, list[str]] = {}
    for e in exc.errors(include_url=False, include_input=False):
        # a union's members are named in the place ("options.traps.bool"): one place
        at = ".".join(str(p) for p in e["loc"] if p not in _MEMBERS) or "body"
        said = e["msg"].removeprefix("Value error, ")
        if said not in found.setdefault(at, []):
            found[at].append(said)
    problems = [
        {"at": at, "problem": ", or ".join([said[0], *(x.removeprefix(SHOULD) for x in said[1:])])}
        for at, said in found.items()
    ]
    first = problems[0]
    error = f"{first['at']}: {first['problem']}"
    return JSONResponse({"error": error, "problems": problems}, 400)


M = TypeVar("M", bound=BaseModel)


def internal_routes(rt: Runtime) -> list[BaseRoute]:
    expected = f"Bearer {rt.settings.internal_token}".encode()

    def allowed(request: Request) -> bool:
        given = request.headers.get("authorization", "").encode()
        return hmac.compare_digest(given, expected)

    async def body(request: Request) -> dict[str, Any] | None:
        try:
            data = json.loads(await request.body() or b"{}")
        except ValueError:  # not JSON, or not UTF-8
            return None
        return data if isinstance(data, dict) else None

    not_json = JSONResponse({"error": "the body is not a JSON object"}, 400)

    async def posted(request: Request, model: type[M]) -> tuple[M, dict[str, Any]] | Response:
        """The body, as `model` and as JSON, or the response refusing the request."""
        if not allowed(request):
            return Response(status_code=403)
        data = await body(request)
        if data is None:
            return not_json
        try:
            return model.model_validate(data), data
        except ValidationError as exc:
            return refusal(exc)

    async def loaded(request: Request) -> Game | Response:
        """The game the path names, or the response refusing the request."""
        if not allowed(request):
            return Response(status_code=403)
        try:
            return await rt.service.load(request.path_params["game"])
        except (GameNotFound, ValueError):
            return JSONResponse({"error": "no such game"}, 404)

    async def create(request: Request) -> Response:
        got = await posted(request, NewGame)
        if isinstance(got, Response):
            return got
        new = got[0]
        if new.kind not in known_games():
            known = ", ".join(known_games())
            return JSONResponse({"error": f"kind: unknown game {new.kind!r}; known: {known}"}, 400)
        try:  # the options' ranges are the game's (gameflow.core.options)
            made = await rt.service.create_game(
                new.kind,
                new.host,
                lang=new.lang,
                options=new.options,
                seed=None if new.seed is None else str(new.seed),
                key=new.key,
            )
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, 400)
        # counted by the service (bots.metrics.MeteredService), as every channel's
        return JSONResponse(
            {"id": made.game.id, "code": made.code, "duplicate": made.duplicate}, 201
        )

    async def show(request: Request) -> Response:
        game = await loaded(request)
        if isinstance(game, Response):
            return game
        return JSONResponse(describe(game))

    async def submit(request: Request) -> Response:
        got = await posted(request, NewInput)
        if isinstance(got, Response):
            return got
        data = got[1]
        game_id = request.path_params["game"]
        try:
            game = await rt.service.load(game_id)
            action = parse_step(game, data["step"])  # ValueError: not a step of this game
            out = await rt.service.submit(game_id, action, key=data.get("key"))
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
        game = await loaded(request)
        if isinstance(game, Response):
            return game
        link = await rt.tv_link(game)
        return JSONResponse({"url": link}, 201)

    return [
        Route("/internal/games", create, methods=["POST"]),
        Route("/internal/games/{game}", show, methods=["GET"]),
        Route("/internal/games/{game}/inputs", submit, methods=["POST"]),
        Route("/internal/games/{game}/tv", tv, methods=["POST"]),
    ]
