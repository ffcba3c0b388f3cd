"""The asynchronous client: AsyncClient, the source of Client (see tools/unasync.py)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, AsyncIterator, Mapping, Optional, TypeVar, Union

import httpx

from ._backoff import Backoff, Retry
from ._core import Core
from ._steps import Emit, Plan, Sleep, Step, Try
from ._transport import outcome_of_answer, outcome_of_error, request_args
from .types import (
    AcceptedResponse,
    Answered,
    CreatedSession,
    Deliveries,
    FeedItem,
    Interaction,
    Me,
    NotifyPlan,
    ReceiptClaims,
    Session,
    SessionEvents,
    WebhookEndpointVerified,
    WebhookOverview,
    WebhookRegistration,
    WebhookRotation,
)

T = TypeVar("T")


class AsyncClient:
    """As Client, on httpx.AsyncClient; each call is a coroutine, events() an async iterator.

    The owner API of the hosted handoff service, typed from its contract.

    Reads are conditional (If-None-Match), changes carry If-Match from the last read, and a change
    whose outcome is unknown is retried with the same Idempotency-Key, body and If-Match. Every
    failure is a HandoffError (svc_handoff.errors). Use it as an async context manager, or await aclose().

    `retry`: tries and waits for a call whose outcome is unknown (4 tries, 0.25 s doubling to 4 s).
    `poll`: wait_for_response's and events()'s waits against a service that does not hold
    requests (0.5 s doubling to 10 s). `issuer`: the service's public origin (the base URL's unless
    given). `workspace_id`: the audience of receipts (GET /v1/me, read once, unless given).
    `receipt_keys`: a JWK Set at hand instead of the service's (`receipt_keys_url`, read once).
    `http`: an httpx.AsyncClient of your own (proxies, TLS); closed by aclose() only when made here.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        retry: Optional[Retry] = None,
        poll: Optional[Backoff] = None,
        issuer: Optional[str] = None,
        workspace_id: Optional[str] = None,
        receipt_keys: Optional[Mapping[str, Any]] = None,
        receipt_keys_url: Optional[str] = None,
        http: Optional[httpx.AsyncClient] = None,
    ) -> None:
        self._core = Core(base_url, retry=retry, poll=poll, issuer=issuer, workspace_id=workspace_id, receipt_keys=receipt_keys, receipt_keys_url=receipt_keys_url)
        self._api_key = api_key
        self._timeout = timeout
        self._owns_http = http is None
        self._http = http or httpx.AsyncClient()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _perform(self, step: Step) -> Any:
        if isinstance(step, Sleep):
            await asyncio.sleep(step.seconds)
            return None
        assert isinstance(step, Try)
        call = step.call
        try:
            response = await self._http.request(**request_args(self._core.base_url, self._api_key, call, self._timeout))
        except httpx.TransportError as error:
            return outcome_of_error(call, self._core.base_url, error)
        return outcome_of_answer(call, response)

    async def _run(self, plan: Plan[T]) -> T:
        try:
            step = next(plan)
            while True:
                step = plan.send(await self._perform(step))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def _iterate(self, plan: Plan[None]) -> AsyncIterator[Any]:
        value: Any = None
        while True:
            step = plan.send(value)
            if isinstance(step, Emit):
                value = None
                yield step.item
            else:
                value = await self._perform(step)

    def etag_of(self, session_id: str) -> Optional[str]:
        """The last ETag this client saw for the Session, if any."""
        return self._core.etag_of(session_id)

    async def me(self) -> Me:
        """The workspace the credential acts in (the audience of its receipts), and its kind."""
        return await self._run(self._core.me())

    async def create_session(
        self,
        interaction: Interaction,
        *,
        notify: Optional[NotifyPlan] = None,
        decision: Optional[Mapping[str, Any]] = None,
        client_reference_id: Optional[str] = None,
    ) -> CreatedSession:
        """Creates a Session. `notify`: whom the service reaches for it; `decision` and
        `client_reference_id` are sent as given. Without a reference never retried (a repeat could
        create a second Session): an unknown outcome raises OUTCOME_UNKNOWN. With one, an unknown
        outcome is settled by it: the Session that holds it is returned with a new link (the lost
        answer's is revoked), or, when none does, the create is tried again."""
        fields = {"notify": notify, "decision": decision, "client_reference_id": client_reference_id}
        return await self._run(self._core.create_session(interaction, fields))

    async def get_session(self, session_id: str) -> Session:
        return await self._run(self._core.get_session(session_id))

    async def get_surface(self, session_id: str, revision: int) -> Any:
        """One stored revision exactly as the person saw it."""
        return await self._run(self._core.get_surface(session_id, revision))

    async def publish(
        self,
        session_id: str,
        interaction: Interaction,
        *,
        notify: Optional[NotifyPlan] = None,
        if_match: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Session:
        """Publishes the next revision of an interactive Session (while active or responded).
        If-Match is the last ETag read unless given; the Idempotency-Key is generated unless given."""
        return await self._run(self._core.publish(session_id, interaction, notify, if_match, idempotency_key))

    async def complete(self, session_id: str, *, if_match: Optional[str] = None, idempotency_key: Optional[str] = None) -> Session:
        """Completes an interactive Session: it takes no further answer or revision."""
        return await self._run(self._core.complete(session_id, if_match, idempotency_key))

    async def extend(
        self, session_id: str, link_expires_at: Union[str, datetime], *, if_match: Optional[str] = None, idempotency_key: Optional[str] = None
    ) -> Session:
        """Moves the Session's link deadline later; later waits run to the new deadline."""
        return await self._run(self._core.extend(session_id, link_expires_at, if_match, idempotency_key))

    async def wait_for_response(
        self, session_id: str, *, timeout: Optional[float] = None, wait_seconds: Optional[float] = None, poll: Optional[Backoff] = None
    ) -> Answered:
        """The answer to the Session's current revision, at once if it has one, else once the
        person answers: reads held by the service (Prefer: wait, `wait_seconds`, at most 55),
        polling with backoff against a service that does not hold. Raises ClientError WAIT_TIMEOUT
        after `timeout` seconds, NO_RESPONSE_POSSIBLE (a display Session, or completed unanswered)
        and LINK_EXPIRED (a read at or after the link's expiry found it unanswered)."""
        return await self._run(self._core.wait_for_response(session_id, timeout, wait_seconds, poll))

    async def session_events(self, session_id: str) -> SessionEvents:
        """The Session's events list (GET /v1/sessions/{id}/events)."""
        return await self._run(self._core.session_events(session_id))

    def events(
        self, *, after: Optional[str] = None, limit: Optional[int] = None, wait_seconds: Optional[float] = None, poll: Optional[Backoff] = None
    ) -> AsyncIterator[FeedItem]:
        """The workspace's event feed from `after` (a FeedItem's cursor), page by page; at its end it
        waits for the next event (held reads). Never ends on its own: leave the loop to stop."""
        return self._iterate(self._core.feed(after, limit, wait_seconds, poll))

    async def verify_receipt(
        self, session_id: str, response: AcceptedResponse, *, audience: Optional[str] = None, now: Optional[float] = None
    ) -> ReceiptClaims:
        """Verifies a response's receipt (Ed25519 JWS) against the service's key set: signature,
        issuer, audience (the credential's workspace from GET /v1/me unless given), expiry, and
        that it is this response's receipt for the revision it answered. Returns its claims."""
        return await self._run(self._core.verify_receipt(session_id, response, audience, now))

    async def deliveries(self, session_id: str) -> Deliveries:
        return await self._run(self._core.deliveries(session_id))

    async def redeliver(self, session_id: str, event_id: str) -> None:
        """Queues an accepted Event again to the verified endpoint."""
        await self._run(self._core.redeliver(session_id, event_id))

    async def register_webhook(self, url: str, *, events: Optional[list[str]] = None) -> WebhookRegistration:
        """Registers (or replaces) the workspace's webhook endpoint; the first shows the secret once. Never retried."""
        return await self._run(self._core.register_webhook(url, events))

    async def get_webhook(self) -> WebhookOverview:
        return await self._run(self._core.get_webhook())

    async def verify_webhook_endpoint(self) -> WebhookEndpointVerified:
        """Sends the endpoint a signed challenge; it must echo it to become verified."""
        return await self._run(self._core.verify_webhook_endpoint())

    async def rotate_webhook_secret(self) -> WebhookRotation:
        """A new signing secret, shown once; the previous one keeps signing for 24 hours. Never retried."""
        return await self._run(self._core.rotate_webhook_secret())
