"""The replay worker's protocol: typed, versioned messages, one JSON object per line.

The window process and its replay child (``cauterule_gui.replay_server``) talk only in
these dataclasses. Requests go window -> child (``RunReplay``, ``ReplayDraft``, ``LoadModel``,
``Embed``, ``Quit``); replies go child -> window (``Started``, ``Progress``, ``ChunkSaved``,
``ModelState``, ``Embedded``, ``DraftReplayed``, ``Finished``, ``Failed``). Every line carries the protocol
version ``v`` and a ``type``; ``decode`` checks both and every field's type, so a bad line
is a ``ProtocolError`` naming what is wrong, never a ``KeyError`` deep in a relay.

No Qt, no numpy: both sides import it, and the window must stay free of heavy imports.
"""

from __future__ import annotations

import base64
import binascii
import json
import types
import typing
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar, Union

PROTOCOL_VERSION = 1
_SNIPPET = 120  # characters of a bad line quoted in an error


class ProtocolError(ValueError):
    """A line that is not a valid message of this protocol version (the text says why)."""


# -- requests: window -> child -----------------------------------------------------------
@dataclass(frozen=True)
class RunReplay:
    """Replay ``rule_ids`` (None: every rule) of the store at ``store`` and keep the run."""

    TYPE: ClassVar[str] = "run_replay"
    store: str
    profile: str
    semantic: bool
    rule_ids: tuple[int, ...] | None
    materialise: bool  # turn expected_rule labels into candidates first
    scope: str


@dataclass(frozen=True)
class LoadModel:
    """Load the embedding model now (answered by a final ``ModelState``)."""

    TYPE: ClassVar[str] = "load_model"


@dataclass(frozen=True)
class Embed:
    """Embed ``texts`` (answered by ``Embedded``); with ``store``, through its vector cache."""

    TYPE: ClassVar[str] = "embed"
    texts: tuple[str, ...]
    store: str | None = None


@dataclass(frozen=True)
class ReplayDraft:
    """Replay rule ``rule_id`` as if it said ``trigger`` / ``directive``, writing nothing to the
    store (a what-if draft, ``core.decisions.whatif_draft``); answered by ``DraftReplayed``.
    ``before_result``: the stored result to list bucket moves against."""

    TYPE: ClassVar[str] = "replay_draft"
    store: str
    profile: str
    semantic: bool
    rule_id: int
    trigger: str
    directive: str
    before_result: int | None


@dataclass(frozen=True)
class Quit:
    TYPE: ClassVar[str] = "quit"


# -- replies: child -> window -------------------------------------------------------------
@dataclass(frozen=True)
class Started:
    """The run row exists: sent before any progress of the run."""

    TYPE: ClassVar[str] = "started"
    run_id: int
    profile: str
    semantic_state: str  # on | off | unavailable


@dataclass(frozen=True)
class Progress:
    TYPE: ClassVar[str] = "progress"
    phase: str  # embedding | scoring
    done: int
    total: int
    unit: str  # texts | pairs


@dataclass(frozen=True)
class ChunkSaved:
    """One chunk of rule results is committed: the window may show them now."""

    TYPE: ClassVar[str] = "chunk_saved"
    run_id: int
    rules: int


@dataclass(frozen=True)
class ModelState:
    """``loading`` while the model loads; ``ready`` (info: model id) or ``unavailable``
    (info: why) ends a ``LoadModel`` request."""

    TYPE: ClassVar[str] = "model_state"
    state: str
    info: str | None = None


@dataclass(frozen=True)
class Embedded:
    """Unit vectors, row i for text i of the request, as little-endian float32 bytes."""

    TYPE: ClassVar[str] = "embedded"
    model_id: str
    rows: int
    dim: int
    vectors: bytes


@dataclass(frozen=True)
class Finished:
    TYPE: ClassVar[str] = "finished"
    run_id: int
    status: str  # complete | cancelled
    rules: int
    pairs: int
    seconds: float
    semantic_state: str
    semantic_note: str | None
    model_id: str | None


@dataclass(frozen=True)
class DraftReplayed:
    """A draft's answer: ``core.decisions.whatif_draft.DraftSummary`` as JSON (its
    ``from_json`` checks it)."""

    TYPE: ClassVar[str] = "draft_replayed"
    summary: str


@dataclass(frozen=True)
class Failed:
    """The request failed in the child; ``traceback`` is the child's, for the details pane."""

    TYPE: ClassVar[str] = "failed"
    exc_type: str
    message: str
    traceback: str = ""


Request = Union[RunReplay, ReplayDraft, LoadModel, Embed, Quit]
Reply = Union[Started, Progress, ChunkSaved, ModelState, Embedded, DraftReplayed, Finished, Failed]
Message = Union[Request, Reply]
MESSAGE_TYPES: dict[str, type[Any]] = {
    cls.TYPE: cls for cls in (RunReplay, ReplayDraft, LoadModel, Embed, Quit, Started, Progress, ChunkSaved,
                              ModelState, Embedded, DraftReplayed, Finished, Failed)
}


def encode(message: Message) -> bytes:
    """One protocol line (UTF-8, ending in a newline)."""
    body: dict[str, Any] = {"v": PROTOCOL_VERSION, "type": message.TYPE}
    for name, value in asdict(message).items():
        body[name] = base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else value
    return (json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def decode(line: bytes | str) -> Message:
    """The message on ``line``; ``ProtocolError`` saying what is wrong with it otherwise."""
    text = _text(line)
    try:
        body = json.loads(text)
    except ValueError as error:
        raise ProtocolError(f"replay message is not JSON ({error}): {_quote(text)}") from None
    if not isinstance(body, dict):
        raise ProtocolError(f"replay message must be a JSON object, got {type(body).__name__}: {_quote(text)}")
    version = body.pop("v", None)
    if version != PROTOCOL_VERSION:
        raise ProtocolError(f"replay message has protocol version {version!r}; this program speaks version "
                            f"{PROTOCOL_VERSION} (are the window and its replay process from the same install?): "
                            f"{_quote(text)}")
    kind = body.pop("type", None)
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(f"unknown replay message type {kind!r}; expected one of {', '.join(sorted(MESSAGE_TYPES))}")
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in fields(cls)}
    extra = sorted(set(body) - set(known))
    if extra:
        raise ProtocolError(f"replay message {kind!r} has unknown field(s) {', '.join(extra)}")
    values: dict[str, Any] = {}
    for name, spec in known.items():
        if name not in body:
            if spec.default is not MISSING:
                continue
            raise ProtocolError(f"replay message {kind!r} lacks field {name!r} ({_type_name(hints[name])})")
        values[name] = _check(kind, name, hints[name], body[name])
    return cls(**values)  # type: ignore[no-any-return]


def _check(kind: str, name: str, expected: Any, value: Any) -> Any:
    """``value`` converted to ``expected`` (lists to tuples, base64 to bytes), or ProtocolError."""
    converted = _convert(expected, value)
    if converted is _BAD:
        raise ProtocolError(f"replay message {kind!r} field {name!r}: expected {_type_name(expected)}, "
                            f"got {type(value).__name__} {_quote(repr(value))}")
    return converted


_BAD = object()


def _convert(expected: Any, value: Any) -> Any:
    origin = typing.get_origin(expected)
    if origin in (Union, types.UnionType):
        for option in typing.get_args(expected):
            converted = _convert(option, value)
            if converted is not _BAD:
                return converted
        return _BAD
    if expected is type(None):
        return None if value is None else _BAD
    if origin is tuple:
        item = typing.get_args(expected)[0]
        if not isinstance(value, list):
            return _BAD
        items = [_convert(item, v) for v in value]
        return _BAD if any(i is _BAD for i in items) else tuple(items)
    if expected is bytes:
        if not isinstance(value, str):
            return _BAD
        try:
            return base64.b64decode(value.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            return _BAD
    if expected is bool:
        return value if isinstance(value, bool) else _BAD
    if expected is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _BAD
    if expected is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return float(value) if ok else _BAD
    if expected is str:
        return value if isinstance(value, str) else _BAD
    raise TypeError(f"no protocol conversion for {expected!r}")  # a programming error in this module


def _type_name(expected: Any) -> str:
    if typing.get_origin(expected) in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(expected))
    if typing.get_origin(expected) is tuple:
        return f"list of {_type_name(typing.get_args(expected)[0])}"
    if expected is type(None):
        return "null"
    return {bytes: "base64 string", str: "string", int: "integer", float: "number", bool: "true/false"}.get(
        expected, repr(expected))


def _text(line: bytes | str) -> str:
    if isinstance(line, str):
        return line
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProtocolError(f"replay message is not UTF-8 ({error}): {line[:_SNIPPET]!r}") from None


def _quote(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= _SNIPPET else text[:_SNIPPET] + "…")
