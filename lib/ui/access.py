"""The Streamlit side of lib/access.py: the operator's settings, the visitor's login and headers.

Settings come from the environment, overlaid by st.secrets' `[roundtrip]` table. A setting that
is wrong locks the app down (a server where nobody edits and no live call is made) and says why,
rather than guessing what the operator meant.
"""

from __future__ import annotations

import getpass
import os
from typing import Any, Mapping

import streamlit as st

from lib import access

LOCKED = access.AccessConfig(deployment="server", live_runs=False)
"""What a broken configuration falls back to: the most a visitor can do is view."""


def _settings() -> dict:
    found = {name: value for name, value in os.environ.items() if name.startswith("ROUNDTRIP_")}
    try:
        found.update(st.secrets.get("roundtrip", {}))
    except Exception:  # noqa: BLE001 - no secrets file is the usual case, not an error
        pass
    return found


def config() -> tuple[access.AccessConfig, str | None]:
    """The operator's configuration, and what is wrong with it (None when nothing is)."""
    try:
        return access.read_config(_settings()), None
    except access.AccessError as exc:
        return LOCKED, str(exc)


def _claims() -> Mapping[str, Any]:
    """The visitor's login claims (Streamlit's `st.user`); none when no login is configured."""
    try:
        return st.user.to_dict()
    except Exception:  # noqa: BLE001 - no login configured: nobody is logged in
        return {}


def _login() -> str | None:
    return access.login_identity(_claims())


def say_login_refusal() -> None:
    """Under what a viewer may do: why a visitor who is signed in is still a viewer, when their login is the reason."""
    refusal = access.login_refusal(_claims())
    if refusal:
        st.caption(refusal)


def role(settings: access.AccessConfig) -> access.Role:
    """This visitor's role under the given configuration."""
    return visitor(settings).role


def visitor(settings: access.AccessConfig | None = None) -> access.Visitor:
    """Who this visitor is and what they may do, under the given configuration or the operator's."""
    return access.visitor(settings or config()[0], _login(), dict(st.context.headers), _local_name())


def _local_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a container's user may have no name
        return "local user"


def secret(name: str) -> str | None:
    """A top-level value of st.secrets (an API key), if there is one."""
    try:
        return st.secrets.get(name) or None
    except Exception:  # noqa: BLE001 - no secrets file is the usual case, not an error
        return None


def may_change(author: str) -> bool:
    """Whether this visitor may change or delete what `author` wrote or saved (lib/access.may_change)."""
    settings = config()[0]
    return access.may_change(settings, visitor(settings), author)


def moderates() -> bool:
    """Whether this visitor may change what the whole room shares (lib/access.moderates)."""
    settings = config()[0]
    return access.moderates(settings, visitor(settings))
