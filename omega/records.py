"""A fast `dataclasses.replace` for the core's frozen, slotted records (the ledger is copied per packet)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from types import MemberDescriptorType
from typing import Any, TypeVar

T = TypeVar("T")

Copier = Callable[[Any, dict[str, Any]], Any]
_COPIERS: dict[type, tuple[Copier, Copier]] = {}  # per record class: (copy, fill)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the frozen dataclass `obj` with `changes` applied, without re-running `__init__`.

    The standard `dataclasses.replace` re-validates every field through `__init__` and costs about 4 µs on
    the ledger, several times per packet. The records it serves have no `__post_init__` and no init-only
    fields, so copying slots is equivalent; a misspelt field still fails (slotted classes have no __dict__).
    """
    return copy_with(obj, changes)


def copy_with(obj: T, changes: dict[str, Any]) -> T:
    """`replace(obj, **changes)` with the changes passed as a dict, not unpacked into keyword arguments."""
    new: T = _functions(type(obj))[0](obj, changes)
    return new


def finish(new: T, changes: dict[str, Any]) -> T:
    """Set `changes` on `new` in place and return it: the last step of building a record that the caller
    itself has just made with `copy_with` or `replace` and not yet shared, instead of copying it again
    (a ledger copy touches every object the ledger holds). Never for a record anyone else may hold: records
    are immutable once seen."""
    filled: T = _functions(type(new))[1](new, changes)
    return filled


def _functions(cls: type) -> tuple[Copier, Copier]:
    functions = _COPIERS.get(cls)
    if functions is None:
        functions = _COPIERS[cls] = _copier(cls)
    return functions


def _copier(cls: type) -> tuple[Copier, Copier]:
    """Straight-line code copying every field of `cls`, then applying the changes; and the second half alone.

    Each field is written through its slot's own descriptor (`cls.<name>.__set__`), bound once here: that
    skips the attribute lookup of `object.__setattr__` and the loop, and halves the cost of a ledger copy
    (21 fields). The frozen `__setattr__` is bypassed exactly as `object.__setattr__` bypassed it before.
    """
    names = tuple(f.name for f in fields(cls))
    setters = {name: _setter(cls, name) for name in names}
    apply = [
        "    for name, value in changes.items():",
        "        set_field = setters.get(name)",
        "        if set_field is None:",
        "            raise TypeError(f'{cls.__name__} has no field {name!r}')",
        "        set_field(new, value)",
        "    return new",
    ]
    lines = ["def copy(obj, changes):", "    new = _new(cls)"]
    lines += [f"    _set_{name}(new, obj.{name})" for name in names]
    lines += [*apply, "", "def fill(new, changes):", *apply]
    namespace: dict[str, Any] = {"_new": object.__new__, "cls": cls, "setters": setters,
                                 **{f"_set_{name}": setter for name, setter in setters.items()}}
    # The source is built here from the dataclass's own field names (identifiers), never from input.
    exec("\n".join(lines), namespace)  # noqa: S102
    return namespace["copy"], namespace["fill"]


def constructor(cls: Callable[..., T]) -> Callable[..., T]:
    """A positional constructor for the frozen dataclass `cls`, for records built on every packet: it takes
    every init field, in declaration order and with no defaults, and sets each through its slot descriptor
    rather than `object.__setattr__` (what a frozen `__init__` does, at about twice the cost). Fields with
    `init=False` get their default. Only for classes without `__post_init__`, which it would skip."""
    if not isinstance(cls, type) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls!r}: not a dataclass without __post_init__")
    given = [f.name for f in fields(cls) if f.init]
    preset = {f.name: f.default for f in fields(cls) if not f.init}
    if MISSING in preset.values():
        raise TypeError(f"{cls.__name__}: a non-init field without a plain default")
    setters = {f.name: _setter(cls, f.name) for f in fields(cls)}
    lines = [f"def build({', '.join(given)}):", "    new = _new(cls)"]
    lines += [f"    _set_{name}(new, {name})" for name in given]
    lines += [f"    _set_{name}(new, _default_{name})" for name in preset]
    lines.append("    return new")
    namespace: dict[str, Any] = {"_new": object.__new__, "cls": cls,
                                 **{f"_set_{name}": setter for name, setter in setters.items()},
                                 **{f"_default_{name}": value for name, value in preset.items()}}
    # The source is built here from the dataclass's own field names (identifiers), never from input.
    exec("\n".join(lines), namespace)  # noqa: S102
    build: Callable[..., T] = namespace["build"]
    return build


def _setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """The fastest way to set field `name` on a new `cls`: its slot's descriptor, else `object.__setattr__`
    (a record without slots; none in the core today)."""
    slot = cls.__dict__.get(name)
    if isinstance(slot, MemberDescriptorType):
        setter: Callable[[Any, Any], None] = slot.__set__
        return setter
    return lambda obj, value: object.__setattr__(obj, name, value)
