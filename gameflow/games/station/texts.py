"""Station's flavour lists (professions, mission titles) and the texts other
modules name: the ones with a shorter SMS form (gameflow/games/station/definition.py)."""

from __future__ import annotations

from gameflow.core.text import N_

PROFESSIONS: tuple[str, ...] = (
    N_("engineer"),
    N_("medic"),
    N_("radio operator"),
    N_("geologist"),
    N_("cook"),
    N_("pilot"),
    N_("meteorologist"),
    N_("electrician"),
    N_("diver"),
    N_("biologist"),
    N_("mechanic"),
    N_("navigator"),
    N_("glaciologist"),
    N_("photographer"),
    N_("quartermaster"),
)

MISSIONS: tuple[str, ...] = (
    N_("Repair the antenna mast"),
    N_("Restart the generator"),
    N_("Recover the weather buoy"),
    N_("Seal the leaking fuel tank"),
    N_("Fetch the drill cores"),
    N_("Reconnect the satellite link"),
    N_("Clear the runway of ice"),
    N_("Rescue the lost sled team"),
    N_("Replace the heat exchanger"),
    N_("Recalibrate the seismograph"),
)

JOB_NAMES: dict[str, str] = {
    "outside": N_("outside"),
    "radio": N_("radio"),
    "guard": N_("guard"),
}

# Button and menu labels. In `nb` these are the seed's own words: «Send valget»,
# «Saboter utstyret», «Send stemmen», «Ingen».
LABELS: dict[str, str] = {
    "send_choice": N_("Send choice"),
    "sabotage": N_("Sabotage the equipment"),
    "trap": N_("Set the trap"),
    "send_vote": N_("Send vote"),
    "nobody": N_("Nobody"),
    "no_partner": N_("no partner"),
}

# The texts of every round that have a shorter SMS form (definition.py).
ROUND_OF = N_("Round {round} of {rounds}: {mission}.")
SITS_OUT = N_("{name} is voted out and sits out the next round.")
YOU_SIT_OUT = N_("You sit out the next round: no actions, no vote, no private information.")
CARD_GUARDS = "Your card: plan {plan} needs {n} guard."  # nmsg's singular (flow.py)
TRAP_CARD = N_("Trap card: {victim}. Be partners on the winning plan, you on guard, they on {job}.")
INFILTRATOR_CARD = N_(
    "You are an INFILTRATOR ({profession}). The infiltrators are: {names}. "
    "Goal: damage the station without being caught."
)
