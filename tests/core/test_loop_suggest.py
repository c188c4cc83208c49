"""Suggest: a real OpenAI-compatible HTTP server on 127.0.0.1 answers good, malformed, slow
and failing replies; parsing agrees with 0.3.1's extractor."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from core.loop.suggest import SuggestConfig, SuggestError, parse_suggestion, suggest

RECORD = {"trajectory_id": "F-1", "task": "Push the release branch", "failure_class": "git/push/non-fast-forward",
          "steps": [{"step_number": 1, "tool": "git", "input": "git push", "error": "rejected (non-fast-forward)"}]}
GOOD = ('Sure! {"when": {"trigger": "git push is rejected as non-fast-forward", "context": ["git", ""], '
        '"error_signature": "non-fast-forward"}, "do": {"directive": "pull --rebase, then push", '
        '"because": "the remote moved"}, "confidence": 0.8, "reasoning": "the remote has {new} commits"} Done.')


def _completion(content: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()


class _Server:
    def __init__(self, reply: Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                reply(self, body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # Handler threads are joined on close: a thread left behind (the slow reply of the
        # timeout test) would keep later tests' replays from forking workers (parallel.fork_is_safe).
        self.httpd.daemon_threads = False
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()  # joins the handler threads (daemon_threads is False)
        self.thread.join()


def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def serve() -> Iterator[Callable[..., _Server]]:
    servers: list[_Server] = []

    def start(reply: Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]) -> _Server:
        servers.append(_Server(reply))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def test_good_reply_becomes_a_suggestion(serve: Callable[..., _Server]) -> None:
    server = serve(lambda h, _b: _send(h, 200, _completion(GOOD)))
    result = suggest(SuggestConfig(server.url, model="m", api_key="k"), RECORD)
    assert (result.trigger, result.directive, result.confidence) == (
        "git push is rejected as non-fast-forward", "pull --rebase, then push", 0.8)
    assert result.context == ("git",) and result.signature == "non-fast-forward"
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    assert "Failure class: git/push/non-fast-forward" in request["body"]["messages"][0]["content"]


def test_malformed_reply_says_what_is_wrong(serve: Callable[..., _Server]) -> None:
    server = serve(lambda h, _b: _send(h, 200, _completion('{"when": {"trigger": "x"}, "do": ')))
    with pytest.raises(SuggestError, match="never closed"):
        suggest(SuggestConfig(server.url), RECORD)


def test_not_a_chat_completion_is_reported(serve: Callable[..., _Server]) -> None:
    server = serve(lambda h, _b: _send(h, 200, b'{"result": "hi"}'))
    with pytest.raises(SuggestError, match="not an OpenAI-style chat completion"):
        suggest(SuggestConfig(server.url), RECORD)


def test_server_error_shows_status_and_body(serve: Callable[..., _Server]) -> None:
    server = serve(lambda h, _b: _send(h, 500, b'{"error": "model not loaded"}'))
    with pytest.raises(SuggestError, match=r"HTTP 500 .*model not loaded"):
        suggest(SuggestConfig(server.url), RECORD)


def test_timeout_is_reported_not_hung(serve: Callable[..., _Server]) -> None:
    def slow(h: BaseHTTPRequestHandler, _b: dict[str, Any]) -> None:
        time.sleep(1.5)
        try:
            _send(h, 200, _completion(GOOD))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, as it should

    server = serve(slow)
    # Had the client waited out the slow server it would have got a good completion, not this error.
    with pytest.raises(SuggestError, match="did not answer within 0.3 s"):
        suggest(SuggestConfig(server.url, timeout=0.3), RECORD)


def test_unconfigured_endpoint_makes_no_call() -> None:
    with pytest.raises(SuggestError, match="no LLM endpoint is configured"):
        suggest(SuggestConfig(""), RECORD)


@pytest.mark.parametrize("text", [GOOD, 'a {"when": {"trigger": "t"}, "do": {"directive": "d"}} then {"x": 1}',
                                  '{"when": {"trigger": "t \\" }"}, "do": {"directive": "d"}, "confidence": "0.4"}'])
def test_parsing_agrees_with_the_reference_extractor(text: str) -> None:
    from cauterule.extraction.extractor import _parse_candidate_json

    ref, ours = _parse_candidate_json(text), parse_suggestion(text)
    assert (ours.trigger, ours.context, ours.signature, ours.directive, ours.confidence, ours.reasoning) == (
        ref.when.trigger, ref.when.context, ref.when.signature, ref.do.directive, ref.confidence, ref.reasoning)


def test_a_blank_directive_is_kept_for_the_reviewer_where_the_reference_refuses_it() -> None:
    from cauterule.extraction.extractor import _parse_candidate_json

    text = '{"when": {"trigger": "t"}, "do": {}}'
    with pytest.raises(ValueError, match="directive"):
        _parse_candidate_json(text)
    assert parse_suggestion(text).directive == ""
