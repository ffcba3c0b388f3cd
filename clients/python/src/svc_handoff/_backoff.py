"""Growing delays for retries and polls."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Backoff:
    """Delays doubling from `min_delay` to `max_delay`, in seconds."""

    min_delay: float
    max_delay: float


@dataclass(frozen=True)
class Retry:
    """For a call whose outcome is unknown: tries in all, and the waits between them."""

    attempts: int = 4
    backoff: Backoff = Backoff(0.25, 4.0)


def delay(backoff: Backoff, attempt: int, draw: Callable[[], float] = random.random) -> float:
    """The wait before try `attempt` (0 for the first): doubling up to the ceiling, then drawn
    from its upper half, so many agents started together spread out instead of polling in step."""
    ceiling = min(backoff.max_delay, backoff.min_delay * 2.0 ** min(attempt, 30))
    return ceiling / 2 + draw() * ceiling / 2
