"""What the service asks of a store, and the plain records that cross that line."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from rootcause.core.model import Entry
from rootcause.core.stats import Kind, Result, Tally


@dataclass(frozen=True)
class TokenRecord:
    id: int
    name: str
    created_at: dt.datetime
    revoked: bool = False


@dataclass(frozen=True)
class RateRule:
    """At most ``limit`` writes per ``window_s`` seconds for one bucket (a token, an address)."""

    bucket: str
    limit: int
    window_s: int


OutcomeSource = Literal["field", "reproducer"]
SOURCES: tuple[OutcomeSource, ...] = ("field", "reproducer")


@dataclass(frozen=True)
class NewOutcome:
    entry_id: str
    kind: Kind
    index: int
    action: str
    result: Result
    token_id: int
    versions: dict[str, str] = field(default_factory=dict)
    note: str | None = None
    idempotency_key: str | None = None  # a retry with this key returns the stored report
    request_hash: str | None = None  # what the key was first used for
    source: OutcomeSource = "field"


@dataclass(frozen=True)
class StoredOutcome:
    uid: str
    entry_id: str
    kind: Kind
    index: int
    action: str
    result: Result
    versions: dict[str, str]
    note: str | None
    reporter: str
    created_at: dt.datetime  # UTC, naive
    replayed: bool = False  # an earlier request with the same idempotency key stored it
    source: OutcomeSource = "field"

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.uid,
            "entry_id": self.entry_id,
            "kind": self.kind,
            "index": self.index,
            "action": self.action,
            "result": self.result,
            "versions": dict(self.versions),
            "note": self.note,
            "reporter": self.reporter,
            "created_at": self.created_at.replace(tzinfo=dt.UTC).isoformat(),
            "source": self.source,
        }


class Store(Protocol):
    """The database behind the service: an index of the canon, outcomes, tokens, limits."""

    kind: str  # "sqlite" or "postgresql"

    def init_schema(self) -> None: ...
    def ping(self) -> None: ...
    def close(self) -> None: ...
    def describe(self) -> str: ...

    # the index of the canon
    def fingerprint(self) -> str | None: ...
    def rebuild_index(self, entries: Sequence[Entry], fingerprint: str) -> int: ...
    def sync_index(self, entries: Sequence[Entry], fingerprint: str) -> bool: ...
    def indexed_count(self) -> int: ...
    def search(self, terms: Sequence[str], limit: int = 20) -> list[tuple[str, float]]: ...

    # who may write
    def create_token(self, name: str, token_hash: str) -> TokenRecord: ...
    def find_token(self, token_hash: str) -> TokenRecord | None: ...
    def list_tokens(self) -> list[TokenRecord]: ...
    def revoke_token(self, name: str) -> bool: ...

    # outcome reports
    def add_outcome(
        self, new: NewOutcome, rules: Sequence[RateRule], now: dt.datetime | None = None
    ) -> StoredOutcome: ...
    def check_limits(self, rules: Sequence[RateRule], now: dt.datetime | None = None) -> None: ...
    def knows_key(self, token_id: int, idempotency_key: str) -> bool: ...
    def tally(self, entry_id: str, source: OutcomeSource = "field") -> Tally: ...
    def tallies(self, source: OutcomeSource = "field") -> dict[str, Tally]: ...
    def outcome_count(self) -> int: ...
    def page_token(self) -> tuple[int, int]: ...
    def recent_outcomes(self, entry_id: str, limit: int = 20) -> list[StoredOutcome]: ...
    def iter_outcomes(self, entry_id: str | None = None) -> Iterator[StoredOutcome]: ...
    def has_outcomes(self, uids: Sequence[str]) -> set[str]: ...
