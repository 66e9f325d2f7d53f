"""Texts of the demo's reveal (bots/demo.py): who won, each player's team, the
secret actions of each round and the seed, for the closing summary printed
after a simulated Station game. Kept apart from the bots, which decide moves
and say nothing of their own."""

from __future__ import annotations

from gameflow.core.text import N_, Msg, msg


def winner_text(winner: str | None) -> Msg:
    if winner == "loyal":
        return msg(N_("Winner: the loyal crew."))
    if winner == "infiltrators":
        return msg(N_("Winner: the infiltrators."))
    return msg(N_("The game ended without a winner."))


def team_name(team: str) -> Msg:
    return msg(N_("infiltrator")) if team == "infiltrator" else msg(N_("loyal"))


def secret_text(name: str, kind: str) -> Msg:
    if kind == "trap":
        return msg(N_("{name} set the trap"), name=name)
    return msg(N_("{name} sabotaged"), name=name)


def round_text(round_: int, success: bool, secrets: tuple[Msg, ...]) -> Msg:
    result = msg(N_("success")) if success else msg(N_("failure"))
    if not secrets:
        return msg(N_("Round {round}: {result}, no secret actions."), round=round_, result=result)
    return msg(
        N_("Round {round}: {result}; {secrets}."), round=round_, result=result, secrets=secrets
    )


def seed_text(seed: str, digest: str) -> Msg:
    return msg(
        N_("Seed: {seed} (SHA-256 {digest}, published at the start)."), seed=seed, digest=digest
    )
