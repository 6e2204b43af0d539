"""`omega check grounding FILE.json [--eval] [--format json|table] [--fail-on LEVEL]`: the grounded-generation
verifier over a file of facts and paragraphs, on the contract every `omega check` shares (`streams.cli.checking`).

Input: {"facts": [AtomicFact...], "paragraphs": [{"paragraph_id", "allowed_fact_ids" (optional: default all),
"version" (optional), "sentences": [{"order", "text", "expected_supported" (optional)}], "expected_verified"
(optional)}]}, citations inline in `text` as `[FACT_ID]`. A paragraph id may appear again with a higher version
(an edit, §7.2): it is judged against its earlier versions.

Output, one line each: per sentence {kind: "sentence", paragraph_id, version, order, verdict, failure_modes,
reasons, evidence_required, cited_fact_ids, source}, then per paragraph {kind: "paragraph", paragraph_id, version,
verified, display_text, source}, `source` being {file, paragraph}: the file and the paragraph's 1-based place in its
`paragraphs` array (the file is one JSON document; its reader knows no lines); with `--eval`, a last line
{kind: "metrics", metrics: {...}} (definitions in `omega.grounding.metrics`). The sentences are the judged items:
their verdict is the status, a FAIL is a rejection (a paragraph with no sentence, never verified, is judged FAIL
itself). On stderr `N sentences judged: ...` and the first rejections (`rejected paragraph P version V sentence N:
FAILURE_MODES`). Exit 0 when every paragraph is verified (and `--fail-on` is not crossed), 1 otherwise, 2 on bad or
empty input (nothing is judged then).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from omega.grounding.metrics import contract_metrics
from omega.grounding.model import FAIL
from omega.grounding.paragraph import ParagraphState, ParagraphVerdict, evolve
from omega.grounding.request import ParagraphRequest, RequestError, parse_facts, parse_request
from omega.strictjson import loads
from streams.cli.checking import Tally, check_options
from streams.cli.options import usage_error
from streams.cli.progress import with_progress
from streams.http.judge import OpenAICompatibleJudge


def read_requests(path: Path) -> list[ParagraphRequest]:
    """Parse the whole file first, so bad input judges nothing; raises RequestError or OSError."""
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RequestError(f"not a JSON file: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("paragraphs"), list):
        raise RequestError('expected an object {"facts": [...], "paragraphs": [...]}')
    facts = parse_facts(data.get("facts", []))
    requests = []
    for number, paragraph in enumerate(data["paragraphs"], start=1):
        try:
            requests.append(parse_request(paragraph, facts))
        except RequestError as exc:
            raise RequestError(f"paragraph {number}: {exc}") from exc
    return requests


def sentence_lines(verdict: ParagraphVerdict) -> list[dict[str, Any]]:
    """One line per sentence."""
    request = verdict.request
    return [{"kind": "sentence", "paragraph_id": request.paragraph_id, "version": request.version,
             "order": s.index, "verdict": s.outcome, "failure_modes": [f.code for f in s.failures],
             "reasons": [f.reason for f in s.failures], "evidence_required": [f.required_evidence for f in s.failures],
             "cited_fact_ids": list(s.cited_fact_ids)} for s in verdict.sentences]


def paragraph_line(verdict: ParagraphVerdict) -> dict[str, Any]:
    """One line per paragraph."""
    return {"kind": "paragraph", "paragraph_id": verdict.request.paragraph_id, "version": verdict.request.version,
            "verified": verdict.verified, "display_text": verdict.displayable}


@click.command("grounding")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--eval", "evaluate", is_flag=True, help="Also print the contract metrics against the expected labels.")
@check_options
def check_grounding(file: Path, evaluate: bool, output_format: str, fail_on: str) -> None:
    """Verify paragraphs sentence by sentence against their cited Atomic Facts; a summary on stderr; exit 1 if any
    is not verified (or `--fail-on` is crossed), 2 on bad or empty input.

    With OMEGA_JUDGE_URL set, an OpenAI-compatible semantic judge is asked about paraphrase-uncertain sentences."""
    try:
        requests = read_requests(file)
    except (RequestError, OSError) as exc:
        usage_error(f"{file}: {exc}")
    try:
        judge = OpenAICompatibleJudge.from_env()
    except ValueError as exc:  # OMEGA_JUDGE_TIMEOUT not a number
        usage_error(f"OMEGA_JUDGE_TIMEOUT must be a number of seconds: {exc}")
    states: dict[str, ParagraphState] = {}
    sentences: list[tuple[bool, bool | None]] = []
    verified: list[bool] = []
    tally = Tally(fail_on, output_format)
    for number, request in enumerate(with_progress(requests, len(requests), "verifying paragraphs"), start=1):
        states[request.paragraph_id], verdict = evolve(states.get(request.paragraph_id), request, judge)
        where = f"paragraph {request.paragraph_id} version {request.version}"
        # the file holds one JSON document: a paragraph is named by its 1-based place in `paragraphs`
        source = {"file": str(file), "paragraph": number}
        for line in sentence_lines(verdict):
            tally.line({**line, "source": source}, status=str(line["verdict"]),
                       rule=", ".join(dict.fromkeys(line["failure_modes"])), where=f"{where} sentence {line['order']}")
        # a paragraph with no sentence is not verified, and no sentence FAILs to say so: it is judged FAIL itself
        empty = FAIL if not verdict.sentences else None
        tally.line({**paragraph_line(verdict), "source": source}, status=empty, rule="no sentence to verify",
                   where=where)
        labels = request.expected_supported or (None,) * len(verdict.sentences)
        sentences += [(s.passed, label) for s, label in zip(verdict.sentences, labels, strict=True)]
        verified.append(verdict.verified)
    if evaluate and verified:
        tally.line({"kind": "metrics", "metrics": contract_metrics(sentences, verified).to_dict()})
    tally.finish("sentences")
