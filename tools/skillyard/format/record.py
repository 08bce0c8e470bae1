"""Plain value classes for what every command loads (findings, policies, checked skills, discovered skills, sources),
without `dataclasses`: that import (with `inspect`, `ast`, `dis`, `tokenize`) costs 7-15 ms, a sixth of a warm
command. A subclass lists its FIELDS and writes its own __init__; instances compare, print, pickle and turn into dicts
as dataclass instances did."""

from __future__ import annotations

_ATOMS = (str, int, float, bool, type(None))


def plain_copy(value: object) -> object:
    """What dataclasses.asdict makes of a field's value: dicts, lists and tuples rebuilt, anything else deep-copied
    (strings, numbers and None are their own copies)."""
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, dict):
        return type(value)((plain_copy(k), plain_copy(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(plain_copy(v) for v in value)
    import copy

    return copy.deepcopy(value)


class Record:
    """Equality by class and field values (so, like a dataclass, unhashable unless a subclass says otherwise)."""

    __slots__ = ()  # a subclass may declare its fields as slots; one that does not gets a __dict__ as usual
    FIELDS: tuple[str, ...] = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        return self._values() == other._values() if other.__class__ is self.__class__ else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.FIELDS) + ")"

    def to_dict(self) -> dict:
        """Every field, its value copied as dataclasses.asdict copies it."""
        return {name: plain_copy(getattr(self, name)) for name in self.FIELDS}


def _rebuilt(cls: type, values: tuple) -> Record:
    """A record from its field values, without its __init__ (which may take other arguments) or __setattr__."""
    record = cls.__new__(cls)
    for name, value in zip(cls.FIELDS, values, strict=True):
        object.__setattr__(record, name, value)
    return record


class FrozenRecord(Record):
    """A Record whose fields cannot change after __init__ (set them with object.__setattr__ there), so hashable."""

    __slots__ = ()

    def __reduce__(self) -> tuple:
        return _rebuilt, (type(self), self._values())  # pickle would otherwise set slots through __setattr__

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self._values())
