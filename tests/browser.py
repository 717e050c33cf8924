"""Running the explorer for tests and scripts: a server in a thread, headless Chromium.

:func:`running_explorer` serves an :class:`openingbook.explorer.Explorer` on a free
loopback port from a background thread. :func:`headless_chromium` starts the
system's Chromium (Debian's ``chromium`` and ``chromium-driver``) through
selenium, with the driver's path given, so that selenium never downloads one.

Where Chromium is missing the browser tests are skipped, with a reason that names
the command installing it, so that the README's test command passes on a machine
with nothing but Python. ``.ci/run`` installs Chromium and sets
``OPENINGBOOK_BROWSER_TESTS=1``: then a missing browser fails the tests instead
(:func:`browser_or_skip`). ``OPENINGBOOK_BROWSER_TESTS=0`` skips them even where
Chromium is installed.
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

#: 1: the browser tests must run (a missing browser fails them; CI); 0: skip them;
#: unset: run them where Chromium is installed, skip them with the install command otherwise
BROWSER_SWITCH = "OPENINGBOOK_BROWSER_TESTS"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")
DRIVER_NAMES = ("chromedriver",)
INSTALL_HINT = "apt-get install chromium chromium-driver (selenium comes with the test extra)"


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
    """The browser's and driver's paths. A skip when :data:`BROWSER_SWITCH` is 0, or
    when something is missing and the switch is unset (the reason names the install
    command); a failure when something is missing and the switch is 1."""
    switch = os.environ.get(BROWSER_SWITCH, "")
    if switch == "0":
        pytest.skip(f"browser tests off ({BROWSER_SWITCH}=0)")
    found = chromium_paths()
    if isinstance(found, tuple):
        return found
    if switch == "1":
        pytest.fail(
            f"browser tests need headless Chromium ({BROWSER_SWITCH}=1): {found}; "
            f"install: {INSTALL_HINT}"
        )
    pytest.skip(f"browser tests need headless Chromium: {found}; install: {INSTALL_HINT}")


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
