"""Who may do what, and where a key may go: the operator's settings read, roles, and the one rule
that pairs a base URL with a key."""

import pytest

from lib.access import (NO_TYPED_KEY, AccessConfig, AccessError, Endpoint, Visitor, endpoint, identity, live_refusal,
                        login_identity, may_change, moderates, read_config, role)

OPERATOR_KEY = "sk-operator-0001"
VISITOR_KEY = "sk-visitor-0001"
TYPED_URL = "http://10.0.0.5:8080/v1"


def server(**settings):
    return read_config({"ROUNDTRIP_DEPLOYMENT": "server", **settings})


def test_the_defaults_are_a_laptop_with_live_runs_on_and_no_trusted_header():
    config = read_config({})
    assert config == AccessConfig()
    assert role(config, None) == "editor"
    assert live_refusal(config, "editor") is None
    assert identity(config, None, {"X-Forwarded-Email": "mallory@example.com"}) is None


@pytest.mark.parametrize("setting, value", [("ROUNDTRIP_DEPLOYMENT", "sever"), ("ROUNDTRIP_LIVE_RUNS", "maybe")])
def test_a_wrong_value_names_its_setting(setting, value):
    with pytest.raises(AccessError, match=f"{setting} is '{value}'"):
        read_config({setting: value})


def test_on_a_server_an_unidentified_visitor_views_and_may_not_make_live_calls():
    config = server(ROUNDTRIP_EDITORS="ada@example.com")
    assert role(config, None) == "viewer"
    assert "only editors" in live_refusal(config, "viewer")


def test_a_header_counts_only_when_the_operator_names_it():
    headers = {"x-forwarded-email": "Ada@Example.com", "X-Remote-User": "ada@example.com"}
    unnamed = server(ROUNDTRIP_EDITORS="ada@example.com")
    assert identity(unnamed, None, headers) is None
    named = server(ROUNDTRIP_EDITORS="ada@example.com", ROUNDTRIP_IDENTITY_HEADER="X-Forwarded-Email")
    who = identity(named, None, headers)
    assert who == "Ada@Example.com" and role(named, who) == "editor"
    assert role(named, "bob@example.com") == "viewer"


def test_the_apps_own_login_comes_before_any_header_and_a_star_makes_every_identified_user_an_editor():
    config = server(ROUNDTRIP_EDITORS="*", ROUNDTRIP_IDENTITY_HEADER="X-Forwarded-Email")
    assert identity(config, "ada@example.com", {"X-Forwarded-Email": "mallory@example.com"}) == "ada@example.com"
    assert role(config, "anyone@example.com") == "editor"
    assert role(config, None) == "viewer"


def test_under_a_star_an_editor_changes_their_own_and_only_those_named_beside_it_moderate():
    config = server(ROUNDTRIP_EDITORS="Teacher@Example.org,*")
    teacher, bob = Visitor("teacher@example.org", "editor"), Visitor("bob@example.com", "editor")
    assert moderates(config, teacher) and not moderates(config, bob)
    assert may_change(config, bob, "Bob@Example.com") and not may_change(config, bob, "teacher@example.org")
    assert may_change(config, teacher, "bob@example.com")
    assert not may_change(config, Visitor("bob@example.com", "viewer"), "bob@example.com")
    assert not may_change(config, Visitor(None, "editor"), "")  # an author nobody signed is nobody's own
    laptop = read_config({})
    assert moderates(laptop, Visitor("ada", "editor")) and may_change(laptop, Visitor("ada", "editor"), "someone")


LISTED = "ada@example.com"


@pytest.mark.parametrize("claims, who", [
    ({"email": LISTED, "email_verified": True}, LISTED),
    ({"email": LISTED, "email_verified": "true"}, LISTED),
    ({"email": LISTED, "email_verified": False}, None),
    ({"email": LISTED, "email_verified": "false"}, None),
    ({"email": LISTED}, None),
    ({"sub": LISTED, "email_verified": True}, None),
    ({"sub": LISTED, "email": "bob@example.com", "email_verified": False}, None),
], ids=["verified", "verified, said as a string", "not verified", "not verified, said as a string",
        "the provider does not say", "no email, a sub spelt like the listed one", "an unverified email and a sub"])
def test_a_login_names_its_email_only_when_the_provider_says_the_address_is_verified_and_never_its_sub(claims, who):
    """An account that may claim an address it does not own (self sign-up, a multi-tenant directory) is not the
    listed editor by claiming it; nor is a `sub` that reads like an address."""
    config = server(ROUNDTRIP_EDITORS=LISTED)
    login = login_identity({"is_logged_in": True, **claims})
    assert login == who
    assert role(config, identity(config, login, {})) == ("editor" if who else "viewer")


def test_nobody_logged_in_names_nobody_whatever_the_claims_say():
    assert login_identity({"is_logged_in": False, "email": LISTED, "email_verified": True}) is None
    assert login_identity({}) is None


def test_the_operator_can_turn_live_runs_off_even_for_editors():
    config = read_config({"ROUNDTRIP_LIVE_RUNS": "off"})
    assert "turned off" in live_refusal(config, "editor")


def test_the_servers_key_goes_only_to_the_operators_url_or_the_providers_own():
    assert endpoint(read_config({}), "openai", None, None, OPERATOR_KEY).base_url == "https://api.openai.com/v1"
    config = read_config({"ROUNDTRIP_ANTHROPIC_BASE_URL": "https://gateway.internal/anthropic"})
    assert endpoint(config, "anthropic", None, None, OPERATOR_KEY) == Endpoint("https://gateway.internal/anthropic",
                                                                              OPERATOR_KEY)


def test_a_typed_url_without_a_typed_key_is_refused_and_the_servers_key_never_pairs_with_it():
    with pytest.raises(AccessError) as refused:
        endpoint(read_config({}), "openai", None, TYPED_URL, OPERATOR_KEY)
    assert str(refused.value) == NO_TYPED_KEY and OPERATOR_KEY not in str(refused.value)
    with pytest.raises(AccessError):
        endpoint(read_config({}), "compatible", "  ", TYPED_URL, OPERATOR_KEY)


def test_a_typed_key_goes_to_the_typed_url_or_else_to_the_operators():
    typed = endpoint(read_config({}), "compatible", VISITOR_KEY, TYPED_URL, OPERATOR_KEY)
    assert typed == Endpoint(TYPED_URL, VISITOR_KEY)
    config = read_config({"ROUNDTRIP_COMPATIBLE_BASE_URL": "http://ollama.internal:11434/v1/"})
    operators = endpoint(config, "compatible", VISITOR_KEY, None, OPERATOR_KEY)
    assert operators == Endpoint("http://ollama.internal:11434/v1/", VISITOR_KEY)


def test_a_compatible_server_nobody_named_has_no_url_to_send_to():
    assert endpoint(read_config({}), "compatible", None, None, OPERATOR_KEY).base_url is None


@pytest.mark.parametrize("url", ["http://127.0.0.1:1/\x1bv1", "http://exa mple.org/v1", "file:///etc/passwd",
                                 "localhost:11434/v1", "https:///v1"])
def test_a_base_url_that_names_no_api_server_is_refused_in_words_before_any_sdk_sees_it(url):
    with pytest.raises(AccessError, match="base URL"):
        endpoint(AccessConfig(), "compatible", "typed-key", url, None)


def test_the_command_line_refuses_a_base_url_with_a_control_character_without_a_traceback(tmp_path):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "lib", "run", "hengxin", "--provider", "compatible",
                           "--base-url", "http://127.0.0.1:1/\x1bv1", "-o", str(tmp_path / "run.jsonl")],
                          capture_output=True, text=True, timeout=120, env={"OPENAI_API_KEY": "x", "PATH": ""})
    assert "Traceback" not in done.stderr
    assert "control character" in done.stdout + done.stderr
    assert done.returncode != 0
