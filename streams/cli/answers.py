"""The DS005 commands: `omega ingest`, `omega ask`, `omega check answers`, `omega check extraction`.

Where `ask` gets its corpus: a local fact-store file (JSON lines, one fact in the §4.1 form per line) that
`ingest` appends to — `.omega-data/facts.jsonl` by default, `--store` or `OMEGA_FACT_STORE` to change it.
Re-ingesting the same document version appends nothing (fact ids are derived from their content).
Extraction is rule-based by default; `--llm-url` switches to an OpenAI-compatible endpoint.

The two checks are on the contract every `omega check` shares (`streams.cli.checking`: `--format json|table`,
`--fail-on`, a summary on stderr with the first rejections). `check answers` prints one line per question
{kind: "answer", id, question, status, text, verdict, chunks_used, fact_chain, support_scores, conflicts, reason}
(the §7 contract with snake_case keys; `status` PASS when every expectation of the question is met, else FAIL, a
rejection), the scores and the facts the suite's store refused (`omega: rejected: {...}`, snake_case too) on
stderr. `check extraction` prints one line per chunk {kind: "chunk", chunk_id, runs,
mean_jaccard, fact_counts, reliable, status} (`status` RELIABLE, or UNRELIABLE below a mean Jaccard of 0.8, a
rejection). Exit codes: 0 ok, 1 an expectation not met (or extraction unreliable, or `--fail-on` crossed), 2 bad
or empty input.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click

from omega.answers.answer import answer
from omega.answers.chunking import chunk
from omega.answers.consistency import RELIABLE_AT, extraction_consistency
from omega.answers.extraction import Extractor, llm_extractor, rule_extract
from omega.answers.ingest import ingest
from omega.answers.model import Fact, PlanError, fact_from_dict, plan_from_dict
from omega.answers.planner import plan_question
from omega.answers.store import FactStore
from omega.answers.suite import SuiteError, answer_question, build_store, parse_suite, passed, score
from omega.answers.vocabulary import DEFAULT_VOCABULARY, Vocabulary, VocabularyError, vocabulary_from_dict
from omega.canonical import canonical_json
from streams.cli.checking import Tally, check_options
from streams.cli.options import fact_store_option, usage_error
from streams.cli.progress import with_progress
from streams.http.llm import LLMError, OpenAICompatibleClient

vocabulary_option = click.option("--vocabulary", "vocabulary_path", type=click.Path(path_type=Path), default=None,
                                 help="Predicate vocabulary JSON {predicate: {argTypes: [..]}} [default: §4.2].")
llm_options = [
    click.option("--llm-url", default=None, help="OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1); "
                 "default: the rule-based extractor."),
    click.option("--llm-model", default="gpt-4o-mini", show_default=True, help="Model name for --llm-url."),
]


PASS, FAIL = "PASS", "FAIL"
RELIABLE, UNRELIABLE = "RELIABLE", "UNRELIABLE"
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KEYED_BY_DATA = frozenset({"qualifiers", "support_scores"})  # qualifier names, fact ids: kept as written


def snake_keys(value: Any) -> Any:
    """`value` with every camelCase key in snake_case (`factChain` -> `fact_chain`), the values kept; maps keyed
    by data (qualifiers, support scores by fact id) keep their keys."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = _HUMP.sub("_", str(key)).lower()
            out[name] = item if name in _KEYED_BY_DATA else snake_keys(item)
        return out
    if isinstance(value, list):
        return [snake_keys(item) for item in value]
    return value


def _vocabulary(path: Path | None) -> Vocabulary:
    if path is None:
        return DEFAULT_VOCABULARY
    try:
        return vocabulary_from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, VocabularyError) as exc:
        usage_error(f"cannot read vocabulary {path}: {exc}")


def _extractor(llm_url: str | None, llm_model: str) -> Extractor:
    return rule_extract if llm_url is None else llm_extractor(OpenAICompatibleClient(llm_url, llm_model))


def read_store(path: Path) -> FactStore:
    """The facts of a store file (a missing file is an empty store); raises ValueError on a bad line."""
    if not path.exists():
        return FactStore()
    facts: list[Fact] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                facts.append(fact_from_dict(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a fact: {exc}") from exc
    return FactStore(facts)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        usage_error(f"cannot read {path}: {exc}")


@click.command("ingest")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--doc-id", required=True, help="Document id.")
@click.option("--version", "version", default=None, help="Document version (copied into its facts).")
@fact_store_option
@vocabulary_option
@llm_options[0]
@llm_options[1]
def ingest_command(file: Path, doc_id: str, version: str | None, store_path: Path, vocabulary_path: Path | None,
                   llm_url: str | None, llm_model: str) -> None:
    """Chunk a document, extract and validate facts, append the new ones to the fact store."""
    text = _read_text(file)
    vocabulary = _vocabulary(vocabulary_path)
    try:
        store = read_store(store_path)
        done = ingest(text, {"docId": doc_id, "version": version}, _extractor(llm_url, llm_model), vocabulary)
    except (ValueError, LLMError) as exc:
        usage_error(str(exc))
    new = [f for f in done.facts if store.get(f.fact_id) is None]
    store_path.parent.mkdir(parents=True, exist_ok=True)
    with store_path.open("a", encoding="utf-8") as handle:
        handle.writelines(canonical_json(f.to_dict()) + "\n" for f in new)
    for rejection in done.rejections:
        click.echo(f"omega: rejected: {canonical_json(rejection.to_dict())}", err=True)
    click.echo(canonical_json({"docId": doc_id, "version": version, "chunks": len(done.chunks),
                               "facts": len(done.facts), "new": len(new), "rejected": len(done.rejections),
                               "store": str(store_path)}))


@click.command("ask")
@click.argument("question")
@click.option("--plan", "plan_json", default=None, help="A §5.1 QueryPlan as JSON (skips the template planner).")
@fact_store_option
@vocabulary_option
def ask_command(question: str, plan_json: str | None, store_path: Path, vocabulary_path: Path | None) -> None:
    """Answer a question over the fact store; prints the §7 answer contract as one JSON line."""
    vocabulary = _vocabulary(vocabulary_path)
    try:
        store = read_store(store_path)
        plan = plan_question(question, store.subjects()) if plan_json is None else plan_from_dict(json.loads(plan_json))
    except (ValueError, PlanError) as exc:
        usage_error(f"bad input: {exc}")
    click.echo(canonical_json({"question": question, "plan": plan.to_dict(),
                               **answer(plan, store, vocabulary).to_dict()}))


@click.command("answers")
@click.argument("suite_path", metavar="SUITE.json", type=click.Path(path_type=Path))
@check_options
def check_answers(suite_path: Path, output_format: str, fail_on: str) -> None:
    """Answer every suite question (one contract per line, snake_case keys, `status` PASS or FAIL); the scores and
    a summary on stderr; exit 1 if any expectation is not met (or `--fail-on` is crossed), 2 on bad input."""
    try:
        suite = parse_suite(json.loads(_read_text(suite_path)))
    except (ValueError, SuiteError) as exc:
        usage_error(f"bad suite {suite_path}: {exc}")
    store, rejections = build_store(suite)
    for rejection in rejections:  # snake_case as the lines are (`omega ingest` keeps the §4.1 camelCase)
        click.echo(f"omega: rejected: {canonical_json(snake_keys(rejection.to_dict()))}", err=True)
    results = []
    tally = Tally(fail_on, output_format)
    for question in with_progress(suite.questions, len(suite.questions), "answering questions"):
        got = answer_question(question, store, suite.vocabulary)
        results.append((question, got))
        ok = passed(question, got)
        tally.line({"kind": "answer", "id": question.id, "question": question.text, "status": PASS if ok else FAIL,
                    **snake_keys(got.to_dict())}, status=PASS if ok else FAIL, where=question.id,
                   rule=f"expected {question.expected_verdict} {question.expected_answer!r}, "
                        f"got {got.verdict} {got.text!r}")
    if results:
        click.echo(f"omega: answers: {canonical_json(snake_keys(score(results)))}", err=True)
    tally.finish("answers")


@click.command("extraction")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--runs", default=5, show_default=True, type=click.IntRange(min=1), help="Extraction runs (R).")
@click.option("--doc-id", default="doc", show_default=True, help="Document id for the chunks.")
@vocabulary_option
@llm_options[0]
@llm_options[1]
@check_options
def check_extraction(file: Path, runs: int, doc_id: str, vocabulary_path: Path | None, llm_url: str | None,
                     llm_model: str, output_format: str, fail_on: str) -> None:
    """§8: extract every chunk R times, mean Jaccard per chunk (`status` RELIABLE, or UNRELIABLE below 0.8); a
    summary on stderr; exit 1 if any chunk is unreliable (or `--fail-on` is crossed), 2 on bad or empty input."""
    text = _read_text(file)
    vocabulary = _vocabulary(vocabulary_path)
    extractor = _extractor(llm_url, llm_model)
    lines: list[dict[str, Any]] = []
    try:  # every chunk extracted before any line is printed: an endpoint failing half-way prints nothing
        pieces = chunk(text, doc_id)
        for piece in with_progress(pieces, len(pieces), "extracting chunks"):
            result = extraction_consistency(piece, extractor, vocabulary, runs)
            lines.append({"kind": "chunk", "chunk_id": piece.chunk_id, "runs": runs,
                          "mean_jaccard": result.mean_jaccard, "fact_counts": list(result.fact_counts),
                          "reliable": result.reliable, "status": RELIABLE if result.reliable else UNRELIABLE})
    except LLMError as exc:
        usage_error(str(exc))
    tally = Tally(fail_on, output_format)
    for line in lines:
        tally.line(line, status=str(line["status"]), where=str(line["chunk_id"]),
                   rule=f"extraction unreliable (mean Jaccard {line['mean_jaccard']:.4g} < {RELIABLE_AT})")
    tally.finish("chunks")
