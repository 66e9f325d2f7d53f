"""The built-in games. Importing this package registers them with the core."""

from gameflow.core.rules import register
from gameflow.games.station import STATION

register(STATION)
