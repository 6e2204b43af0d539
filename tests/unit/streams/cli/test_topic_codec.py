"""Recorded events <-> topic bytes (streams/cli/topic_codec.py): the key `omega publish` gives each input record, and
the line `omega tail --format replay` writes."""

from __future__ import annotations

import json
from pathlib import Path

from streams.cli.topic_codec import encode_for_topic, replay_line
from streams.replay.inputs import read_inputs
from streams.stages.packets import PacketStage
from streams.topics import AGENT_MESSAGES_RAW, DOCUMENTS, ORACLE_REQUESTS, PACKETS, PACKETS_JSON, VERDICTS
from tests.factories import packet as factory_packet


def test_publish_keys_packet_lines_by_their_correlation_id(tmp_path: Path, pipeline: PacketStage) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(factory_packet(0, 1)) + "\n" + json.dumps(factory_packet(0, 2)) + "\n"
                    + "not json\n", encoding="utf-8")
    keys = [encode_for_topic(pipeline, r, PACKETS_JSON)[0] for r in read_inputs([path])]
    assert keys == [b"corr_ep00001", b"corr_ep00002", None]  # a line that is not JSON keeps no key


def test_publish_keys_agent_output_by_the_session_id_given_else_by_the_file(tmp_path: Path,
                                                                           pipeline: PacketStage) -> None:
    session = tmp_path / "night_run.yaml"
    session.write_text("agent_id: 1\n", encoding="utf-8")
    lines = tmp_path / "day_run.part1.jsonl"
    lines.write_text('{"agent_id": 1}\n', encoding="utf-8")
    [yaml_record] = read_inputs([session])
    [line_record] = read_inputs([lines])
    assert encode_for_topic(pipeline, yaml_record, AGENT_MESSAGES_RAW)[0] == b"night_run"
    assert encode_for_topic(pipeline, line_record, AGENT_MESSAGES_RAW)[0] == b"day_run"
    assert encode_for_topic(pipeline, line_record, AGENT_MESSAGES_RAW, session_id="s-42")[0] == b"s-42"


def test_publish_keys_phase_q_by_case_and_corpus_topics_by_corpus(tmp_path: Path, pipeline: PacketStage) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": "Q-PREC-001"}\n{"corpus": "hr", "docId": "d1", "text": "x"}\n', encoding="utf-8")
    case, document = read_inputs([path])
    assert encode_for_topic(pipeline, case, ORACLE_REQUESTS)[0] == b"Q-PREC-001"
    assert encode_for_topic(pipeline, document, DOCUMENTS)[0] == b"hr"
    assert encode_for_topic(pipeline, case, None)[0] is None  # a topic we do not know: the key it had


def test_a_tailed_record_in_replay_format_is_what_replay_and_project_read_back() -> None:
    verdict = {"verdict_id": "v1", "status": "ACCEPTED"}
    # an output topic: the line Replayer writes, under the topic's unprefixed name
    assert replay_line(VERDICTS, "t.omen.verdicts", 0, 5, b"corr_1", verdict) == (
        '{"key":"corr_1","topic":"omen.verdicts","value":{"status":"ACCEPTED","verdict_id":"v1"}}')
    # the JSON ingress: the packet's text as published; the Avro packets topic: the packet's JSON
    assert replay_line(PACKETS_JSON, "t.omen.packets.json", 0, 0, None, {"utf8": '{"header": {}}'}) == '{"header": {}}'
    assert replay_line(PACKETS, "t.omen.packets", 0, 0, b"c", {"header": {"b": 1, "a": 2}}) == (
        '{"header":{"a":2,"b":1}}')
