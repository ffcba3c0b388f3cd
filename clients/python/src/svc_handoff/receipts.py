"""Decision receipts (docs/receipts.md): a compact JWS, EdDSA over Ed25519, signed with the key its
header names, issued by the service's public origin for the Session's workspace. A receipt that
verifies is also checked against the response it came with, so a valid receipt of another answer
is refused."""

from __future__ import annotations

import base64
import hashlib
import json
import time
import warnings
from typing import Any, Mapping, Optional, cast

from joserfc import errors, jwt
from joserfc.jwk import KeySet

from ._jcs import canonical
from .errors import ClientError
from .types import AcceptedResponse, Interaction, ReceiptClaims

RECEIPT_TYP = "svc-receipt+jwt"


def _invalid(reason: str, message: str) -> ClientError:
    return ClientError("RECEIPT_INVALID", message, reason)


def _sha256(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def receipt_kid(jws: str) -> Optional[str]:
    """The key the receipt's header names, or None (then it is refused as it is verified)."""
    encoded = jws.split(".", 1)[0]
    try:
        header = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except ValueError:
        return None
    kid = header.get("kid") if isinstance(header, dict) else None
    return kid if isinstance(kid, str) else None


def _expected_claims(audience: str, session_id: str, response: AcceptedResponse, interaction: Optional[Interaction]) -> dict[str, Any]:
    """The claims that must equal what the response (and, if given, the answered revision) says."""
    expected: dict[str, Any] = {
        "workspace_id": audience,
        "session_id": session_id,
        "event_id": response["event_id"],
        "jti": response["event_id"],
        "step_id": f"{session_id}/r{response['revision']}",
        "revision": response["revision"],
        "action_id": response["action_id"],
        "accepted_at": response["accepted_at"],
        "assurance": response["actor"]["assurance"],
        "input_sha256": _sha256(response["data"]),
    }
    if interaction is not None:
        expected["revision_sha256"] = _sha256(interaction)
    return expected


def verify_receipt(
    jws: str,
    *,
    keys: Mapping[str, Any],
    issuer: str,
    audience: str,
    session_id: str,
    response: AcceptedResponse,
    interaction: Optional[Interaction] = None,
    now: Optional[float] = None,
) -> ReceiptClaims:
    """Verifies a receipt's signature (against `keys`, the JWK Set the service publishes), issuer,
    audience and expiry, then that it is the receipt of `response`: the same Session, Event,
    revision, action, acceptance time and input (and, with `interaction`, the revision's content).
    Returns its claims; raises ClientError `RECEIPT_INVALID` with a reason naming what failed."""
    if response.get("receipt") not in (None, jws):
        raise _invalid("not_this_response", "The receipt is not the one the response carries.")
    if receipt_kid(jws) is None:
        raise _invalid("no_kid", "The receipt header names no key.")
    try:
        key_set = KeySet.import_key_set(cast(Any, keys))
        with warnings.catch_warnings():
            # joserfc warns that RFC 9864 deprecates the name "EdDSA" (for "Ed25519"); the
            # service's receipts name it so, and the key set pins the curve to Ed25519.
            warnings.simplefilter("ignore", errors.SecurityWarning)
            token = jwt.decode(jws, key_set, algorithms=["EdDSA"])
    except errors.BadSignatureError as error:
        raise _invalid("signature", "The receipt signature does not verify.") from error
    except (errors.UnsupportedAlgorithmError, errors.MissingAlgorithmError) as error:
        raise _invalid("algorithm", "The receipt is not signed with EdDSA.") from error
    except ValueError as error:
        # joserfc finds no key for the kid with a ValueError; a malformed token is a DecodeError (also one).
        reason = "malformed" if isinstance(error, errors.JoseError) else "no_matching_key"
        raise _invalid(reason, f"The receipt cannot be verified: {error}.") from error
    if token.header.get("typ") != RECEIPT_TYP:
        raise _invalid("typ_mismatch", f"The receipt's typ is not {RECEIPT_TYP}.")
    registry = jwt.JWTClaimsRegistry(
        now=int(now if now is not None else time.time()),
        iss={"essential": True, "value": issuer},
        aud={"essential": True, "value": audience},
        exp={"essential": True},
    )
    try:
        registry.validate(token.claims)
    except errors.ExpiredTokenError as error:
        raise _invalid("expired", "The receipt has expired.") from error
    except errors.ClaimError as error:
        claim = getattr(error, "claim", "claim")
        raise _invalid(f"{claim}_mismatch", f"The receipt's {claim} is not the one expected.") from error
    claims = cast(ReceiptClaims, token.claims)
    for claim, value in _expected_claims(audience, session_id, response, interaction).items():
        if claims.get(claim) != value:
            raise _invalid(f"{claim}_mismatch", f"The receipt's {claim} does not match the response it came with.")
    return claims
