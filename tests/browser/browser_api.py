"""Playwright's names for the browser test modules, imported from here so each module need not guard it.

Importing this without Playwright installed skips the importing module, or fails it under CI (`CI`
set), where the browser tests must run. `expect` waits EXPECT_SECONDS for what it asserts:
Playwright's 5 s default is shorter than a first page load on two busy cores, and a longer wait
changes nothing for a test whose element never comes.
"""

from __future__ import annotations

import os

import pytest

EXPECT_SECONDS = 30
"""How long an `expect` waits for what it asserts."""

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect
except ImportError:  # the conftest's fixture says why; collection must not stop first
    if os.environ.get("CI"):
        raise
    pytest.skip("Browser tests skipped: playwright is not installed.", allow_module_level=True)

expect.set_options(timeout=EXPECT_SECONDS * 1000)

__all__ = ["PlaywrightTimeout", "expect"]
