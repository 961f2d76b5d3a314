"""uvicorn's HTTP/1.1 protocol (h11) with the limits it lacks: a deadline for a request's head, an
idle timeout while its body arrives, and a cap on open connections.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) and answers 503 past
``limit_concurrency``, but only once a request head is complete: a client that sends one header
line a second (slow-loris) holds its connection, and a file descriptor, for as long as it likes.
Here a head must be complete within ``header_timeout`` seconds of its first byte (or of the
connection), a body may pause at most ``body_timeout`` seconds between bytes, and past
``max_connections`` the connection that has waited longest for a request head is closed to make
room (a stalled one, never one whose request is running).
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from rootcause.errors import UsageError


@dataclass(frozen=True)
class ServerLimits:
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 512
    limit_concurrency: int = 400
    keep_alive: float = 5.0

    @classmethod
    def from_env(cls) -> ServerLimits:
        env = os.environ

        def number(name: str, default: float, kind: type[float] | type[int]) -> Any:
            raw = env.get(name)
            if raw is None or raw == "":
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise UsageError(f"{name}: not a number: {raw!r}") from None
            if value <= 0:
                raise UsageError(f"{name}: must be positive, got {raw!r}")
            return value

        return cls(
            header_timeout=number("ROOTCAUSE_HEADER_TIMEOUT", cls.header_timeout, float),
            body_timeout=number("ROOTCAUSE_BODY_TIMEOUT", cls.body_timeout, float),
            max_connections=number("ROOTCAUSE_MAX_CONNECTIONS", cls.max_connections, int),
            limit_concurrency=number("ROOTCAUSE_LIMIT_CONCURRENCY", cls.limit_concurrency, int),
            keep_alive=number("ROOTCAUSE_KEEP_ALIVE", cls.keep_alive, float),
        )

    def uvicorn_options(self) -> dict[str, Any]:
        """uvicorn's own settings for these limits (h11 keeps its 16 KiB cap on a request head)."""
        return {
            "http": "rootcause.adapters.web.server:GuardedH11Protocol",
            "timeout_keep_alive": self.keep_alive,
            "limit_concurrency": self.limit_concurrency,
            "h11_max_incomplete_event_size": 16 << 10,
        }


class GuardedH11Protocol(H11Protocol):
    """H11Protocol with a head deadline, a body idle timeout and a connection cap."""

    limits: ServerLimits | None = None  # read from the environment once per process

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if GuardedH11Protocol.limits is None:
            GuardedH11Protocol.limits = ServerLimits.from_env()
        self._limits = GuardedH11Protocol.limits
        self._timer: asyncio.TimerHandle | None = None
        self._waiting_since: float | None = None  # when this connection began to wait for a head

    # -- the timers ---------------------------------------------------------------------------
    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.SEND_BODY and self.flow.read_paused:
            self._arm(self._limits.body_timeout)  # we stopped reading, not the client: wait on
            return
        self.transport.close()  # a head not complete in time, or a body that stopped arriving

    def _follow(self) -> None:
        """Arm the timer that fits where the request is."""
        state = self.conn.their_state
        if state is h11.IDLE:
            if self._timer is None:  # a deadline from the head's first byte, never reset by the next ones
                self._arm(self._limits.header_timeout)
            if self._waiting_since is None:
                self._waiting_since = time.monotonic()
        elif state is h11.SEND_BODY:
            self._waiting_since = None
            self._arm(self._limits.body_timeout)  # reset by every piece of the body
        else:
            self._waiting_since = None
            self._disarm()

    # -- uvicorn's protocol -------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self._limits.max_connections and not self._evict_a_stalled_connection():
            transport.close()
            return
        self._waiting_since = time.monotonic()
        self._arm(self._limits.header_timeout)

    def _evict_a_stalled_connection(self) -> bool:
        stalled = [
            c
            for c in self.connections
            if c is not self and isinstance(c, GuardedH11Protocol) and c._waiting_since is not None
        ]
        if not stalled:
            return False
        oldest = min(stalled, key=lambda c: c._waiting_since or 0.0)
        oldest.transport.close()
        return True

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.transport.is_closing():
            self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()  # uvicorn's keep-alive timer watches the idle connection now
        self._waiting_since = None if self.transport.is_closing() else time.monotonic()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._waiting_since = None
        super().connection_lost(exc)
