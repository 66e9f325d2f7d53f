"""What a Telegram question says: titles, field headings and button labels.

Every word a player reads on a prompt, a keyboard or a choice editor comes from
here, translated: a kind's title ("The silver relay"), a field's heading in the
game it belongs to (Station's vote says what it is for; Resistance's "Give it
to:" names the card being given), and an option's label (players by name, plot
and mission cards by their translated names, yes/no as words). A value the
tables don't know is never shown as its raw id: it falls back to a generic
word. The game's own context lines for a question (`Rules.ask`) come first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import render

# A kind's name on its button, and in "✓ ..." once sent.
KIND_LABELS: dict[str, str] = {
    "choose": N_("Send choice"),
    "propose": N_("Propose a team"),
    "give": N_("Give a card"),
    "death_list": N_("Write the death list"),
    "vote": N_("Send vote"),
    "pass": N_("Pass"),
    "plea": N_("Make my plea"),
    "murder": N_("Murder"),
    "tempt": N_("Tempt"),
    "force": N_("Force"),
    "answer": N_("Answer"),
    "end_vote": N_("End vote"),
    "mission": N_("Mission"),
    "play": N_("Play a card"),
    "score": N_("Score the mission"),
    "murder_free": N_("Murder without a vote"),
    "forbid_murder": N_("Forbid the murder"),
    "death_list_on": N_("Play the death list"),
    "play_death_list": N_("Play the death list"),
    "recruit": N_("Recruitment"),
    "dagger": N_("The dagger"),
    "final": N_("Call the final"),
    "call_final": N_("Call the final"),
    "leave": N_("Leave the game"),
}

# The button that sends a filled-in editor, by (game, kind); else the kind's label.
SEND_LABELS: dict[tuple[str, str], str] = {
    ("traitors", "mission"): N_("Hand over the bag"),
    ("traitors", "tempt"): N_("Send the letter"),
    ("traitors", "force"): N_("Force this player"),
    ("resistance", "play"): N_("Play the card"),
}

# A question's title, by (game, kind): what the whole message is about.
TITLES: dict[tuple[str, str], str] = {
    ("traitors", "mission"): N_("The silver relay: hand your bag of silver to another player."),
    ("traitors", "vote"): N_("Round table: vote to banish a player."),
    ("traitors", "plea"): N_("You are tied: the table hears your plea before the re-vote."),
    ("traitors", "murder"): N_("Night: choose whom the traitors murder."),
    ("traitors", "tempt"): N_("Night: tempt a loyal player to join the traitors."),
    ("traitors", "force"): N_("Night: force a loyal player to join you."),
    ("traitors", "death_list"): N_("Night: write the death list."),
    ("traitors", "answer"): N_("The traitors want you on their side."),
    ("traitors", "end_vote"): N_("The final: do you trust everyone left?"),
    ("resistance", "propose"): N_("You lead: pick the team for the mission."),
    ("resistance", "give"): N_("You lead: give a plot card to another player."),
    ("resistance", "vote"): N_("Vote on the proposed team."),
    ("resistance", "mission"): N_("You are on the mission: choose your card."),
    ("resistance", "play"): N_("You may play a plot card now."),
    ("resistance", "pass"): N_("You may play a plot card now."),
    ("station", "vote"): N_("Vote: who sits out the next round?"),
}
CHEST_TITLE = N_("Three chests: open one.")
ROUND_CHOICE = N_("Round {round}: make your choice.")

# A field's heading in a given game and kind; then by field alone.
HEADINGS: dict[tuple[str, str, str], str] = {
    ("traitors", "mission", "to"): N_("Hand your bag to:"),
    ("traitors", "mission", "drop"): N_("Drop the bag instead? (costs the pot 10 silver)"),
    ("traitors", "mission", "chest"): N_("Choose a chest:"),
    ("traitors", "vote", "for"): N_("Banish:"),
    ("traitors", "vote", "dagger"): N_("Lay down the dagger? (this vote counts twice)"),
    ("traitors", "murder", "target"): N_("Murder:"),
    ("traitors", "tempt", "target"): N_("Tempt:"),
    ("traitors", "force", "target"): N_("Force:"),
    ("traitors", "answer", "accept"): N_("Do you accept?"),
    ("traitors", "end_vote", "end"): N_("End the game now? Yes: you believe no traitor is left."),
    ("station", "vote", "for"): N_("Vote a player out of the next round:"),
    ("resistance", "give", "card"): N_("Choose the card to give:"),
    ("resistance", "mission", "card"): N_("Your mission card:"),
}
FIELD_HEADINGS: dict[str, str] = {
    "plan": N_("Choose a plan:"),
    "job": N_("Choose your job:"),
    "partner": N_("Choose your partner:"),
    "secret": N_("Secret action:"),
    "for": N_("Your vote:"),
    "target": N_("Choose a target:"),
    "card": N_("Choose a card:"),
    "to": N_("Give it to:"),
    "approve": N_("Approve the team?"),
    "accept": N_("Do you accept?"),
    "end": N_("End the game now?"),
    "chest": N_("Choose a chest:"),
    "drop": N_("Drop the bag?"),
    "team": N_("Pick the team, then tap Done:"),
    "names": N_("Pick the names, then tap Done:"),
    "access": N_("Who gets access? Pick, then tap Done:"),
    "allow": N_("Allow recruitment?"),
    "on": N_("Put the dagger in play?"),
}
GIVE_TO = N_("Give {card} to:")
PLAY_ON = N_("Play {card} on:")
ANY_FIELD = N_("Choose:")

NONE_LABELS: dict[str, str] = {
    "partner": N_("no partner"),
    "secret": N_("No secret action"),
    "for": N_("Nobody"),
    "target": N_("Nobody"),
}

WORDS: dict[str, str] = {
    "outside": N_("outside"),
    "radio": N_("radio"),
    "guard": N_("guard"),
    "sabotage": N_("Sabotage the equipment"),
    "trap": N_("Set the trap"),
}
CHEST = N_("Chest {n}")
PLAY_CARD = N_("Play: {card}")
UNKNOWN_VALUE = N_("this option")

YES, NO = N_("Yes"), N_("No")
NOTHING = N_("None")


def kind_label(kind: str, lang: str) -> str:
    return render(KIND_LABELS.get(kind, N_("Answer")), lang)


def send_label(game: Game, kind: str, lang: str) -> str:
    """The button that sends an editor's choices."""
    if game.kind == "station" and kind == "choose":
        from gameflow.games.station.texts import LABELS

        return render(LABELS["send_choice"], lang)
    text = SEND_LABELS.get((game.kind, kind))
    return render(text, lang) if text else kind_label(kind, lang)


def title(game: Game, spec: ActionSpec, lang: str) -> str:
    """What the question of `spec` is about, in one line."""
    if game.kind == "traitors" and spec.kind == "mission" and spec.field("chest") is not None:
        return render(CHEST_TITLE, lang)
    if game.kind == "station" and spec.kind == "choose":
        return render(msg(ROUND_CHOICE, round=game.phase.round), lang)
    text = TITLES.get((game.kind, spec.kind))
    return render(text, lang) if text else kind_label(spec.kind, lang)


def heading(
    game: Game, spec: ActionSpec | None, f: Field, lang: str, values: Mapping[str, Any] = {}
) -> str:
    """The heading above a field's buttons. `values` are the fields already
    chosen in the draft (so "Give it to:" can name the card)."""
    kind = spec.kind if spec is not None else ""
    named = {("give", "to"): GIVE_TO, ("play", "target"): PLAY_ON}.get((kind, f.name))
    if game.kind == "resistance" and named is not None:
        card = values.get("card")
        if card is None and spec is not None and len(spec.options("card")) == 1:
            card = spec.options("card")[0]
        if card is not None:
            return render(msg(named, card=value_label(game, "card", card, lang)), lang)
    text = HEADINGS.get((game.kind, kind, f.name)) or FIELD_HEADINGS.get(f.name, ANY_FIELD)
    return render(text, lang)


def field_heading(name: str, lang: str) -> str:
    """A field's generic heading (no game or kind known)."""
    return render(FIELD_HEADINGS.get(name, ANY_FIELD), lang)


def card_label(game: Game, card: str, lang: str) -> str | None:
    """A Resistance plot card or mission card by its translated name."""
    if game.kind != "resistance":
        return None
    from gameflow.games.resistance.cards import CARDS
    from gameflow.games.resistance.texts import CARD_TEXT

    if card in CARDS:
        return render(CARDS[card].name, lang)
    if card in CARD_TEXT:
        return render(CARD_TEXT[card], lang)
    return None


def value_label(game: Game, field: str, value: Value, lang: str) -> str:
    """How an option reads on a button: players by name, cards and words
    translated, yes/no as words; never a raw id."""
    if value is None:
        return render(NONE_LABELS.get(field, NOTHING), lang)
    if isinstance(value, bool):
        return render(YES if value else NO, lang)
    if isinstance(value, int):
        return render(msg(CHEST, n=value), lang) if field == "chest" else str(value)
    if game.seat(value) >= 0:
        return game.name_of(value)
    if value == game.host:
        return render(N_("the game master"), lang)
    card = card_label(game, value, lang)
    if card is not None:
        return card
    word = WORDS.get(value)
    return render(word if word else UNKNOWN_VALUE, lang)


def button_label(game: Game, spec: ActionSpec, lang: str) -> str:
    """The one button of a spec offered as a whole (no choice on the keyboard
    itself): its kind, and for a plot card the card's name."""
    if game.kind == "resistance" and spec.kind == "play":
        cards = spec.options("card")
        if cards and isinstance(cards[0], str):
            name = value_label(game, "card", cards[0], lang)
            return render(msg(PLAY_CARD, card=name), lang)
    label = kind_label(spec.kind, lang)
    fixed = [f for f in spec.fields if len(f.options) == 1 and not f.many and not f.free]
    if fixed and fixed[0].options[0] is not None and spec.kind != "mission":
        label = f"{label}: {value_label(game, fixed[0].name, fixed[0].options[0], lang)}"
    return label
