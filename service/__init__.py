"""The game service: the one path by which any input changes a game.

A layer of its own, between the pure core (`gameflow`) and everything that
does I/O. `games.GameService` loads a game, applies an input with the core,
commits it with its idempotency key in one atomic store step and tells the
notifiers; `ports` declares what it needs from a store and from a notifier,
which the adapters implement; `zones` and `calendar` turn a game's time zone
into data for the core (which reads no tzdata) and clock times into instants.

Layers point one way (tests/test_layers.py keeps them so): the service
imports the core and the standard library only; the adapters (Telegram, SMS,
the TV page, the stores) and the scheduler import the service; `bots` wires
them all together and runs them, and nothing imports `bots`.
"""
