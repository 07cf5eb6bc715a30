"""Headless Chromium for the web-map tests: the system's browser, driven by Playwright.

The browser is Debian's ``chromium`` (``apt-get install -y chromium``; ``.ci/run`` installs it),
or the executable named by ``DPATLAS_CHROMIUM``. Playwright never downloads a browser here.
Without a browser the tests skip with the reason, unless ``DPATLAS_REQUIRE_BROWSER=1`` (set
by CI), which turns the skip into a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Flags for a root, headless, offline CI machine (no sandbox, no background connections)."""


def chromium_path() -> str | None:
    """The Chromium executable to use, or None."""
    given = os.environ.get("DPATLAS_CHROMIUM")
    if given:
        return given if Path(given).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_or_skip() -> str:
    """The Chromium path, or skip (fail on CI) saying what is missing."""
    reason = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reason = "the Python package playwright is missing: pip install -e '.[dev]'"
    path = chromium_path()
    if reason is None and path is None:
        reason = "no Chromium found: apt-get install -y chromium (or set DPATLAS_CHROMIUM)"
    if reason is not None:
        if os.environ.get("DPATLAS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"DPATLAS_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    assert path is not None
    return path


@dataclass
class Visit:
    """A page opened in the browser, with every console error and network request it made."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright ``Browser``), closed on exit."""
    from playwright.sync_api import sync_playwright

    executable = browser_or_skip()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def visit(browser: Any, path: Path, *, size: tuple[int, int] = (1100, 800)) -> Iterator[Visit]:
    """Open ``path`` (a local file) in a fresh page; record console errors and every request.

    Any request other than the file itself is aborted and recorded: a self-contained page
    makes none.
    """
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    seen = Visit(page)
    page.on("console", lambda m: m.type == "error" and seen.errors.append(m.text))
    page.on("pageerror", lambda e: seen.errors.append(f"uncaught: {e}"))
    url = path.resolve().as_uri()

    def route(request_route: Any) -> None:
        if request_route.request.url == url:
            request_route.continue_()
        else:
            seen.requests.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    try:
        page.goto(url)
        yield seen
    finally:
        context.close()
