"""When the browser tests run, skip or fail (``tests/browser.py``).

A machine with nothing but Python must pass the README's test command: there a
missing Chromium is a skip whose reason names the install command. CI sets
``OPENINGBOOK_BROWSER_TESTS=1``, where a missing Chromium fails instead.
"""

from __future__ import annotations

import pytest

from tests import browser

FOUND = ("/usr/bin/chromium", "/usr/bin/chromedriver")
MISSING = "no Chromium found (looked for chromium)"


def outcome(monkeypatch: pytest.MonkeyPatch, switch: str | None, found) -> tuple[str, str]:
    """What :func:`browser.browser_or_skip` does: ("ok" | "skip" | "fail", message)."""
    if switch is None:
        monkeypatch.delenv(browser.BROWSER_SWITCH, raising=False)
    else:
        monkeypatch.setenv(browser.BROWSER_SWITCH, switch)
    monkeypatch.setattr(browser, "chromium_paths", lambda: found)
    try:
        return "ok", str(browser.browser_or_skip())
    except pytest.skip.Exception as exc:
        return "skip", str(exc)
    except pytest.fail.Exception as exc:
        return "fail", str(exc)


def test_missing_browser_is_a_skip_naming_the_install_command(monkeypatch):
    kind, message = outcome(monkeypatch, None, MISSING)
    assert kind == "skip"
    assert MISSING in message
    assert "apt-get install chromium chromium-driver" in message


def test_missing_browser_fails_where_required(monkeypatch):
    kind, message = outcome(monkeypatch, "1", MISSING)
    assert kind == "fail"
    assert MISSING in message and "apt-get install chromium chromium-driver" in message


@pytest.mark.parametrize("switch", [None, "1"])
def test_installed_browser_runs(monkeypatch, switch):
    assert outcome(monkeypatch, switch, FOUND) == ("ok", str(FOUND))


def test_switch_off_skips_even_with_a_browser(monkeypatch):
    kind, message = outcome(monkeypatch, "0", FOUND)
    assert kind == "skip" and "=0" in message


def test_ci_requires_the_browser_tests():
    """``.ci/run`` makes the browser tests mandatory (a missing browser fails CI)."""
    from pathlib import Path

    script = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert f"export {browser.BROWSER_SWITCH}=1" in script
