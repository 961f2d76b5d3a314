"""Write tokens: shown once, stored only as a sha256 hash."""

from __future__ import annotations

import hashlib
import re
import secrets

PREFIX = "rc_"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh token and its hash."""
    token = PREFIX + secrets.token_urlsafe(32)
    return token, hash_token(token)
