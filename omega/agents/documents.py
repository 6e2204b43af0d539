"""Agent output text to JSON documents, safely: what an LLM agent emits, before any §2.1 validation.

Rules (each a defence against real agent output or hostile text):
- JSON is tried first (text starting with `{` or `[`), for speed and exact integers; anything else is YAML.
- YAML is read from the safe loader's event stream (libyaml's `CSafeLoader` when present, else `SafeLoader`)
  and built here under the YAML 1.2 core schema, so values are always JSON: only true/false are booleans
  (`yes`, `no`, `on`, `off` stay strings), timestamps stay the producer's text, no sexagesimal or `0`-octal
  numbers, no merge keys, and mapping keys are their scalar text.
- Each `---` document is one document. Duplicate keys, non-scalar keys, `.inf`/`.nan`, tags beyond the core
  ones (`!!set`, `!!binary`, `!!omap`, custom tags) and aliases are refused with a reason. Refusing every
  alias (anchors alone are harmless) closes billion-laughs expansion without counting nodes.
- Nesting deeper than `MAX_DEPTH` containers and text longer than `MAX_TEXT_CHARS` are refused; nesting too
  deep ends reading like a syntax error. A document reports at most `MAX_ERRORS` reasons.
- A text that is exactly one Markdown code fence is read inside the fence (line numbers kept).
- A YAML syntax error ends reading: documents completed before it are kept, and the rest of the text from the
  broken document on is one document whose error names the line and column.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

from omega import strictjson

MAX_TEXT_CHARS = 1_000_000
MAX_DEPTH = 64
MAX_ERRORS = 20

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FENCE = re.compile(r"\A\s*```[\w+.-]*[ \t]*\r?\n(?P<body>.*?)(?:\r?\n)?[ \t]*```\s*\Z", re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")

_CORE = "tag:yaml.org,2002:"
_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?(?:[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_SPECIAL_FLOAT = re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")


@dataclass(frozen=True, slots=True)
class Document:
    """One document of an agent's text: its JSON value, or the reasons it could not be read.

    `raw` is the document's own source text (inside the fence for fenced input); `value` is None when
    `errors` is not empty, and also for an empty document.
    """

    index: int
    raw: str
    line: int
    value: Any = None
    errors: tuple[str, ...] = ()


class _Refused(Exception):
    """A JSON value the reader refuses (a duplicate key)."""


def read_documents(text: str) -> list[Document]:
    """Split and read agent output into documents; never raises (failures are documents with errors)."""
    if len(text) > MAX_TEXT_CHARS:
        return [Document(1, text, 1, errors=(f"input is {len(text)} characters, over the limit of {MAX_TEXT_CHARS}",))]
    bad = _SURROGATE.search(text)
    if bad is not None:
        reason = f"input is not valid Unicode: lone surrogate at character {bad.start()}"
        return [Document(1, text, 1, errors=(reason,))]
    fence = _FENCE.match(text)
    if fence is not None:
        # Blank lines in place of the opening fence keep YAML's line numbers those of the agent's text.
        text = "\n" * text.count("\n", 0, fence.start("body")) + fence.group("body")
    if text.lstrip()[:1] in ("{", "["):
        from_json = _json_document(text, fence.group("body") if fence is not None else text)
        if from_json is not None:
            return [from_json]
    return _yaml_documents(text)


# ------------------------------------------------------------------------------------------------ JSON
def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {key!r}")
        out[key] = value
    return out


def _json_document(text: str, raw: str) -> Document | None:
    """The text read as one JSON document, or None when it is not JSON (then it is read as YAML)."""
    try:
        value = strictjson.loads(text, object_pairs_hook=_pairs)
    except json.JSONDecodeError:
        return None
    except _Refused as exc:
        return Document(1, raw, 1, errors=(f"JSON: {exc}",))
    except strictjson.NonFiniteConstant as exc:  # worded as the YAML reader words `.nan` and `.inf`
        return Document(1, raw, 1, errors=(f"JSON: {exc.constant} is not a JSON number",))
    except RecursionError:
        return Document(1, raw, 1, errors=(f"JSON: nesting deeper than {MAX_DEPTH} levels",))
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        return Document(1, raw, 1, errors=(f"JSON: {exc}",))
    errors = _check_json(value)
    return Document(1, raw, 1, None if errors else value, _capped(errors))


def _check_json(value: Any) -> list[str]:
    """Depth, finite floats and valid Unicode of a decoded JSON value (the decoder admits all three)."""
    errors: list[str] = []
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= MAX_DEPTH:
                return [f"JSON: nesting deeper than {MAX_DEPTH} levels"]
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in items:
                if isinstance(key, str) and _SURROGATE.search(key):
                    errors.append(f"JSON: key {key!r} is not valid Unicode (lone surrogate)")
                stack.append((child, depth + 1))
        elif isinstance(node, float) and not math.isfinite(node):
            errors.append(f"JSON: number {node} is out of range")
        elif isinstance(node, str) and _SURROGATE.search(node):
            errors.append(f"JSON: string {node[:40]!r} is not valid Unicode (lone surrogate)")
    return errors


# ------------------------------------------------------------------------------------------------ YAML
class _Map:
    """A mapping under construction: the dict, and the key waiting for its value (None drops the value)."""

    __slots__ = ("items", "key", "want_key")

    def __init__(self) -> None:
        self.items: dict[str, Any] = {}
        self.key: str | None = None
        self.want_key = True


class _Builder:
    """Builds one document's JSON value from parser events, collecting every structural refusal."""

    def __init__(self, start: Any) -> None:
        """`start` is the document's start mark (its `index` and `line` place the document's text)."""
        self.start = start
        self.stack: list[_Map | list[Any]] = []
        self.root: Any = None
        self.errors: list[str] = []
        self.too_deep = False

    def feed(self, event: Any) -> None:
        """Add one parser event (inside the document) to the value under construction."""
        line = event.start_mark.line + 1
        if isinstance(event, yaml.ScalarEvent):
            self._attach(self._scalar(event, line), event.value, line)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            if len(self.stack) >= MAX_DEPTH:
                self.errors.append(f"line {line}: nesting deeper than {MAX_DEPTH} levels")
                self.too_deep = True
                return
            is_map = isinstance(event, yaml.MappingStartEvent)
            if event.tag not in (None, "!", _CORE + ("map" if is_map else "seq")):
                self.errors.append(f"line {line}: tag {_short(event.tag)} is not supported (JSON values only)")
            frame: _Map | list[Any] = _Map() if is_map else []
            self._attach(frame.items if isinstance(frame, _Map) else frame, None, line)
            self.stack.append(frame)
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            self.stack.pop()
        elif isinstance(event, yaml.AliasEvent):
            self.errors.append(f"line {line}: alias *{event.anchor} refused (anchors and aliases are not accepted)")
            self._attach(None, f"*{event.anchor}", line)

    def _attach(self, value: Any, key_text: str | None, line: int) -> None:
        """Place a finished scalar or a just-opened container in its parent."""
        if not self.stack:
            self.root = value
            return
        parent = self.stack[-1]
        if isinstance(parent, list):
            parent.append(value)
            return
        if parent.want_key:
            parent.want_key = False
            parent.key = key_text
            if key_text is None:
                self.errors.append(f"line {line}: a mapping key must be a scalar")
            elif key_text in parent.items:
                self.errors.append(f"line {line}: duplicate key {key_text!r}")
                parent.key = None
            return
        parent.want_key = True
        if parent.key is not None:
            parent.items[parent.key] = value

    def _scalar(self, event: Any, line: int) -> Any:
        text: str = event.value
        tag = event.tag
        if tag is None and event.implicit[0]:
            return self._core(text, line)
        if tag is None or tag in ("!", _CORE + "str"):
            return text
        kind = tag[len(_CORE):] if tag.startswith(_CORE) else ""
        if kind not in ("null", "bool", "int", "float"):
            self.errors.append(f"line {line}: tag {_short(tag)} is not supported (JSON values only)")
            return None
        known = len(self.errors)
        value = self._core(text, line)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        fits = {"null": value is None, "bool": isinstance(value, bool), "int": number and isinstance(value, int),
                "float": number}[kind]
        if not fits:
            if len(self.errors) == known:
                self.errors.append(f"line {line}: {text!r} is not a valid {_short(tag)}")
            return None
        return float(value) if kind == "float" else value

    def _core(self, text: str, line: int) -> Any:
        """A plain scalar under the YAML 1.2 core schema."""
        if _NULL.match(text):
            return None
        if text in _BOOL:
            return _BOOL[text]
        try:
            if _INT.match(text):
                digits = text.lstrip("+-")
                value = int(digits[2:], 8 if digits[1:2] == "o" else 16) if digits[1:2] in ("o", "x") else int(digits)
                return -value if text.startswith("-") else value
            if _FLOAT.match(text):
                number = float(text)
                if math.isfinite(number):
                    return number
                self.errors.append(f"line {line}: number {text} is out of range")
                return None
        except ValueError as exc:  # an integer past Python's digit limit
            self.errors.append(f"line {line}: {exc}")
            return None
        if _SPECIAL_FLOAT.match(text):
            self.errors.append(f"line {line}: {text} is not a JSON number")
            return None
        return text


def _index(mark: Any, default: int) -> int:
    return int(mark.index) if mark is not None else default


def _capped(errors: list[str]) -> tuple[str, ...]:
    """At most `MAX_ERRORS` reasons (an alias-heavy text could otherwise carry one per alias)."""
    if len(errors) <= MAX_ERRORS:
        return tuple(errors)
    return (*errors[:MAX_ERRORS], f"... and {len(errors) - MAX_ERRORS} more")


def _short(tag: str | None) -> str:
    return "!!" + tag[len(_CORE):] if tag and tag.startswith(_CORE) else str(tag)


def _yaml_documents(text: str) -> list[Document]:
    docs: list[Document] = []
    builder: _Builder | None = None
    resume = 0  # where the text not yet covered by a finished document starts
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.DocumentStartEvent):
                builder = _Builder(event.start_mark)
            elif isinstance(event, yaml.DocumentEndEvent) and builder is not None:
                start, end = builder.start.index, _index(event.end_mark, len(text))
                errors = _capped(builder.errors)
                value = None if errors else builder.root
                docs.append(Document(len(docs) + 1, text[start:end], builder.start.line + 1, value, errors))
                builder, resume = None, end
            elif builder is not None:
                builder.feed(event)
                if builder.too_deep:
                    # Stop here: libyaml's scan costs O(tokens x flow depth), so a deep bracket bomb would
                    # otherwise take minutes. The rest of the text belongs to this broken document.
                    start = builder.start.index
                    docs.append(Document(len(docs) + 1, text[start:], builder.start.line + 1,
                                         errors=tuple(builder.errors)))
                    return docs
    except yaml.YAMLError as exc:
        start = builder.start.index if builder is not None else resume
        line = text.count("\n", 0, start) + 1
        docs.append(Document(len(docs) + 1, text[start:], line, errors=(_syntax_reason(exc, text),)))
    return docs


def _syntax_reason(exc: yaml.YAMLError, text: str) -> str:
    """A readable YAML error naming line and column (1-based)."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        if "maximum nesting depth" in (exc.problem or ""):
            # the libyaml that PyYAML 6.0.4 bundles (0.2.6) stops at its own depth limit (1,000) while scanning
            # ahead, before our builder sees the events: the same refusal, so the same reason
            return f"line {mark.line + 1}: nesting deeper than {MAX_DEPTH} levels"
        where = f"line {mark.line + 1}, column {mark.column + 1}"
        context = f" ({exc.context})" if exc.context else ""
        return f"YAML syntax error at {where}: {exc.problem}{context}"
    if isinstance(exc, yaml.reader.ReaderError):
        position = min(max(int(exc.position), 0), len(text))
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        what = f"character #x{exc.character:04x}" if isinstance(exc.character, int) else "character"
        return f"YAML syntax error at line {line}, column {column}: unacceptable {what} ({exc.reason})"
    return f"YAML syntax error: {exc}"
