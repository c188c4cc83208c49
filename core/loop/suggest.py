"""Ask an LLM for a candidate through an OpenAI-compatible endpoint (llama.cpp, Ollama, ...).

Off until configured (no endpoint, no call). The prompt has the reference's shape (task,
failure point and class, steps, tags; "return only a JSON object with when / do /
confidence / reasoning"), and the reply is parsed the way 0.3.1's extractor does: the first
balanced ``{...}`` object in the text (braces inside strings ignored), ``when`` and ``do``
objects, ``confidence`` defaulting to 0.5. Every failure is a :class:`SuggestError` whose
message says plainly what the endpoint did. Standard library only (urllib).
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class SuggestError(RuntimeError):
    """The endpoint could not give a usable suggestion; the message is for the reviewer."""


@dataclass(frozen=True)
class SuggestConfig:
    base_url: str  # e.g. http://127.0.0.1:8080/v1
    model: str = "local"
    api_key: str | None = None
    timeout: float = 30.0

    @property
    def configured(self) -> bool:
        return bool(self.base_url.strip())

    @property
    def chat_url(self) -> str:
        base = self.base_url.strip().rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


@dataclass(frozen=True)
class Suggestion:
    trigger: str
    context: tuple[str, ...]
    signature: str | None
    directive: str
    because: str | None
    confidence: float
    reasoning: str | None


def build_prompt(record: Mapping[str, Any]) -> str:
    steps: list[Any] = record["steps"] if isinstance(record.get("steps"), list) else []
    lines = [
        f"Step {s.get('step_number', i + 1)}: tool={s.get('tool')} input={s.get('input') or ''} "
        f"output={s.get('output') or ''} error={s.get('error') or ''}"
        for i, s in enumerate(steps) if isinstance(s, Mapping)
    ]
    tags: list[Any] = record["tags"] if isinstance(record.get("tags"), list) else []
    return "\n".join([
        "You extract one actionable standing rule from an agent failure.",
        f"Task: {record.get('task')}",
        f"Failure point: {record.get('failure_point') or 'unknown'}",
        f"Failure class: {record.get('failure_class') or 'unknown'}",
        "Steps:", *lines,
        f"Tags: {', '.join(map(str, tags)) or 'none'}",
        "",
        "Return ONLY a JSON object with the keys:",
        '- when: {"trigger": string naming the specific error, "context": [strings], "error_signature": string}',
        '- do: {"directive": string, "because": string}',
        "- confidence: number from 0.0 to 1.0",
        "- reasoning: string",
    ])


def first_json_object(text: str) -> str:
    """The first balanced ``{...}`` in ``text`` (0.3.1's rule); braces inside strings do not count."""
    start = text.find("{")
    if start < 0:
        raise SuggestError("the reply holds no JSON object")
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    raise SuggestError("the reply's JSON object is never closed")


def parse_suggestion(text: str) -> Suggestion:
    try:
        data = json.loads(first_json_object(text))
    except json.JSONDecodeError as error:
        raise SuggestError(f"the reply's JSON object is malformed: {error.msg} at column {error.colno}") from error
    if not isinstance(data, dict):
        raise SuggestError("the reply's JSON is not an object")
    when, do = data.get("when", {}), data.get("do", {})
    if not isinstance(when, dict) or not isinstance(do, dict):
        raise SuggestError("'when' and 'do' must be JSON objects")
    raw_context = when.get("context", [])
    context = tuple(str(c).strip() for c in raw_context if c and str(c).strip()) if isinstance(raw_context, list) else ()
    signature = when.get("error_signature")
    try:
        confidence = float(data.get("confidence", 0.5))
    except (TypeError, ValueError) as error:
        raise SuggestError(f"confidence is not a number: {data.get('confidence')!r}") from error
    if not 0.0 <= confidence <= 1.0:
        raise SuggestError(f"confidence {confidence} is outside 0..1")
    trigger = str(when.get("trigger", "")).strip()
    if not trigger:
        raise SuggestError("the suggestion has no trigger")
    reasoning = data.get("reasoning")
    return Suggestion(trigger, context, str(signature).strip() if signature and str(signature).strip() else None,
                      str(do.get("directive", "")), None if do.get("because") is None else str(do.get("because")),
                      confidence, None if reasoning is None else str(reasoning))


def suggest(config: SuggestConfig, record: Mapping[str, Any]) -> Suggestion:
    """One blocking call: run it off the GUI thread."""
    if not config.configured:
        raise SuggestError("no LLM endpoint is configured (Settings > LLM endpoint)")
    body = json.dumps({"model": config.model, "temperature": 0,
                       "messages": [{"role": "user", "content": build_prompt(record)}]}).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    request = urllib.request.Request(config.chat_url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=config.timeout) as response:  # noqa: S310 - user-configured URL
            payload = response.read()
    except urllib.error.HTTPError as error:
        detail = error.read(300).decode("utf-8", "replace").strip()
        raise SuggestError(f"the endpoint answered HTTP {error.code} {error.reason}" +
                           (f": {detail}" if detail else "")) from error
    except (socket.timeout, TimeoutError) as error:
        raise SuggestError(f"the endpoint did not answer within {config.timeout:g} s") from error
    except urllib.error.URLError as error:
        if isinstance(error.reason, (socket.timeout, TimeoutError)):
            raise SuggestError(f"the endpoint did not answer within {config.timeout:g} s") from error
        raise SuggestError(f"cannot reach {config.chat_url}: {error.reason}") from error
    try:
        content = json.loads(payload)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as error:
        raise SuggestError("the endpoint's answer is not an OpenAI-style chat completion "
                           f"(no choices[0].message.content): {payload[:200]!r}") from error
    return parse_suggestion(str(content))
