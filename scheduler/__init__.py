"""Deadlines and reminders from the games' state, on APScheduler, one leader at a time.

- `plan`: what to arm for a game (pure: state + policy -> jobs);
- `calendar`: campaign clock times in the game's zone, DST-correct, quiet hours;
- `deadlines`: `DeadlineScheduler`, the jobs on an AsyncIOScheduler, and firing;
- `lease`: the Redis leader lease; `keeper`: its renewal from a thread, which a
  busy event loop can't starve; `runner`: the process entry (leader loop);
- `ports`: what the scheduler needs from the store and the service;
  `memory` and `redis_ports`: implementations for tests, the bench and demos.
"""
