"""Webhooks are signed with Standard Webhooks v1: `webhook-id` (the Event ID, stable across
retries: deduplicate on it), `webhook-timestamp` (seconds) and `webhook-signature`, one `v1,`
entry per secret in force (two during the 24 hours after a rotation), each an HMAC-SHA256 over
`id.timestamp.body` keyed by the secret's bytes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Mapping, Optional, Sequence, Union, cast

from .errors import ClientError
from .types import WebhookPayload

# How far a webhook's timestamp may be from now, either way (the Standard Webhooks libraries' tolerance).
TOLERANCE_SECONDS = 5 * 60


def _refused(reason: str, message: str) -> ClientError:
    return ClientError("WEBHOOK_INVALID", message, reason)


def _key(secret: str) -> bytes:
    encoded = secret.removeprefix("whsec_")
    try:
        return base64.b64decode(encoded, validate=True)
    except binascii.Error as error:
        raise ValueError("A webhook signing secret is whsec_ followed by base64.") from error


def verify_webhook(
    headers: Mapping[str, str],
    body: Union[bytes, str],
    secrets: Union[str, Sequence[str]],
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> WebhookPayload:
    """Verifies a webhook the service sent, over the body exactly as received (before any JSON
    parsing). `secrets` are the workspace's signing secrets (`whsec_...`); during a rotation pass
    both, the newest first. Returns the parsed body; raises ClientError `WEBHOOK_INVALID` whose
    reason is `headers`, `timestamp` (more than `tolerance` seconds from now) or `signature` (no
    secret given signed these bytes)."""
    lower = {name.lower(): value for name, value in headers.items()}
    webhook_id, timestamp, signature = (lower.get(name, "") for name in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not webhook_id or not signature or not re.fullmatch(r"[0-9]{1,12}", timestamp):
        raise _refused("headers", "The webhook-id, webhook-timestamp and webhook-signature headers are required.")
    if abs((time.time() if now is None else now) - int(timestamp)) > tolerance:
        raise _refused("timestamp", f"The webhook timestamp is more than {tolerance} seconds away from now: a replay, or a clock far off.")
    raw = body.encode("utf-8") if isinstance(body, str) else body
    signed = b".".join([webhook_id.encode(), timestamp.encode(), raw])
    offered = [entry.split(",", 1)[1] for entry in signature.split() if entry.startswith("v1,")]
    for secret in [secrets] if isinstance(secrets, str) else secrets:
        expected = base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest()).decode()
        if any(hmac.compare_digest(expected, candidate) for candidate in offered):
            return cast(WebhookPayload, json.loads(raw))
    raise _refused("signature", "No signing secret given signed this webhook: a changed body, or a secret no longer in force.")
