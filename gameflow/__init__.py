"""Muldvarp's pure game-flow core and its games.

Nothing in this package does I/O: no network, no clock, no global random.
State is data, and `gameflow.core.engine.apply(state, action, now)` is the only
transition. Adapters, the scheduler and the store live outside it.
"""
