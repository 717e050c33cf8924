"""Make ``docs/explorer.png``: the explorer's page in headless Chromium.

Run from the repository root after ``pip install -e ".[test]"`` and Debian's
``chromium chromium-driver``::

    python docs/explorer_screenshot.py [--moves 4343] [--output docs/explorer.png]

The page is served by the library's own server from the shipped books, driven
through ``tests/browser.py`` (the browser tests' Chromium driver), and saved at its
full height.
"""

from __future__ import annotations

import argparse
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openingbook.engine import Engine  # noqa: E402
from openingbook.explorer import Explorer  # noqa: E402
from tests.browser import chromium_paths, headless_chromium, running_explorer  # noqa: E402

#: the port of ``openingbook explore``: the link on the picture is the one users see
DEFAULT_PORT = 8404


def free_port(port: int) -> int:
    """``port`` when it is free on 127.0.0.1, else 0 (any free port)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return 0
    return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", default="4343", help="position to show (default 4343)")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "explorer.png")
    parser.add_argument("--width", type=int, default=760, help="window width in CSS pixels")
    parser.add_argument("--scale", type=float, default=1.0, help="device pixels per CSS pixel")
    args = parser.parse_args()
    paths = chromium_paths()
    if isinstance(paths, str):
        sys.exit(f"error: {paths}")
    from selenium.webdriver.support.ui import WebDriverWait

    with (
        running_explorer(Explorer(Engine()), port=free_port(DEFAULT_PORT)) as server,
        headless_chromium(paths, width=args.width, height=900, scale=args.scale) as driver,
    ):
        driver.get(f"{server.url}?moves={args.moves}")
        WebDriverWait(driver, 120).until(
            lambda d: d.find_element("tag name", "body").get_attribute("data-state") == "ready"
        )
        # the viewport as tall as the page, so that the picture holds all of it
        height = driver.execute_script("return document.documentElement.scrollHeight")
        metrics = {"width": args.width, "height": height, "deviceScaleFactor": args.scale}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "mobile": False})
        time.sleep(0.5)  # let the layout settle at the new height
        # the timing line differs from run to run: the picture shows the page, not a benchmark
        driver.execute_script("document.getElementById('timing').textContent = ''")
        args.output.parent.mkdir(parents=True, exist_ok=True)
        partial = args.output.with_suffix(".partial.png")
        driver.save_screenshot(str(partial))
        partial.replace(args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
