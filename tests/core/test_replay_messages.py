"""The replay worker's protocol: every message round-trips; a bad line is a clear error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.replay.messages import (
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    ChunkSaved,
    DraftReplayed,
    Embed,
    Embedded,
    Failed,
    Finished,
    LoadModel,
    ModelState,
    Progress,
    ProtocolError,
    Quit,
    ReplayDraft,
    RunReplay,
    Started,
    decode,
    encode,
)

EXAMPLES = [
    RunReplay(store="/tmp/s.sqlite", profile="workbench", semantic=True, rule_ids=(3, 5), materialise=False,
              scope="gui: selection [ab12]"),
    RunReplay(store="/tmp/s.sqlite", profile="reference-0.3.1", semantic=False, rule_ids=None, materialise=True,
              scope=""),
    ReplayDraft(store="/tmp/s.sqlite", profile="workbench", semantic=True, rule_id=5, trigger="when a push “fails”",
                directive="pull\nfirst", before_result=None),
    ReplayDraft(store="/tmp/s.sqlite", profile="reference-0.3.1", semantic=False, rule_id=5, trigger="t",
                directive="d", before_result=41),
    LoadModel(),
    Embed(texts=("when a push is rejected", "ünïcode — “quotes”\nand a newline"), store=None),
    Embed(texts=(), store="/tmp/s.sqlite"),
    Quit(),
    Started(run_id=7, profile="workbench", semantic_state="on"),
    Progress(phase="embedding", done=64, total=1200, unit="texts"),
    ChunkSaved(run_id=7, rules=12),
    ModelState(state="loading"),
    ModelState(state="unavailable", info="no embedding model: set CAUTERULE_WORKBENCH_MODEL"),
    Embedded(model_id="model@2c54", rows=2, dim=3, vectors=np.arange(6, dtype="<f4").tobytes()),
    Finished(run_id=7, status="cancelled", rules=0, pairs=0, seconds=0.25, semantic_state="off", semantic_note=None,
             model_id=None),
    DraftReplayed(summary='{"rule_id": 5}'),
    Failed(exc_type="LookupError", message="no such store", traceback="Traceback …"),
]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_through_one_line(message: object) -> None:
    line = encode(message)  # type: ignore[arg-type]
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode(line) == message


def test_every_message_type_has_an_example() -> None:
    assert {type(m).TYPE for m in EXAMPLES} == set(MESSAGE_TYPES)


def test_vectors_come_back_as_the_same_float32_rows() -> None:
    vectors = np.random.default_rng(1).normal(size=(4, 384)).astype("<f4")
    back = decode(encode(Embedded("m", 4, 384, vectors.tobytes())))
    assert isinstance(back, Embedded)
    assert np.array_equal(np.frombuffer(back.vectors, dtype="<f4").reshape(4, 384), vectors)


def _line(**body: object) -> bytes:
    return json.dumps(body).encode()


@pytest.mark.parametrize(("line", "says"), [
    (b"progress 3/4\n", "not JSON"),
    (b"[1, 2]\n", "must be a JSON object, got list"),
    (b"\xff\xfe\n", "not UTF-8"),
    (_line(type="quit"), "protocol version None"),
    (_line(v=PROTOCOL_VERSION + 1, type="quit"), f"protocol version {PROTOCOL_VERSION + 1}"),
    (_line(v=PROTOCOL_VERSION, type="explode"), "unknown replay message type 'explode'"),
    (_line(v=PROTOCOL_VERSION), "unknown replay message type None"),
    (_line(v=PROTOCOL_VERSION, type="progress", phase="scoring", total=4, unit="pairs"),
     "'progress' lacks field 'done' (integer)"),
    (_line(v=PROTOCOL_VERSION, type="progress", phase="scoring", done="3", total=4, unit="pairs"),
     "'progress' field 'done': expected integer, got str"),
    (_line(v=PROTOCOL_VERSION, type="progress", phase="scoring", done=True, total=4, unit="pairs"),
     "field 'done': expected integer, got bool"),
    (_line(v=PROTOCOL_VERSION, type="chunk_saved", run_id=1, rules=2, extra=3), "unknown field(s) extra"),
    (_line(v=PROTOCOL_VERSION, type="run_replay", store="s", profile="p", semantic=True, rule_ids=[1, "2"],
           materialise=False, scope=""), "field 'rule_ids': expected list of integer or null"),
    (_line(v=PROTOCOL_VERSION, type="embedded", model_id="m", rows=1, dim=1, vectors="not base64!"),
     "field 'vectors': expected base64 string"),
])
def test_a_bad_line_is_a_protocol_error_that_says_what_is_wrong(line: bytes, says: str) -> None:
    with pytest.raises(ProtocolError) as raised:
        decode(line)
    assert says in str(raised.value)


def test_a_long_bad_line_is_quoted_short() -> None:
    with pytest.raises(ProtocolError) as raised:
        decode(b"x" * 10_000)
    assert len(str(raised.value)) < 300
