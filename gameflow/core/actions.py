"""Actions: the inputs a game accepts, as plain immutable records.

Every action names its actor (`by`: a player id, the host id, or None for the
system) and may name the phase it was made for (`phase`, the phase `seq`): a
button, an SMS menu or a deadline job made for an earlier phase is refused as
stale instead of acting on the wrong question. Game modules define their own
action classes next to these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Action:
    kind: ClassVar[str] = "action"
    by: str | None = None
    phase: int | None = None


# -- lobby -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Join(Action):
    kind: ClassVar[str] = "join"
    name: str = ""


@dataclass(frozen=True, slots=True)
class Leave(Action):
    kind: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class Kick(Action):
    kind: ClassVar[str] = "kick"
    target: str = ""


@dataclass(frozen=True, slots=True)
class SetOption(Action):
    kind: ClassVar[str] = "set_option"
    name: str = ""
    value: Any = None


@dataclass(frozen=True, slots=True)
class SetLanguage(Action):
    kind: ClassVar[str] = "set_language"
    lang: str = ""


@dataclass(frozen=True, slots=True)
class Start(Action):
    """The host starts the game. `zone` is the game's time zone as a table of
    UTC offsets (see gameflow.core.clock), filled in by the service for games
    scheduled by the calendar; empty means UTC."""

    kind: ClassVar[str] = "start"
    zone: tuple[tuple[float, float], ...] = ()


# -- host controls and time ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pause(Action):
    kind: ClassVar[str] = "pause"


@dataclass(frozen=True, slots=True)
class Resume(Action):
    kind: ClassVar[str] = "resume"


@dataclass(frozen=True, slots=True)
class Advance(Action):
    """The host ends the phase early; allowed once every active player is ready."""

    kind: ClassVar[str] = "advance_early"


@dataclass(frozen=True, slots=True)
class End(Action):
    kind: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class Deadline(Action):
    """The phase `phase` ran out of time (sent by the scheduler, or by replay's
    `advance`). Refused unless that phase is current, running and due."""

    kind: ClassVar[str] = "advance"


@dataclass(frozen=True, slots=True)
class MoveWindow(Action):
    """The host moves window `window` of a campaign day (see
    gameflow.core.campaign) to clock time `clock` ("HH:MM" in the game's zone)."""

    kind: ClassVar[str] = "move_window"
    window: str = ""
    clock: str = ""


@dataclass(frozen=True, slots=True)
class Away(Action):
    """A player is away until `until`: an instant (seconds since the epoch) or
    a local date "YYYY-MM-DD" of the game's zone (away through that whole day);
    None means they are back. See gameflow.core.away."""

    kind: ClassVar[str] = "away"
    until: float | str | None = None


@dataclass(frozen=True, slots=True)
class Gone(Action):
    """The host marks the seated player `target` as gone for good (left the
    campaign): away with no end, so the game answers for them. See
    gameflow.core.away."""

    kind: ClassVar[str] = "gone"
    target: str = ""


@dataclass(frozen=True, slots=True)
class NotGone(Action):
    """The host takes back Gone: `target` answers for themselves again."""

    kind: ClassVar[str] = "not_gone"
    target: str = ""


CORE_ACTIONS: tuple[type[Action], ...] = (
    Join,
    Leave,
    Kick,
    SetOption,
    SetLanguage,
    Start,
    Pause,
    Resume,
    Advance,
    End,
    Deadline,
    MoveWindow,
    Away,
    Gone,
    NotGone,
)
