"""How much one upload may cost the server: every cap in one place, each overridable by environment.

An upload is untrusted bytes: a 10 KB gzip can expand to gigabytes, and a file of empty lines
can ask for millions of problem reports. The caps below bound what reading one costs.
"""

from __future__ import annotations

import gzip
import io
import os
from dataclasses import dataclass

UPLOAD_MB = 200
"""`server.maxUploadSize` in .streamlit/config.toml (tests/test_upload_limits.py keeps them equal)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The caps applied while reading uploaded files."""

    decompressed_bytes: int
    """The most bytes one gzip file may expand to; a larger one is refused, unread."""
    problems_kept: int
    """Problems kept in full per upload; the rest are only counted."""
    line_bytes: int
    """A longer line (or array element) is reported, not parsed."""
    cache_bytes: int
    """The most bytes of read uploads the server keeps cached, over all sessions."""
    cache_idle_seconds: float
    """A cached upload nobody has opened for this long is dropped."""


_MB = 1024 * 1024

_SETTINGS = {
    "decompressed_bytes": ("ROUNDTRIP_MAX_DECOMPRESSED_MB", 2 * UPLOAD_MB, _MB),
    "problems_kept": ("ROUNDTRIP_MAX_PROBLEMS", 1000, 1),
    "line_bytes": ("ROUNDTRIP_MAX_LINE_MB", 64, _MB),
    "cache_bytes": ("ROUNDTRIP_UPLOAD_CACHE_MB", 1024, _MB),
    "cache_idle_seconds": ("ROUNDTRIP_UPLOAD_CACHE_IDLE_S", 1800, 1),
}
"""Per field: the environment variable, its default and the unit it is given in."""


def limits() -> Limits:
    """The caps in force: the defaults, or whole numbers given in the environment."""
    values = {}
    for name, (variable, default, unit) in _SETTINGS.items():
        given = os.environ.get(variable, "").strip()
        values[name] = int(given) * unit if given.isdigit() and int(given) > 0 else default * unit
    return Limits(**values)



def gunzipped_at_most(data: bytes, most: int) -> bytes:
    """Gzip `data` opened, but never past `most` + 1 bytes: a result longer than `most` is a body over its cap, told
    without holding the rest (a few kilobytes can open to gigabytes). OSError, EOFError or zlib.error when not gzip."""
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        return stream.read(most + 1)
