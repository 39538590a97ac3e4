"""What both SDK transports do alike (transports/_sdk.py), run once per provider."""

from __future__ import annotations

import logging

import httpx
import pytest

from contextfold.errors import AuthenticationError, ProviderUnavailableError, ResponseFormatError
from contextfold.messages import Message
from contextfold.transports import RetryPolicy
from tests.transports.conftest import RecordingSleep, SDKCase, drain


async def test_api_key_never_leaks(
    sdk: SDKCase, policy: RetryPolicy, caplog: pytest.LogCaptureFixture
) -> None:
    transport = sdk.make(api_key=sdk.key, retry=policy)
    sdk.api.post(sdk.path).mock(return_value=sdk.key_rejected(sdk.key))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(AuthenticationError) as caught:
        await transport.complete([Message.user("Hi")])
    exc = caught.value
    assert exc.provider == sdk.name
    for text in (str(exc), repr(exc), str(exc.body), caplog.text, repr(transport)):
        assert sdk.key not in text
    assert "[REDACTED]" in str(exc)
    assert "[REDACTED]" in str(exc.body)


async def test_injected_http_client_is_used(sdk: SDKCase, policy: RetryPolicy) -> None:
    route = sdk.api.post(sdk.path).respond(json=sdk.ok())
    async with httpx.AsyncClient(headers={"x-tenant": "acme"}) as http:
        transport = sdk.make(api_key="k", http_client=http, retry=policy)
        await transport.complete([Message.user("Hi")])
    assert route.calls[0].request.headers["x-tenant"] == "acme"


async def test_closing_closes_only_a_client_the_transport_built(
    sdk: SDKCase, policy: RetryPolicy
) -> None:
    async with sdk.make(api_key=sdk.key, retry=policy) as transport:
        assert repr(transport) == f"{type(transport).__name__}(model={transport.model.name!r})"
        assert not transport._client.is_closed()
    assert transport._client.is_closed()

    lender = sdk.make(api_key=sdk.key)  # its client is lent to the next transport
    async with sdk.make(client=lender._client) as borrower:
        assert borrower._client is not lender._client  # a copy with max_retries=0 ...
    assert not lender._client.is_closed()  # ... whose HTTP connections stay open
    await lender.aclose()
    assert lender._client.is_closed()


@pytest.mark.parametrize("content_type", ["text/html", "application/json"])
@pytest.mark.parametrize("mode", ["complete", "stream"])
async def test_a_gateway_page_in_a_200_is_a_response_format_error(
    sdk: SDKCase, policy: RetryPolicy, sleeps: RecordingSleep, content_type: str, mode: str
) -> None:
    """A proxy's HTML page with status 200 (even labelled JSON): typed, not retried."""
    transport = sdk.make(api_key=sdk.key, retry=policy)
    page = httpx.Response(
        200, headers={"content-type": content_type}, content=b"<html>502 from the proxy</html>"
    )
    route = sdk.api.post(sdk.path).mock(return_value=page)
    call = (
        transport.complete([Message.user("Hi")])
        if mode == "complete"
        else drain(transport.stream([Message.user("Hi")]), [])
    )
    with pytest.raises(ResponseFormatError) as caught:
        await call
    assert caught.value.provider == sdk.name
    assert route.call_count == 1
    assert sleeps.delays == []


async def test_each_retry_is_logged_once_and_the_final_failure_is_not(
    sdk: SDKCase, sleeps: RecordingSleep, caplog: pytest.LogCaptureFixture
) -> None:
    policy = RetryPolicy(max_attempts=3, sleep=sleeps, rng=lambda: 0.5)
    transport = sdk.make(api_key=sdk.key, retry=policy)
    busy = httpx.Response(503, json={"error": {"message": "busy", "type": "server_error"}})
    route = sdk.api.post(sdk.path).mock(return_value=busy)
    caplog.set_level(logging.WARNING, logger="contextfold.transports")
    with pytest.raises(ProviderUnavailableError):
        await transport.complete([Message.user("Hi")])
    assert route.call_count == 3
    assert sleeps.delays == [0.5, 1.0]
    retries = [r.getMessage() for r in caplog.records if r.name == "contextfold.transports"]
    assert len(retries) == 2
    assert "retry 1 of 2 in 0.50s" in retries[0]
    assert "retry 2 of 2 in 1.00s" in retries[1]
