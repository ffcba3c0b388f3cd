"""The client's logic, written once as plans (see _steps.py) that the sync and async clients run."""

from __future__ import annotations

import math
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from itertools import count
from typing import Any, Mapping, Optional, Union, cast
from urllib.parse import quote, urlencode, urlsplit

from ._backoff import Backoff, Retry, delay
from ._steps import Call, Emit, Failed, Plan, Reply, Sleep, Try, Unknown, json_body
from .errors import ClientError, ServiceError
from .receipts import receipt_kid, verify_receipt
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

# The longest a request may be held waiting (Prefer: wait=N), in seconds: the service's cap too.
WAIT_SECONDS_MAX = 55
# Sessions remembered (their last ETag and body): an agent that runs for months must not keep every one.
KNOWN_MAX = 1000


def route(*segments: str) -> str:
    """A path of the API from its segments, each one escaped."""
    return "/" + "/".join(quote(segment, safe="") for segment in segments)


@dataclass(frozen=True)
class Known:
    """What the client last saw of a Session: its ETag, and its body unless it only created it."""

    etag: str
    # None: created by this client and not read since (as created: active and unanswered).
    session: Optional[Session]
    # When its link stops taking answers; None from a service that does not say.
    link_expires_at: Optional[str]


@dataclass(frozen=True)
class Read:
    known: Known
    changed: bool
    held: bool


def send(retry: Retry, call: Call) -> Plan[Reply]:
    """One call: only an unknown outcome is retried, only for a repeatable call, with the same bytes."""
    attempts = max(1, retry.attempts) if call.repeatable else 1
    for attempt in count(1):
        outcome = yield Try(call)
        if isinstance(outcome, Reply):
            return outcome
        if isinstance(outcome, Failed):
            raise outcome.error
        assert isinstance(outcome, Unknown)
        if attempt >= attempts:
            tried = f"Tried {attempt} times." if call.repeatable else "Not retried: repeating it could act twice."
            error = ClientError("OUTCOME_UNKNOWN", f"{outcome.error.message} {tried}", status=outcome.error.status)
            raise error from outcome.error.__cause__
        yield Sleep(delay(retry.backoff, attempt - 1))
    raise AssertionError("unreachable")


def expiry(link_expires_at: Optional[str]) -> float:
    """When a link expires, in seconds since the epoch; never when the service does not say."""
    if link_expires_at is None:
        return math.inf
    try:
        return datetime.fromisoformat(link_expires_at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return math.inf


def held_for(asked: Optional[float], remaining: Optional[float]) -> int:
    """What a read asks to be held for: `asked` (at most WAIT_SECONDS_MAX), and no longer than what remains."""
    seconds = min(WAIT_SECONDS_MAX, max(1, math.floor(asked if asked is not None else WAIT_SECONDS_MAX)))
    return seconds if remaining is None else max(1, min(seconds, math.ceil(remaining)))


def answer_of(session_id: str, known: Known, now: float) -> Optional[Answered]:
    """The answer to the current revision, None while one may still come; raises when none can."""
    session = known.session
    if session is not None:
        if "status" not in session:
            raise ClientError("NO_RESPONSE_POSSIBLE", f"{session_id} is a display Session: it takes no answer.")
        responses = session.get("responses", [])
        if responses and responses[-1]["revision"] == session["revision"]:
            latest = responses[-1]
            return Answered(session=session, response=latest, receipt=latest["receipt"], etag=known.etag)
        if session["status"] == "completed":
            raise ClientError("NO_RESPONSE_POSSIBLE", f"{session_id} was completed before revision {session['revision']} was answered.")
    if now >= expiry(known.link_expires_at):
        raise ClientError("LINK_EXPIRED", f"{session_id}'s link expired at {known.link_expires_at} before its current revision was answered.")
    return None


class Core:
    """The owner API's calls as plans, and what the client remembers between them."""

    def __init__(
        self,
        base_url: str,
        *,
        retry: Optional[Retry],
        poll: Optional[Backoff],
        issuer: Optional[str],
        workspace_id: Optional[str],
        receipt_keys: Optional[Mapping[str, Any]],
        receipt_keys_url: Optional[str],
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry or Retry()
        self.poll = poll or Backoff(0.5, 10.0)
        parts = urlsplit(self.base_url)
        self.issuer = issuer or f"{parts.scheme}://{parts.netloc}"
        # The audience of this credential's receipts: given, or read once from GET /v1/me.
        self.workspace_id = workspace_id
        self.keys_given = receipt_keys is not None
        self.keys: Optional[Mapping[str, Any]] = receipt_keys
        self.keys_url = receipt_keys_url or f"{self.base_url}/.well-known/svc-receipt-keys.json"
        self.known: OrderedDict[str, Known] = OrderedDict()

    def _send(self, call: Call) -> Plan[Reply]:
        return send(self.retry, call)

    def _body(self, call: Call) -> Plan[Any]:
        return (yield from self._send(call)).body

    def get(self, path: str) -> Plan[Any]:
        return self._body(Call("GET", path, expect=(200,), repeatable=True))

    def remember(self, session_id: str, etag: Optional[str], session: Optional[Session], link_expires_at: Optional[str]) -> None:
        if etag is None:
            return
        self.known[session_id] = Known(etag, session, link_expires_at)
        self.known.move_to_end(session_id)
        while len(self.known) > KNOWN_MAX:
            self.known.popitem(last=False)

    def etag_of(self, session_id: str) -> Optional[str]:
        known = self.known.get(session_id)
        return known.etag if known else None

    def me(self) -> Plan[Me]:
        return self.get("/v1/me")

    def audience(self) -> Plan[str]:
        if self.workspace_id is None:
            self.workspace_id = (yield from self.me())["workspace_id"]
        return self.workspace_id

    def create_session(self, interaction: Interaction, fields: Mapping[str, Any]) -> Plan[CreatedSession]:
        """Without a client_reference_id never retried: the service refuses Idempotency-Key on
        create (the link is stored only as a hash), so a repeat could create a second Session; an
        unknown outcome is OUTCOME_UNKNOWN.

        With one, an unknown outcome is settled by the reference, which one live Session of the
        workspace holds at most: the Session found by it (GET /v1/sessions?client_reference_id=)
        is the lost create's, returned with a new link (the lost answer's was never seen, and is
        revoked); none found, the create is tried again (a lost create that commits meanwhile
        answers it 409 CLIENT_REFERENCE_IN_USE naming its Session, returned the same way). A
        reference another create holds is still 409 on the first try."""
        body = {"interaction": interaction, **{name: value for name, value in fields.items() if value is not None}}
        call = Call("POST", "/v1/sessions", expect=(201,), repeatable=False, body=json_body(body))
        reference = fields.get("client_reference_id")
        if reference is None:
            return (yield from self.post_session(interaction, call))
        attempts = max(1, self.retry.attempts)
        for attempt in count(1):
            try:
                return (yield from self.post_session(interaction, call))
            except ServiceError as refused:
                # After a lost answer, the reference is held by the create whose answer was lost.
                if attempt > 1 and refused.code == "CLIENT_REFERENCE_IN_USE" and "session_id" in refused.details:
                    return (yield from self.found_again(refused.details["session_id"]))
                raise
            except ClientError as error:
                if error.code != "OUTCOME_UNKNOWN" or attempt >= attempts:
                    raise
            listed = yield from self.get("/v1/sessions?" + urlencode({"client_reference_id": reference, "limit": 1}))
            if listed["data"]:
                return (yield from self.found_again(listed["data"][0]["id"]))
            yield Sleep(delay(self.retry.backoff, attempt - 1))
        raise AssertionError("unreachable")

    def post_session(self, interaction: Interaction, call: Call) -> Plan[CreatedSession]:
        reply = yield from self._send(call)
        created = reply.body
        # A display Session never changes, so only an interactive one is worth remembering as created.
        if interaction.get("mode") == "interactive":
            self.remember(created["id"], reply.headers.get("etag"), None, created.get("link_expires_at"))
        return cast(CreatedSession, created)

    def found_again(self, session_id: str) -> Plan[CreatedSession]:
        """A Session whose create answer was lost, as a create answers it: with a link of its own
        (POST /v1/sessions/{id}/link: retried, as a repeat only revokes a link nobody saw)."""
        reply = yield from self._send(Call("POST", route("v1", "sessions", session_id, "link"), expect=(200,), repeatable=True))
        reissued = reply.body
        session = {name: value for name, value in reissued.items() if name != "human_url"}
        self.remember(session_id, reply.headers.get("etag"), cast(Session, session), reissued.get("link_expires_at"))
        names = ("id", "client_reference_id", "revision", "human_url", "link_expires_at")
        return cast(CreatedSession, {name: reissued[name] for name in names if name in reissued})

    def read(self, session_id: str, created_counts: bool = False, wait_seconds: Optional[int] = None) -> Plan[Read]:
        """One conditional read (If-None-Match with the last ETag): an unchanged Session costs a 304
        and no body. `created_counts`: a tag from create alone may be sent too, for a caller that
        needs no body while nothing changed."""
        known = self.known.get(session_id)
        conditional = known is not None and (known.session is not None or created_counts)
        headers: dict[str, str] = {}
        hold = None
        if known is not None and conditional:
            headers["if-none-match"] = known.etag
            if wait_seconds is not None:
                headers["prefer"] = f"wait={wait_seconds}"
                hold = wait_seconds
        reply = yield from self._send(Call("GET", route("v1", "sessions", session_id), expect=(200, 304), repeatable=True, headers=headers, hold=hold))
        held = reply.headers.get("preference-applied") is not None
        if reply.status == 304 and known is not None and conditional:
            return Read(known, changed=False, held=held)
        etag = reply.headers.get("etag")
        if reply.status != 200 or reply.body is None or etag is None:
            raise ClientError("UNEXPECTED_RESPONSE", f"GET {session_id} answered {reply.status} without a body and an ETag.", status=reply.status)
        self.remember(session_id, etag, reply.body, reply.body.get("link_expires_at"))
        return Read(Known(etag, reply.body, reply.body.get("link_expires_at")), changed=True, held=held)

    def get_session(self, session_id: str) -> Plan[Session]:
        session = (yield from self.read(session_id)).known.session
        assert session is not None
        return session

    def get_surface(self, session_id: str, revision: int) -> Plan[Any]:
        return self.get(route("v1", "sessions", session_id, "surfaces", str(revision)))

    def change(self, session_id: str, path: str, method: str, body: Any, if_match: Optional[str], idempotency_key: Optional[str]) -> Plan[Session]:
        """PATCH, complete and extend: If-Match from the last read, retried on an unknown outcome with the same key, body and If-Match."""
        if if_match is None:
            known = self.known.get(session_id)
            if_match = known.etag if known else (yield from self.read(session_id)).known.etag
        headers = {"if-match": if_match, "idempotency-key": idempotency_key or str(uuid.uuid4())}
        content = None if body is None else json_body(body)
        reply = yield from self._send(Call(method, path, expect=(200,), repeatable=True, body=content, headers=headers))
        self.remember(session_id, reply.headers.get("etag"), reply.body, reply.body.get("link_expires_at"))
        return cast(Session, reply.body)

    def publish(self, session_id: str, interaction: Interaction, notify: Optional[NotifyPlan], if_match: Optional[str], idempotency_key: Optional[str]) -> Plan[Session]:
        body: dict[str, Any] = {"interaction": interaction}
        if notify is not None:
            body["notify"] = notify
        return self.change(session_id, route("v1", "sessions", session_id), "PATCH", body, if_match, idempotency_key)

    def complete(self, session_id: str, if_match: Optional[str], idempotency_key: Optional[str]) -> Plan[Session]:
        return self.change(session_id, route("v1", "sessions", session_id, "complete"), "POST", None, if_match, idempotency_key)

    def extend(self, session_id: str, link_expires_at: Union[str, datetime], if_match: Optional[str], idempotency_key: Optional[str]) -> Plan[Session]:
        at = link_expires_at if isinstance(link_expires_at, str) else link_expires_at.isoformat().replace("+00:00", "Z")
        return self.change(session_id, route("v1", "sessions", session_id, "extend"), "POST", {"link_expires_at": at}, if_match, idempotency_key)

    def session_events(self, session_id: str) -> Plan[SessionEvents]:
        return self.get(route("v1", "sessions", session_id, "events"))

    def deliveries(self, session_id: str) -> Plan[Deliveries]:
        return self.get(route("v1", "sessions", session_id, "deliveries"))

    def redeliver(self, session_id: str, event_id: str) -> Plan[None]:
        """A delivery already pending is kept, so a repeat is harmless: retried."""
        yield from self._send(Call("POST", route("v1", "sessions", session_id, "events", event_id, "redeliver"), expect=(202,), repeatable=True))

    def register_webhook(self, url: str, events: Optional[list[str]]) -> Plan[WebhookRegistration]:
        """Never retried: a repeat would replace the endpoint again."""
        body: dict[str, Any] = {"url": url} if events is None else {"url": url, "events": events}
        return self._body(Call("PUT", "/v1/webhook", expect=(201,), repeatable=False, body=json_body(body)))

    def get_webhook(self) -> Plan[WebhookOverview]:
        return self.get("/v1/webhook")

    def verify_webhook_endpoint(self) -> Plan[WebhookEndpointVerified]:
        return self._body(Call("POST", "/v1/webhook/verify", expect=(200,), repeatable=True))

    def rotate_webhook_secret(self) -> Plan[WebhookRotation]:
        """Never retried: each call creates a secret."""
        return self._body(Call("POST", "/v1/webhook/secrets/rotate", expect=(201,), repeatable=False))

    def wait_for_response(self, session_id: str, timeout: Optional[float], wait_seconds: Optional[float], poll: Optional[Backoff]) -> Plan[Answered]:
        """The answer to the Session's current revision: at once if it has one, else once the person
        answers. Each read is conditional and asks to be held until the Session changes (Prefer:
        wait); against a service that answers without holding, reads are spaced by `poll`, growing
        with jitter while nothing changes. No wait goes past the link's expiry or the timeout."""
        spacing = poll or self.poll
        deadline = None if timeout is None else time.monotonic() + timeout
        expires_at: Optional[str] = None
        quiet = 0
        first = True
        while True:
            # The first read is not held: what the client knows may already be the answer (a 304
            # says so at once). A held read ends by the deadline and the link's expiry at the latest.
            remaining = min(math.inf if deadline is None else deadline - time.monotonic(), expiry(expires_at) - time.time())
            hold = None if first or remaining <= 0 else held_for(wait_seconds, None if math.isinf(remaining) else remaining)
            first = False
            read = yield from self.read(session_id, created_counts=True, wait_seconds=hold)
            expires_at = read.known.link_expires_at
            answered = answer_of(session_id, read.known, time.time())
            if answered is not None:
                return answered
            if deadline is not None and time.monotonic() >= deadline:
                raise ClientError("WAIT_TIMEOUT", f"No answer to {session_id} within {timeout} s.")
            if read.held:
                continue
            quiet = 0 if read.changed else quiet + 1
            # Never past the expiry or the deadline: the read just after it is the last one.
            pause = min(delay(spacing, quiet), expiry(expires_at) - time.time(), math.inf if deadline is None else deadline - time.monotonic())
            yield Sleep(max(0.0, pause))

    def feed(self, after: Optional[str], limit: Optional[int], wait_seconds: Optional[float], poll: Optional[Backoff]) -> Plan[None]:
        """The workspace's event feed from `after`, page by page; at its end each read waits for the
        next event (Prefer: wait; spaced by `poll` against a service that does not hold). Endless."""
        spacing = poll or self.poll
        quiet = 0
        while True:
            query = {name: value for name, value in (("after", after), ("limit", limit)) if value is not None}
            at_end = quiet > 0
            hold = held_for(wait_seconds, None) if at_end else None
            call = Call(
                "GET",
                "/v1/events" + (f"?{urlencode(query)}" if query else ""),
                expect=(200,),
                repeatable=True,
                headers={"prefer": f"wait={hold}"} if hold is not None else {},
                hold=hold,
            )
            reply = yield from self._send(call)
            page = reply.body
            before, after = after, page["next_cursor"]
            for index, event in enumerate(page["data"]):
                yield Emit(FeedItem(event, page["next_cursor"] if index == len(page["data"]) - 1 else (before or "")))
            if page["data"] or before != after:
                quiet = 0
                continue
            # The end: the next read waits there; one the service did not hold is spaced out first.
            if at_end and reply.headers.get("preference-applied") is None:
                yield Sleep(delay(spacing, quiet - 1))
            quiet += 1

    def receipt_keys(self, refresh: bool) -> Plan[Mapping[str, Any]]:
        """The service's key set, fetched once (and again when a receipt names a key it lacks: a rotation)."""
        if self.keys is None or (refresh and not self.keys_given):
            call = Call("GET", "", expect=(200,), repeatable=True, authorized=False, url=self.keys_url)
            try:
                self.keys = (yield from self._send(call)).body
            except ClientError as error:
                failed = ClientError("RECEIPT_KEYS_UNAVAILABLE", f"The receipt key set could not be read: {error.message}", status=error.status)
                raise failed from error
        assert self.keys is not None
        return self.keys

    def verify_receipt(self, session_id: str, response: AcceptedResponse, audience: Optional[str], now: Optional[float]) -> Plan[ReceiptClaims]:
        """Verifies the response's receipt and binds it to the response and to the revision it
        answered (read from the service). The audience is the Session's workspace: `audience` when
        given (a claimed trial's Session names its trial's workspace), else the credential's."""
        jws = response.get("receipt")
        if jws is None:
            raise ClientError("RECEIPT_INVALID", "The response carries no receipt.", "missing")
        surface = yield from self.get_surface(session_id, response["revision"])
        workspace = audience if audience is not None else (yield from self.audience())
        keys = yield from self.receipt_keys(refresh=False)
        kid = receipt_kid(jws)
        if kid is not None and all(key.get("kid") != kid for key in keys.get("keys", [])):
            keys = yield from self.receipt_keys(refresh=True)
        return verify_receipt(
            jws,
            keys=keys,
            issuer=self.issuer,
            audience=workspace,
            session_id=session_id,
            response=response,
            interaction=surface["interaction"],
            now=now,
        )
