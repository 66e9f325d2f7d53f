"""The game-agnostic core: state, actions, phases, results, events, views."""
