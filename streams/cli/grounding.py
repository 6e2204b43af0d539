"""`omega check grounding FILE.json [--eval]`: the grounded-generation verifier over a file of facts and paragraphs.

Input: {"facts": [AtomicFact...], "paragraphs": [{"paragraph_id", "allowed_fact_ids" (optional: default all),
"version" (optional), "sentences": [{"order", "text", "expected_supported" (optional)}], "expected_verified"
(optional)}]}, citations inline in `text` as `[FACT_ID]`. A paragraph id may appear again with a higher version
(an edit, §7.2): it is judged against its earlier versions.

Output, one JSON line each: per sentence {paragraph_id, version, order, verdict, failure_modes, reasons,
evidence_required, cited_fact_ids}, then per paragraph {paragraph_id, version, verified, display_text}; with
`--eval`, a last line {"metrics": {...}} (definitions in `omega.grounding.metrics`). Exit 0 when every
paragraph is verified, 1 otherwise, 2 on bad input (nothing is judged then).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from omega.canonical import canonical_json
from omega.grounding.metrics import contract_metrics
from omega.grounding.paragraph import ParagraphState, ParagraphVerdict, evolve
from omega.grounding.request import ParagraphRequest, RequestError, parse_facts, parse_request
from omega.strictjson import loads
from streams.cli.options import EXIT_FAILED, EXIT_OK, usage_error
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
    for number, paragraph in enumerate(data["paragraphs"]):
        try:
            requests.append(parse_request(paragraph, facts))
        except RequestError as exc:
            raise RequestError(f"paragraph {number}: {exc}") from exc
    return requests


def sentence_lines(verdict: ParagraphVerdict) -> list[dict[str, Any]]:
    """One line per sentence."""
    request = verdict.request
    return [{"paragraph_id": request.paragraph_id, "version": request.version, "order": s.index,
             "verdict": s.outcome, "failure_modes": [f.code for f in s.failures],
             "reasons": [f.reason for f in s.failures], "evidence_required": [f.required_evidence for f in s.failures],
             "cited_fact_ids": list(s.cited_fact_ids)} for s in verdict.sentences]


def paragraph_line(verdict: ParagraphVerdict) -> dict[str, Any]:
    """One line per paragraph."""
    return {"paragraph_id": verdict.request.paragraph_id, "version": verdict.request.version,
            "verified": verdict.verified, "display_text": verdict.displayable}


@click.command("grounding")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--eval", "evaluate", is_flag=True, help="Also print the contract metrics against the expected labels.")
def check_grounding(file: Path, evaluate: bool) -> None:
    """Verify paragraphs sentence by sentence against their cited Atomic Facts; exit 1 if any is not verified.

    With OMEGA_JUDGE_URL set, an OpenAI-compatible semantic judge is asked about paraphrase-uncertain sentences."""
    try:
        requests = read_requests(file)
    except (RequestError, OSError) as exc:
        usage_error(f"{file}: {exc}")
    judge = OpenAICompatibleJudge.from_env()
    states: dict[str, ParagraphState] = {}
    sentences: list[tuple[bool, bool | None]] = []
    verified: list[bool] = []
    for request in with_progress(requests, len(requests), "verifying paragraphs"):
        states[request.paragraph_id], verdict = evolve(states.get(request.paragraph_id), request, judge)
        for line in sentence_lines(verdict):
            click.echo(canonical_json(line))
        click.echo(canonical_json(paragraph_line(verdict)))
        labels = request.expected_supported or (None,) * len(verdict.sentences)
        sentences += [(s.passed, label) for s, label in zip(verdict.sentences, labels, strict=True)]
        verified.append(verdict.verified)
    if evaluate:
        click.echo(canonical_json({"metrics": contract_metrics(sentences, verified).to_dict()}))
    sys.exit(EXIT_OK if all(verified) else EXIT_FAILED)
