"""JSON Schemas reduced to comparable shapes, and hypothesis strategies generating JSON data from a shape.

A shape keeps what constrains a JSON document and drops what does not (titles, descriptions, examples,
defaults): object (properties, required, closed, minProperties), string (enum, pattern, minLength, format),
integer / number (bounds), boolean, array (items, min/max items), union (oneOf / anyOf: the kit's unions are
of distinct JSON types, so the two keywords accept the same documents) and "any JSON value". Two readings,
shared by both sides: a `const` is a one-value enum, and on an optional property null means absent (the
validator judges a null optional field as missing; the kit never writes one), so a null branch there is dropped.

Sources: the published JSON Schemas, pydantic's JSON Schema of the kit's models (`$defs` resolved; the kit's
`Json` alias, a JSON value without null, is "any"), and the test-side transcription of
docs/omen-extra-packets.md (`tests.omen_spec`), whose suggested vocabularies and id prefixes the kit enforces.
"""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from tests import omen_spec as spec

Shape = tuple[Any, ...]
ANY: Shape = ("any",)
NULL: Shape = ("null",)
_IGNORED = {"title", "description", "examples", "default", "$schema", "$id"}


# --------------------------------------------------------------------------- JSON Schema -> shape
def shape(node: dict[str, Any], defs: dict[str, Any] | None = None, *, optional: bool = False) -> Shape:
    """The shape of JSON Schema `node`; `defs` resolves pydantic's `#/$defs/...` refs."""
    defs = defs or {}
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name == "Json":
            return ANY
        return shape(defs[name], defs, optional=optional)
    node = {k: v for k, v in node.items() if k not in _IGNORED}
    branches = node.get("oneOf") or node.get("anyOf")
    if branches is not None:
        return _union([shape(b, defs) for b in branches], optional)
    kind = node.get("type")
    if isinstance(kind, list):
        return _union([shape({**node, "type": k}, defs) for k in kind], optional)
    if not node:  # no keyword left: any JSON value
        return ANY
    if "const" in node:
        return ("string", frozenset([node["const"]]), None, None, None)
    if kind == "string":
        enum = frozenset(node["enum"]) if "enum" in node else None
        return ("string", enum, node.get("pattern"), node.get("minLength"), node.get("format"))
    if kind in ("integer", "number"):
        return (kind, node.get("minimum"), node.get("maximum"))
    if kind in ("boolean", "null"):
        return (kind,)
    if kind == "array":
        return ("array", shape(node["items"], defs), node.get("minItems"), node.get("maxItems"))
    if kind == "object":
        required = frozenset(node.get("required", ()))
        props = tuple(sorted((name, shape(sub, defs, optional=name not in required))
                             for name, sub in node.get("properties", {}).items()))
        return ("object", props, required, node.get("additionalProperties") is False, node.get("minProperties"))
    raise ValueError(f"no shape for {node}")


def _union(branches: list[Shape], optional: bool) -> Shape:
    kept = [b for b in branches if not (optional and b == NULL)]
    if ANY in kept:  # "any" already admits null (a belief change's `prior_value`: "null if new")
        return ANY
    return kept[0] if len(kept) == 1 else ("union", frozenset(kept))


def model_shape(model: Any) -> Shape:
    """The shape of a pydantic model's JSON Schema (serialization mode: what its dumps look like)."""
    schema = model.model_json_schema(mode="serialization", by_alias=True)
    return shape(schema, schema.get("$defs", {}))


# --------------------------------------------------------------------------- tests.omen_spec -> shape
def spec_shape(node: Any, *, suggested: bool = True) -> Shape:
    """The shape of a test-side spec node; with `suggested`, a string's suggested values are its enum and an
    id-prefix hint (`gen="pkt_"`, ...) its pattern (the kit enforces the suggestions of the designed types)."""
    if isinstance(node, spec.S):
        enum = node.enum or (node.suggest if suggested else ())
        prefix = node.prefix or (node.gen if suggested and node.gen and node.gen.endswith("_") else None)
        pattern = f"^{prefix}[a-zA-Z0-9_-]+$" if prefix else None
        kind = ("string", frozenset(enum) if enum else None, pattern,
                None if enum or not node.min_length else node.min_length,
                "date-time" if node.gen == "date-time" else None)
        return _union([kind, NULL], optional=False) if node.nullable else kind
    if isinstance(node, spec.I | spec.N):
        return ("integer" if isinstance(node, spec.I) else "number", node.minimum, node.maximum)
    if isinstance(node, spec.B):
        return ("boolean",)
    if isinstance(node, spec.X):
        return ANY
    if isinstance(node, spec.A):
        return ("array", spec_shape(node.items, suggested=suggested), node.min_items or None, node.max_items)
    if isinstance(node, spec.U):
        return ("union", frozenset(spec_shape(o, suggested=suggested) for o in node.options))
    assert isinstance(node, spec.O), node
    required = frozenset(name for name, (_, req) in node.fields.items() if req)
    props = tuple(sorted((name, spec_shape(sub, suggested=suggested)) for name, (sub, _) in node.fields.items()))
    return ("object", props, required, node.closed, node.min_properties or None)


# --------------------------------------------------------------------------- shape -> hypothesis data
_OFFSETS = (UTC, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30)))
_KEYS = st.text(string.ascii_lowercase + "_", min_size=1, max_size=8)
JSON_VALUES = st.recursive(
    st.one_of(st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=8)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=6,
)
"""JSON values without null (the kit's `Json`)."""


def _timestamp(moment: datetime) -> str:
    """Seconds precision, `Z` for UTC: the form a dump writes back, so data and dump compare equal."""
    return moment.isoformat().replace("+00:00", "Z")


TIMESTAMPS = st.builds(_timestamp, st.datetimes(datetime(2020, 1, 1), datetime(2035, 1, 1),
                                                timezones=st.sampled_from(_OFFSETS)).map(
                                                    lambda m: m.replace(microsecond=0)))


def data_for(s: Shape, *, extras: bool = True) -> st.SearchStrategy[Any]:
    """JSON data the shape accepts, null never; open objects sometimes get an extra key."""
    kind = s[0]
    if kind == "any":
        return JSON_VALUES
    if kind == "union":
        return st.one_of([data_for(b, extras=extras) for b in sorted(s[1], key=repr) if b != NULL])
    if kind == "string":
        _, enum, pattern, min_length, fmt = s
        if enum:
            return st.sampled_from(sorted(enum))
        if pattern:
            return st.from_regex(pattern, fullmatch=True).filter(lambda t: t.isascii() and "\n" not in t)
        if fmt == "date-time":
            return TIMESTAMPS
        return st.text(min_size=min_length or 0, max_size=12)
    if kind == "integer":
        return st.integers(s[1] if s[1] is not None else -1000, s[2] if s[2] is not None else 10**6)
    if kind == "number":
        return st.floats(s[1], s[2], allow_nan=False, allow_infinity=False) | st.integers(
            int(s[1] or 0), int(s[2] if s[2] is not None else 1000))
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(data_for(s[1], extras=extras), min_size=s[2] or 0, max_size=s[3] or 3)
    return _object(s, extras)


def _object(s: Shape, extras: bool) -> st.SearchStrategy[dict[str, Any]]:
    _, props, required, closed, min_properties = s
    if not props:  # a free object
        return st.dictionaries(_KEYS, JSON_VALUES, min_size=min_properties or 0, max_size=3)
    fixed = {name: data_for(sub, extras=extras) for name, sub in props if name in required}
    optional = {name: data_for(sub, extras=extras) for name, sub in props if name not in required}
    built = st.fixed_dictionaries(fixed, optional=optional)
    if closed or not extras:
        return built
    extra = st.dictionaries(st.just("x_extra"), JSON_VALUES, max_size=1)
    return st.builds(lambda d, e: {**e, **d}, built, extra)


def required_paths(s: Shape, value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every required property present in `value` (JSON data of shape `s`)."""
    found: list[tuple[Any, ...]] = []
    if s[0] == "object" and isinstance(value, dict):
        _, props, required, _, _ = s
        for name, sub in props:
            if name in value:
                found += [(*path, name)] if name in required else []
                found += required_paths(sub, value[name], (*path, name))
    elif s[0] == "array" and isinstance(value, list):
        for i, item in enumerate(value):
            found += required_paths(s[1], item, (*path, i))
    return found
