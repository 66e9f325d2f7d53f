"""A made-up game's TV screen (tests/test_tv_new_game.py): a template and its
styles in the game's own package, as gameflow/games/GAME holds them."""
