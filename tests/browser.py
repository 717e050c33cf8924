"""Running the explorer for tests and scripts: a server in a thread, headless Chromium.

:func:`running_explorer` serves an :class:`openingbook.explorer.Explorer` on a free
loopback port from a background thread. :func:`headless_chromium` starts the
system's Chromium (Debian's ``chromium`` and ``chromium-driver``) through
selenium, with the driver's path given, so that selenium never downloads one.

A missing browser is an error, not a skip: ``.ci/run`` installs it, so a CI run
without it must fail. Only ``OPENINGBOOK_BROWSER_TESTS=0`` turns the browser
tests into skips (:func:`browser_or_skip`), for a machine where Chromium cannot
be installed.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from openingbook.explorer import Explorer, make_server
from openingbook.explorer.server import ExplorerServer

#: set to 0 to skip the browser tests (they fail when the browser is missing otherwise)
BROWSER_SWITCH = "OPENINGBOOK_BROWSER_TESTS"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")
DRIVER_NAMES = ("chromedriver",)
INSTALL_HINT = (
    "apt-get install chromium chromium-driver; pip install selenium "
    f"(as .ci/run does), or set {BROWSER_SWITCH}=0 to skip the browser tests"
)


@contextmanager
def running_explorer(explorer: Explorer, port: int = 0) -> Iterator[ExplorerServer]:
    """``explorer`` served on 127.0.0.1 (at a free port by default) while the block runs."""
    server = make_server(explorer, "127.0.0.1", port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def chromium_paths() -> tuple[str, str] | str:
    """(browser, driver) paths, or why they cannot be used."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    browser = next(filter(None, map(shutil.which, BROWSER_NAMES)), None)
    driver = next(filter(None, map(shutil.which, DRIVER_NAMES)), None)
    if browser is None:
        return f"no Chromium found (looked for {', '.join(BROWSER_NAMES)})"
    if driver is None:
        return "no chromedriver found (Debian package chromium-driver)"
    return browser, driver


def browser_or_skip() -> tuple[str, str]:
    """The browser's and driver's paths; a failure naming what is missing, or a skip
    when :data:`BROWSER_SWITCH` is 0."""
    found = chromium_paths()
    if isinstance(found, tuple):
        return found
    if os.environ.get(BROWSER_SWITCH) == "0":
        pytest.skip(f"{found}; browser tests off ({BROWSER_SWITCH}=0)")
    pytest.fail(f"browser tests need headless Chromium: {found}. Install: {INSTALL_HINT}")


@contextmanager
def headless_chromium(
    paths: tuple[str, str],
    width: int = 900,
    height: int = 1000,
    scale: float = 1.0,
    phone: bool = False,
) -> Iterator[Any]:
    """A selenium ``WebDriver`` of headless Chromium with a ``width`` x ``height`` window
    (``phone``: a touch screen of that many CSS pixels, as a phone's; desktop windows
    are never narrower than about 500 pixels)."""
    from selenium import webdriver

    browser, driver_path = paths
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
        f"--force-device-scale-factor={scale}",
        "--lang=en-US",
    ):
        options.add_argument(argument)
    if phone:
        metrics = {"width": width, "height": height, "pixelRatio": scale, "touch": True}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(driver_path))
    try:
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()
