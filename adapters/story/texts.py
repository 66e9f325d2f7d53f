"""Every text the story page shows, as English gettext msgids (domain `story`).

Templates name texts by key (`t("step_of", n=2, total=9)`); the game's own
lines come as the core's `Msg`s from its definition's `story`, translated in
the game's domain. Babel extracts these msgids into
`gameflow/i18n/locales/<lang>/LC_MESSAGES/story.po`.
"""

from __future__ import annotations

from gameflow.core.text import N_

TEXTS: dict[str, str] = {
    # TRANSLATORS: the page's title; {game} is the game's name ("Station").
    "page_title": N_("{game}: the story"),
    "link_gone": N_(
        "There is no story at this link. A game's story opens once the game has "
        "ended, from its TV link."
    ),
    "cast": N_("Who was who"),
    "secret": N_("In secret"),
    "public": N_("At the table"),
    "nothing_secret": N_("Nothing was done in secret."),
    "the_end": N_("The end"),
    "fair_deal": N_("Fair deal: seed {seed}"),
    "previous": N_("Previous"),
    "next": N_("Next"),
    "play": N_("Autoplay"),
    "pause": N_("Pause"),
    # TRANSLATORS: where the page is in the story: "3 of 9".
    "step_of": N_("{n} of {total}"),
    "keys": N_("Arrow keys step through the story, space plays it."),
    # The TV's end screen names the story's link by this msgid
    # (adapters/tv/templates/screen.html), beside its QR code.
    "tv_link": N_("The game's story"),
}
