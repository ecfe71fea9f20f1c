"""Who may do what on this deployment, and where an API key may be sent. Pure: no Streamlit, no SDK.

The operator sets it in the environment or in st.secrets' `[roundtrip]` table (lib/ui/access.py
reads both): `ROUNDTRIP_DEPLOYMENT` (`laptop` or `server`), `ROUNDTRIP_EDITORS`,
`ROUNDTRIP_IDENTITY_HEADER`, `ROUNDTRIP_LIVE_RUNS`, `ROUNDTRIP_AUTHOR` and the operator's base URLs.
On a laptop the one user is an editor. On a server nobody is trusted by default: an identity comes
from the app's own login or from a header the operator names, and only a listed identity edits.
Viewers open links, step through and predict; editors also upload, capture, save, annotate and
delete. A note is signed with the visitor's identity, never with a name typed beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping
from urllib.parse import urlsplit

from lib.annotations import AUTHOR_LIMIT

Role = Literal["editor", "viewer"]

OFFICIAL_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
"""Where each provider's own API listens; the compatible provider has none."""

BASE_URL_SETTINGS = {"openai": "ROUNDTRIP_OPENAI_BASE_URL", "anthropic": "ROUNDTRIP_ANTHROPIC_BASE_URL",
                     "compatible": "ROUNDTRIP_COMPATIBLE_BASE_URL"}
"""The setting that names the operator's base URL, per provider."""

EVERY_IDENTIFIED_USER = "*"
"""`ROUNDTRIP_EDITORS` value that makes every identified user an editor."""

NO_TYPED_KEY = ("A base URL typed here is used only with an API key typed here too: this server's own key is "
                "never sent to an address typed in the page. Type the key for that server (any text, such as "
                "ollama, for a server that needs none), or clear the base URL.")
"""Why a typed base URL without a typed key is refused."""


class AccessError(ValueError):
    """A setting or a request this deployment refuses, in words for a person."""


@dataclass(frozen=True)
class AccessConfig:
    """The operator's settings for who may do what."""

    deployment: Literal["laptop", "server"] = "laptop"
    """`laptop`: one trusted user. `server`: visitors, each a viewer unless identified as an editor."""
    editors: frozenset[str] = frozenset()
    """Identities that edit on a server, compared without regard to case."""
    every_identified_user_edits: bool = False
    """`ROUNDTRIP_EDITORS=*`: anyone with an identity edits; anyone without one still only views."""
    identity_header: str | None = None
    """The header an authenticating reverse proxy sets (e.g. `X-Forwarded-Email`); None trusts no header."""
    live_runs: bool = True
    """Whether live calls to a provider may be made at all (replay always may)."""
    base_urls: Mapping[str, str] = field(default_factory=dict)
    """The operator's base URL per provider (`openai`, `anthropic`, `compatible`)."""
    author: str | None = None
    """`ROUNDTRIP_AUTHOR`: on a laptop, the name its notes are signed with, set once; None uses the login name."""


@dataclass(frozen=True)
class Visitor:
    """Who is asking and what they may do."""

    identity: str | None
    """The login or the operator's header; on a laptop, the local author name. None: anonymous."""
    role: Role
    """`editor` or `viewer`."""

    @property
    def edits(self) -> bool:
        """May upload, capture, save, annotate and delete."""
        return self.role == "editor"


@dataclass(frozen=True)
class Endpoint:
    """Where one provider call goes and the key it carries."""

    base_url: str | None
    """The server's base URL; None only for a compatible server nobody named."""
    api_key: str | None
    """The key sent there; None when there is none."""
    public_only: bool = False
    """A base URL a visitor typed on a server: it may lead only to public addresses, never inside the server's network."""


def read_config(settings: Mapping[str, object]) -> AccessConfig:
    """The configuration from `ROUNDTRIP_*` settings; AccessError naming the setting when a value is wrong."""
    def text(name: str) -> str:
        value = settings.get(name)
        return "" if value is None else str(value).strip()

    deployment = text("ROUNDTRIP_DEPLOYMENT").lower() or "laptop"
    if deployment not in ("laptop", "server"):
        raise AccessError(f"ROUNDTRIP_DEPLOYMENT is {deployment!r}; it must be laptop or server.")
    live = text("ROUNDTRIP_LIVE_RUNS").lower() or "on"
    if live not in ("on", "off"):
        raise AccessError(f"ROUNDTRIP_LIVE_RUNS is {live!r}; it must be on or off.")
    listed = [name.strip() for name in text("ROUNDTRIP_EDITORS").split(",") if name.strip()]
    urls = {provider: text(name) for provider, name in BASE_URL_SETTINGS.items() if text(name)}
    return AccessConfig(deployment, frozenset(n.casefold() for n in listed if n != EVERY_IDENTIFIED_USER),
                        EVERY_IDENTIFIED_USER in listed, text("ROUNDTRIP_IDENTITY_HEADER") or None, live == "on", urls,
                        " ".join(text("ROUNDTRIP_AUTHOR").split())[:AUTHOR_LIMIT] or None)


def login_identity(claims: Mapping[str, Any]) -> str | None:
    """The identity a login gives (Streamlit's `st.user`, an OIDC provider's claims): its email, only when the
    provider says the address is verified; None when it does not say so, or nobody is logged in."""
    if not claims.get("is_logged_in"):
        return None
    # An unverified address is whatever the account typed (self sign-up, a multi-tenant directory): anyone could
    # claim a listed editor's. A provider that never sends the claim is not taken at its word either. `sub` is
    # never used: it is an id of the provider's, not an address, and could be spelt like one on the editors' list.
    verified = claims.get("email_verified")
    if verified is not True and not (isinstance(verified, str) and verified.strip().lower() == "true"):
        return None
    email = claims.get("email")
    return email if isinstance(email, str) and email else None


UNVERIFIED_LOGIN = ("You are signed in, but your sign-in provider does not vouch for your email address (it does not "
                    "say the address is verified), so the sign-in cannot make you an editor.")
"""Said to a visitor whose login names an address its provider does not say is verified."""
NO_ADDRESS_LOGIN = "You are signed in, but your sign-in gives no email address, so it cannot make you an editor."
"""Said to a visitor whose login names no address at all."""


def login_refusal(claims: Mapping[str, Any]) -> str | None:
    """Why a login gives no identity, said to the person signed in; None when nobody is, or the login gives one."""
    if not claims.get("is_logged_in") or login_identity(claims) is not None:
        return None
    return UNVERIFIED_LOGIN if claims.get("email") else NO_ADDRESS_LOGIN


def identity(config: AccessConfig, login: str | None, headers: Mapping[str, str]) -> str | None:
    """Who is asking: the app's own login first, else the operator's named header; never any other header."""
    if login:
        return login
    if not config.identity_header:
        return None
    wanted = config.identity_header.casefold()
    found = next((value for name, value in headers.items() if name.casefold() == wanted), "")
    return found.strip() or None


def role(config: AccessConfig, who: str | None) -> Role:
    """`editor` or `viewer`: on a laptop the one user edits; on a server only an identified, listed user does."""
    if config.deployment == "laptop":
        return "editor"
    if not who:
        return "viewer"
    return "editor" if config.every_identified_user_edits or who.casefold() in config.editors else "viewer"


def visitor(config: AccessConfig, login: str | None, headers: Mapping[str, str], local_name: str) -> Visitor:
    """The visitor and their role. On a laptop the one user is named by `ROUNDTRIP_AUTHOR`, else by the login
    (`local_name`, the operating system's user); on a server only by the app's login or the operator's header."""
    who = identity(config, login, headers)
    if config.deployment == "laptop":
        who = config.author or who or local_name
    return Visitor(who[:AUTHOR_LIMIT] if who else None, role(config, who))


def moderates(config: AccessConfig, who: Visitor) -> bool:
    """Whether this visitor may change what the whole room shares and what others wrote: on a laptop the one user; on a
    server an editor `ROUNDTRIP_EDITORS` names, never one that `*` alone lets in (every learner of a room that signs
    in). What the room shares: the label set, the rubrics, and traces/, the operator's folder every visitor's list
    reads."""
    if not who.edits:
        return False
    return config.deployment == "laptop" or (who.identity or "").casefold() in config.editors


def may_change(config: AccessConfig, who: Visitor, author: str) -> bool:
    """Whether this visitor may change or delete a note, or delete a saved trace, that `author` wrote or saved: one
    who moderates may change anything; any other editor only what they wrote or saved themselves."""
    if moderates(config, who):
        return True
    return who.edits and bool(who.identity) and who.identity.casefold() == author.casefold()


NOT_YOURS = ("On this server an editor changes or deletes only what they wrote or saved themselves, unless the "
             "operator names them in ROUNDTRIP_EDITORS.")
"""Why an editor cannot change a note, or delete a trace, of someone else's."""
ROOMS_TO_SET = "On this server only the editors its operator names in ROUNDTRIP_EDITORS change this for everyone."
"""Why an editor that `*` lets in cannot change the label set or the rubrics."""


def live_refusal(config: AccessConfig, who_role: Role) -> str | None:
    """Why live calls are not allowed here, or None when they are."""
    if not config.live_runs:
        return "Live runs are turned off here (ROUNDTRIP_LIVE_RUNS=off). Replay still works."
    if who_role != "editor":
        return "On this server only editors make live calls; sign in as an editor. Replay still works."
    return None


def shown_url(url: str) -> str:
    """Where a base URL points, as it may be shown or recorded: scheme, host, port and path, never a user part or
    query, which can carry a credential."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}{parts.path}"


def check_base_url(url: str) -> str:
    """The URL as given when it can name an API server (http or https, a host, nothing unprintable);
    AccessError saying what is wrong otherwise, before any SDK sees it."""
    if any(ch.isspace() or not ch.isprintable() for ch in url):
        raise AccessError("The base URL has a space or a control character in it; type it again.")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AccessError("The base URL must start with http:// or https:// and name a host, "
                          "e.g. http://localhost:11434/v1/.")
    return url


def endpoint(config: AccessConfig, provider: str, typed_key: str | None, typed_url: str | None,
             operator_key: str | None) -> Endpoint:
    """The (base URL, key) pair a call may use; AccessError when the combination is refused.

    A key typed in this session may go to the URL typed in this session or to the operator's. The
    operator's key (environment or secrets) goes only to the operator's URL or the provider's own.
    """
    typed_key, typed_url = (typed_key or "").strip() or None, (typed_url or "").strip() or None
    operator_url = config.base_urls.get(provider) or OFFICIAL_BASE_URLS.get(provider)
    if typed_url:
        check_base_url(typed_url)
    if typed_key:
        return Endpoint(typed_url or operator_url, typed_key, bool(typed_url) and config.deployment == "server")
    if typed_url:
        raise AccessError(NO_TYPED_KEY)
    return Endpoint(operator_url, operator_key or None)
