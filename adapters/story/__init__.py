"""The game's story: after the end, a read-only page that replays the game
round by round with every secret revealed (issue #32, item 6).

`StoryPage(source).mount()` gives the `/story` routes; `source` is the TV
page's (adapters/tv/source.py), since the TV link's token opens the story.
"""

from __future__ import annotations

from adapters.story.app import StoryPage, create_app, story_of

__all__ = ["StoryPage", "create_app", "story_of"]
