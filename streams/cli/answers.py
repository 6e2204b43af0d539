"""The DS005 commands: `omega ingest`, `omega ask`, `omega check answers`, `omega check extraction`.

Where `ask` gets its corpus: a local fact-store file (JSON lines, one fact in the §4.1 form per line) that
`ingest` appends to — `.omega-data/facts.jsonl` by default, `--store` or `OMEGA_FACT_STORE` to change it.
Re-ingesting the same document version appends nothing (fact ids are derived from their content).
Extraction is rule-based by default; `--llm-url` switches to an OpenAI-compatible endpoint.
Exit codes: 0 ok, 1 an expectation not met (or extraction unreliable), 2 bad input.
"""

from __future__ import annotations

import json
import sys
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
from streams.cli.options import EXIT_FAILED, EXIT_OK, fact_store_option, usage_error
from streams.cli.progress import with_progress
from streams.http.llm import LLMError, OpenAICompatibleClient

vocabulary_option = click.option("--vocabulary", "vocabulary_path", type=click.Path(path_type=Path), default=None,
                                 help="Predicate vocabulary JSON {predicate: {argTypes: [..]}} [default: §4.2].")
llm_options = [
    click.option("--llm-url", default=None, help="OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1); "
                 "default: the rule-based extractor."),
    click.option("--llm-model", default="gpt-4o-mini", show_default=True, help="Model name for --llm-url."),
]


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
def check_answers(suite_path: Path) -> None:
    """Answer every suite question (one contract per JSON line); exit 1 if any expectation is not met."""
    try:
        suite = parse_suite(json.loads(_read_text(suite_path)))
    except (ValueError, SuiteError) as exc:
        usage_error(f"bad suite {suite_path}: {exc}")
    store, rejections = build_store(suite)
    for rejection in rejections:
        click.echo(f"omega: rejected: {canonical_json(rejection.to_dict())}", err=True)
    results = []
    for question in with_progress(suite.questions, len(suite.questions), "answering questions"):
        got = answer_question(question, store, suite.vocabulary)
        results.append((question, got))
        click.echo(canonical_json({"id": question.id, "question": question.text, **got.to_dict()}))
    summary = score(results)
    click.echo(f"omega: answers: {canonical_json(summary)}", err=True)
    failed = [(q, a) for q, a in results if not passed(q, a)]
    for q, a in failed:
        click.echo(f"  {q.id}: expected {q.expected_verdict} {q.expected_answer!r}, got {a.verdict} {a.text!r}",
                   err=True)
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


@click.command("extraction")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--runs", default=5, show_default=True, type=click.IntRange(min=1), help="Extraction runs (R).")
@click.option("--doc-id", default="doc", show_default=True, help="Document id for the chunks.")
@vocabulary_option
@llm_options[0]
@llm_options[1]
def check_extraction(file: Path, runs: int, doc_id: str, vocabulary_path: Path | None, llm_url: str | None,
                     llm_model: str) -> None:
    """§8: extract every chunk R times, mean Jaccard per chunk; exit 1 if any chunk is below 0.8."""
    text = _read_text(file)
    vocabulary = _vocabulary(vocabulary_path)
    extractor = _extractor(llm_url, llm_model)
    lines: list[dict[str, Any]] = []
    try:
        pieces = chunk(text, doc_id)
        for piece in with_progress(pieces, len(pieces), "extracting chunks"):
            result = extraction_consistency(piece, extractor, vocabulary, runs)
            lines.append({"chunkId": piece.chunk_id, "runs": runs, "meanJaccard": result.mean_jaccard,
                          "factCounts": list(result.fact_counts), "reliable": result.reliable})
    except LLMError as exc:
        usage_error(str(exc))
    for line in lines:
        click.echo(canonical_json(line))
    unreliable = [line["chunkId"] for line in lines if not line["reliable"]]
    if unreliable:
        click.echo(f"omega: extraction unreliable (mean Jaccard < {RELIABLE_AT}): {', '.join(unreliable)}", err=True)
    sys.exit(EXIT_FAILED if unreliable else EXIT_OK)
