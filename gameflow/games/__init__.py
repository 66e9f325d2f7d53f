"""The built-in games. Importing this package registers them with the core."""

from gameflow.core.rules import register
from gameflow.games.resistance import RESISTANCE
from gameflow.games.station import STATION
from gameflow.games.traitors import TRAITORS

register(STATION)
register(RESISTANCE)
register(TRAITORS)
