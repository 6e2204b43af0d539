"""One canonical form for versions, so that two spellings of one version are one version.

Why: DS005 §4.4 rule 1 lets a fact take part in a versioned query only when `qualifiers.version === version`,
and `version` is a free string everywhere it enters (§4.1 `qualifiers.version`, §4.4 "often copied from document
metadata", §5.1 `version?: string`; the §6.3 example writes `v2.0`). Real documents and questions spell one
version `v2.0`, `V2.0`, `version 2.0` or `2.0`, and a byte comparison refused valid questions. What the spec makes
normative is the equality, not a spelling, so every place where two versions meet compares `canonical_version`
of both, and nothing else does: the fact's `qualifiers.version`, the document metadata, a given plan, the
planner's output, store queries and version patterns, the conflict filter and the conflict reasons, and the
question-versus-plan check of the stream. The producer's spelling is never overwritten: facts, chunks, documents
and given plans keep it (for display and audit, and so fact and chunk ids stay what they were); the canonical
form is recomputed from it, and messages show both when they differ (`shown_version`).

The canonical form (tolerant on surface wording only): trim; lowercase; strip one leading `version` when a dot,
spaces or a digit follow it and something is left; then strip one leading `v` (optionally followed by a dot
or spaces) when a digit follows. Nothing else changes: no numeric reading (`2` and `2.0` stay different, and
`2.0` is not `2.00`: a version is a string, §4.4), `vista` and `versioning` keep their letters, inner text and
suffixes (`2.0-beta`) are kept as written.
"""

from __future__ import annotations

import re

_PREFIX = re.compile(r"(?:version(?:\.\s*|\s+|(?=\d))(?=\S))?(?:v(?:\.\s*|\s+)?(?=\d))?")


def canonical_version(raw: str) -> str:
    """`" V2.0 "`, `"v2.0"`, `"version 2.0"`, `"Version.2.0"`, `"2.0"` -> `"2.0"`; `"2"` stays `"2"`."""
    text = raw.strip().lower()
    prefix = _PREFIX.match(text)
    return text if prefix is None else text[prefix.end():]


def version_key(raw: str | None) -> str | None:
    """The canonical form of an optional version; None (no version stated) stays None."""
    return None if raw is None else canonical_version(raw)


def same_version(left: str | None, right: str | None) -> bool:
    """Whether two optional versions are one version (both absent counts as the same)."""
    return version_key(left) == version_key(right)


def shown_version(raw: str | None) -> str:
    """A version for messages: the canonical form, and the spelling as written when that differs."""
    if raw is None:
        return "none"
    canonical = canonical_version(raw)
    return canonical if canonical == raw else f"{canonical} (written {raw!r})"
