"""Pure helpers of the LLM gateway (no network, no server)."""

import httpx
import openai
import pytest

from agentr_dagster.domain.failures import FailureClass
from agentr_dagster.llm.gateway import classify_api_error, parse_json_object, request_hash


def test_parse_json_object_tolerates_fences_and_raw_newlines():
    assert parse_json_object('```json\n{"a": "line1\nline2"}\n```') == {"a": "line1\nline2"}
    assert parse_json_object('Sure! {"a": 1} hope that helps') == {"a": 1}
    with pytest.raises(ValueError):
        parse_json_object("no json here")
    with pytest.raises(ValueError):
        parse_json_object("not json {")


def test_request_hash_changes_with_any_input():
    messages = [{"role": "user", "content": "x"}]
    base = request_hash("m", messages, 0.3, 100)
    assert base == request_hash("m", [{"role": "user", "content": "x"}], 0.3, 100)
    assert base != request_hash("m2", messages, 0.3, 100)
    assert base != request_hash("m", messages, 0.4, 100)
    assert base != request_hash("m", [{"role": "user", "content": "y"}], 0.3, 100)


def _status_error(status: int, headers=None):
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(status, headers=headers or {}, request=request, json={"error": {"message": "x"}})
    cls = {401: openai.AuthenticationError, 404: openai.NotFoundError, 429: openai.RateLimitError,
           400: openai.BadRequestError}.get(status, openai.InternalServerError)
    return cls("boom", response=response, body=None)


@pytest.mark.parametrize(
    "status,expected",
    [(401, FailureClass.permanent), (404, FailureClass.permanent), (400, FailureClass.permanent),
     (429, FailureClass.transient), (500, FailureClass.transient), (503, FailureClass.transient)],
)
def test_http_errors_are_classified(status, expected):
    assert classify_api_error(_status_error(status)).failure_class is expected


def test_retry_after_is_read():
    err = classify_api_error(_status_error(429, {"retry-after": "7"}))
    assert err.retry_after == 7.0


def test_connection_errors_are_transient():
    request = httpx.Request("POST", "http://127.0.0.1/v1")
    assert classify_api_error(openai.APIConnectionError(request=request)).failure_class is FailureClass.transient
    assert classify_api_error(openai.APITimeoutError(request=request)).failure_class is FailureClass.transient
