"""Snapshot codec: a game state to JSON text and back, generically.

The stores save a snapshot of the state after every accepted input, so the
codec sits on the hot path and must work for every game module without the
module doing anything: Resistance and Traitors keep their own NamedTuples in
`Game.rules`, just as Station does.

The format is plain JSON: a NamedTuple becomes an object tagged with its class
(`{"@": "gameflow.core.state:Game", "id": ..., ...}`), a tuple becomes a list,
and str/int/float/bool/None stay as they are. Decoding turns every list back into
a tuple and every tagged object back into its class. Only NamedTuple classes
defined in modules under `gameflow.` may be named by a tag: a snapshot is data,
and data must never choose arbitrary code to import and call.

Field names are written out (rather than positions) so a snapshot saved before
a field with a default was added still loads.
"""

from __future__ import annotations

import importlib
import json
import math
from typing import Any, Final

from gameflow.core.state import Game

TAG: Final = "@"
_PREFIX: Final = "gameflow."

_tags: dict[type, str] = {}  # class -> tag
_classes: dict[str, type] = {}  # tag -> class


class CodecError(ValueError):
    """The text is not a snapshot this codec can restore."""


def _is_namedtuple(cls: type) -> bool:
    return issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def _tag_of(cls: type) -> str:
    tag = _tags.get(cls)
    if tag is None:
        if not cls.__module__.startswith(_PREFIX) or "<locals>" in cls.__qualname__:
            raise TypeError(f"{cls.__module__}.{cls.__qualname__} is not a gameflow state class")
        tag = f"{cls.__module__}:{cls.__qualname__}"
        _tags[cls] = tag
        _classes[tag] = cls
    return tag


def _class_of(tag: str) -> type:
    cls = _classes.get(tag)
    if cls is not None:
        return cls
    module, _, qualname = tag.partition(":")
    if not module.startswith(_PREFIX) or not qualname:
        raise CodecError(f"tag {tag!r} does not name a gameflow class")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise CodecError(f"tag {tag!r}: {exc}") from exc
    if not isinstance(obj, type) or not _is_namedtuple(obj) or obj.__module__ != module:
        raise CodecError(f"tag {tag!r} is not a NamedTuple of {module}")
    _classes[tag] = obj
    _tags[obj] = tag
    return obj


_PLAIN: Final = (str, int, bool, type(None))
_shapes: dict[type, tuple[str, tuple[str, ...]]] = {}  # class -> (tag, field names)


def to_data(value: Any) -> Any:
    """The JSON-ready form of a state value (NamedTuples tagged, tuples as lists)."""
    cls = type(value)
    if cls in _PLAIN:
        return value
    if cls is tuple:
        return [to_data(v) for v in value]
    shape = _shapes.get(cls)
    if shape is not None:
        out = dict(zip(shape[1], [to_data(v) for v in value], strict=True))
        out[TAG] = shape[0]
        return out
    if cls is float:
        if not math.isfinite(value):
            raise TypeError(f"cannot store the float {value!r}")
        return value
    if isinstance(value, tuple) and _is_namedtuple(cls):
        _shapes[cls] = (_tag_of(cls), cls._fields)
        return to_data(value)
    raise TypeError(f"cannot store a {cls.__qualname__} in a snapshot: {value!r}")


def _hook(obj: dict[str, Any]) -> Any:
    tag = obj.pop(TAG, None)
    if not isinstance(tag, str):
        raise CodecError("an object in a snapshot must carry a class tag")
    cls = _class_of(tag)
    for name, v in obj.items():
        if type(v) is list:
            obj[name] = _tuples(v)
    try:
        return cls(**obj)
    except TypeError as exc:
        raise CodecError(f"{tag}: {exc}") from exc


def _tuples(items: list[Any]) -> tuple[Any, ...]:
    return tuple(_tuples(v) if type(v) is list else v for v in items)


def from_data(data: Any) -> Any:
    """Inverse of `to_data` for already-parsed JSON (objects must still be dicts)."""
    if type(data) is list:
        return tuple(from_data(v) for v in data)
    if type(data) is dict:
        return _hook({k: from_data(v) for k, v in data.items()})
    return data


def dumps(value: Any) -> str:
    """Compact JSON text for a state value."""
    return json.dumps(to_data(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def loads(text: str | bytes) -> Any:
    """Restore a value written by `dumps`."""
    try:
        data = json.loads(text, object_hook=_hook)
    except json.JSONDecodeError as exc:
        raise CodecError(f"not JSON: {exc}") from exc
    return _tuples(data) if type(data) is list else data


def encode_game(game: Game) -> str:
    return dumps(game)


def decode_game(text: str | bytes) -> Game:
    game = loads(text)
    if not isinstance(game, Game):
        raise CodecError("the snapshot is not a Game")
    return game


__all__ = ["CodecError", "decode_game", "dumps", "encode_game", "from_data", "loads", "to_data"]
