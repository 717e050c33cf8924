"""The explorer's page in a real browser: headless Chromium driven by selenium.

The page is loaded from a server on a free loopback port; columns are clicked as
a person would, and every value the page shows (win/draw/loss for the side to
move, plies to the end, score, the best moves) is compared with the engine's
own analysis of the position. Without Chromium these tests fail (``.ci/run``
installs it); ``OPENINGBOOK_BROWSER_TESTS=0`` skips them (``tests/browser.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from openingbook.engine import Engine
from openingbook.explorer import Explorer, ExplorerLimits
from openingbook.solver import BoardSize
from tests.browser import browser_or_skip, headless_chromium, running_explorer

pytestmark = pytest.mark.browser

#: seconds to wait for the page to show an answer (the first analyses load the books)
WAIT = 120


@pytest.fixture(scope="module")
def chromium_paths() -> tuple[str, str]:
    return browser_or_skip()


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def server(engine: Engine):
    """The page's server; its searches may take as long as the page is waited for, so
    that a busy machine (CI's two cores run the suite in two processes) never turns a
    value the engine knows into "not solved within the time limit"."""
    limits = ExplorerLimits(time_limit=WAIT / 2)
    with running_explorer(Explorer(engine, limits=limits)) as running:
        yield running


@pytest.fixture(scope="module")
def driver(chromium_paths: tuple[str, str]):
    with headless_chromium(chromium_paths) as chromium:
        yield chromium


@pytest.fixture()
def page(driver, server):
    """The driver on the empty board; fails the test if the page logged an error
    (a script error, a load refused by the Content-Security-Policy, a missing file)
    other than the API's refusals that the test asked for."""
    driver.get(server.url)
    wait_for(driver, "")
    driver.get_log("browser")  # start from an empty log
    yield driver
    errors = [
        e for e in driver.get_log("browser") if e["level"] == "SEVERE" and not refused_by_api(e)
    ]
    assert not errors, errors


def refused_by_api(entry: dict[str, Any]) -> bool:
    """A browser log entry of a 400 answer of the API (what a bad move string gets)."""
    message = entry["message"]
    return entry["source"] == "network" and "/api/analyze?" in message and "400" in message


def wait_for(driver, moves: str, state: str = "ready") -> None:
    """Wait until the page shows the position after ``moves``."""
    from selenium.webdriver.support.ui import WebDriverWait

    def shown(d: Any) -> bool:
        body = d.find_element("tag name", "body")
        return (
            body.get_attribute("data-state") == state and body.get_attribute("data-moves") == moves
        )

    WebDriverWait(driver, WAIT).until(shown, f"page never showed {moves!r} ({state})")


def shown_columns(driver) -> list[dict[str, Any]]:
    """What the page shows of each column, left to right as displayed."""
    return driver.execute_script(
        """
        return [...document.querySelectorAll('#board .col')].map((col) => {
          const text = (cls) => {
            const e = col.querySelector(cls);
            return e ? e.textContent : null;
          };
          return {
            column: Number(col.dataset.column),
            kind: col.dataset.value,
            best: col.classList.contains('best'),
            disabled: col.disabled,
            word: text('.v-word'),
            plies: text('.v-plies'),
            score: text('.v-score'),
            label: col.getAttribute('aria-label'),
            cells: [...col.querySelectorAll('.cell')].map((c) =>
              c.classList.contains('first') ? 1 : c.classList.contains('second') ? 2 : 0),
          };
        });
        """
    )


def signed(score: int) -> str:
    return f"+{score}" if score > 0 else f"\u2212{-score}" if score < 0 else "0"


def check_page_matches_engine(driver, engine: Engine, moves: str, flipped: bool = False) -> None:
    """Every column the page shows against ``engine.analyze(moves)`` and the board
    against :class:`openingbook.solver.Position`."""
    analysis = engine.analyze(moves)
    pos = analysis.position
    to_move = "first" if pos.stone_count % 2 == 0 else "second"
    columns = shown_columns(driver)
    order = list(range(pos.width, 0, -1)) if flipped else list(range(1, pos.width + 1))
    assert [c["column"] for c in columns] == order
    for shown in columns:
        c = shown["column"]
        move = analysis.moves[c - 1]
        # the page's cells are top to bottom
        assert shown["cells"] == [pos.cell(c - 1, r) for r in reversed(range(pos.height))]
        if move is None:
            assert shown["kind"] == "full" and shown["disabled"]
            continue
        winner = move.winner.value
        kind = "draw" if winner == "draw" else "win" if winner == to_move else "loss"
        assert shown["kind"] == kind, (moves, c)
        assert shown["plies"] == str(move.plies), (moves, c)
        assert shown["score"] == signed(move.score), (moves, c)
        assert shown["best"] == (c in analysis.best), (moves, c)
        assert shown["word"].endswith({"win": "Win", "draw": "Draw", "loss": "Loss"}[kind])
        assert f"score {move.score}" in shown["label"]
    assert {c["column"] for c in columns if c["best"]} == set(analysis.best)
    text = driver.find_element("id", "verdict").text
    value = analysis.value
    assert f"{value.plies} pl" in text and signed(value.score) in text


def click_column(driver, column: int) -> None:
    driver.find_element("css selector", f'#board .col[data-column="{column}"]').click()


def play(driver, moves: str) -> None:
    """Click the columns of ``moves`` one by one, each after the previous answer."""
    start = _played(driver)
    for i, column in enumerate(moves, 1):
        click_column(driver, int(column))
        wait_for(driver, start + moves[:i])


# ---------------------------------------------------------------------- playing
def test_clicking_columns_plays_and_shows_the_engines_values(page, engine: Engine) -> None:
    check_page_matches_engine(page, engine, "")
    moves = ""
    for column in (4, 4, 5, 3, 3):
        click_column(page, column)
        moves += str(column)
        wait_for(page, moves)
        check_page_matches_engine(page, engine, moves)
    assert page.find_element("id", "moves-input").get_attribute("value") == moves
    assert page.find_element("id", "turn").text == "Yellow to move (move 6)."


def test_take_back_by_button_and_key(page) -> None:
    from selenium.webdriver.common.keys import Keys

    undo = page.find_element("id", "undo")
    assert not undo.is_enabled()
    play(page, "445")
    undo.click()
    wait_for(page, "44")
    page.find_element("tag name", "body").send_keys(Keys.BACKSPACE)
    wait_for(page, "4")
    page.find_element("tag name", "body").send_keys("7")  # digits play columns
    wait_for(page, "47")


def _played(driver) -> str:
    return driver.find_element("tag name", "body").get_attribute("data-moves")


def test_flip_views_the_board_from_the_other_side(page, engine: Engine) -> None:
    click_column(page, 1)
    wait_for(page, "1")
    flip = page.find_element("id", "flip")
    flip.click()
    assert flip.get_attribute("aria-pressed") == "true"
    check_page_matches_engine(page, engine, "1", flipped=True)
    # the leftmost column shown is column 7 now
    page.find_elements("css selector", "#board .col")[0].click()
    wait_for(page, "17")
    check_page_matches_engine(page, engine, "17", flipped=True)
    page.find_element("tag name", "body").send_keys("f")
    check_page_matches_engine(page, engine, "17")


def test_moves_typed_in_the_box(page, engine: Engine) -> None:
    from selenium.webdriver.common.keys import Keys

    box = page.find_element("id", "moves-input")
    box.clear()
    box.send_keys("3344", Keys.ENTER)
    wait_for(page, "3344")
    check_page_matches_engine(page, engine, "3344")
    box.clear()
    box.send_keys("33448", Keys.ENTER)
    message = page.find_element("id", "message")
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(page, WAIT).until(lambda d: message.is_displayed())
    assert "outside 1-7" in message.text
    assert box.get_attribute("aria-invalid") == "true"
    assert _played(page) == "3344"  # the position stays


# ---------------------------------------------------------------------- links
def test_shared_link_restores_the_position(page, server, engine: Engine) -> None:
    play(page, "4453")
    link = page.find_element("id", "share-link").get_attribute("href")
    assert link == f"{server.url}?moves=4453"
    assert page.current_url == link  # the address bar follows the position
    from selenium.webdriver.support.ui import WebDriverWait

    page.find_element("id", "copy-link").click()
    # the clipboard answers asynchronously (a promise): the note comes when it settles
    button = page.find_element("id", "copy-link")
    note = WebDriverWait(page, WAIT).until(
        lambda d: button.get_attribute("data-note"), "the copy button never said what it did"
    )
    if note != "Link copied.":  # no clipboard in this browser: the link is selected instead
        assert note.startswith("Link selected")
        assert page.execute_script("return getSelection().toString()") == link
    page.get(server.url)
    wait_for(page, "")
    page.get(link)
    wait_for(page, "4453")
    check_page_matches_engine(page, engine, "4453")
    page.refresh()
    wait_for(page, "4453")


def test_bad_link_shows_a_message(page, server) -> None:
    for query, message in [
        ("?moves=4444444", "move 7 plays column 4, which is full"),
        ("?moves=48", "outside 1-7"),
        ("?moves=4&size=6x5", "analyses 7x6 boards"),
    ]:
        page.get(server.url + query)
        wait_for(page, "")  # the empty board, under the message
        shown = page.find_element("id", "message")
        assert shown.is_displayed() and message in shown.text, shown.text


def test_game_over_is_shown(page, server) -> None:
    page.get(server.url + "?moves=4455667")
    wait_for(page, "4455667")
    assert page.find_element("id", "turn").text == "Game over: Red has four in a row."
    assert len(page.find_elements("css selector", ".cell.four")) == 4
    assert all(c["disabled"] and c["kind"] == "over" for c in shown_columns(page))
    page.find_element("id", "undo").click()
    wait_for(page, "445566")
    assert page.find_element("id", "turn").text == "Red to move (move 7)."
    win = next(c for c in shown_columns(page) if c["column"] == 7)
    assert (win["kind"], win["plies"], win["best"]) == ("win", "1", True)


def test_a_win_at_once_and_a_full_column(page, server, engine: Engine) -> None:
    """Red to move can win at once in column 1 and column 4 is full: the page shows
    the engine's values, a win in 1 ply, and column 4 full."""
    page.get(server.url + "?moves=121212444444")
    wait_for(page, "121212444444")
    check_page_matches_engine(page, engine, "121212444444")
    assert "wins with perfect play in 1 ply (score +15)" in page.find_element("id", "verdict").text
    full = next(c for c in shown_columns(page) if c["column"] == 4)
    assert full["kind"] == "full" and full["disabled"]


def test_columns_not_solved_in_time_are_marked(driver, engine: Engine) -> None:
    """With the smallest time limit, a position beyond the books: the searched columns
    show ?, the verdict says which, and asking again asks the server again."""
    moves = "1234567123456712"  # 16 stones: the positions after its moves are in no book
    limited = Explorer(engine, limits=ExplorerLimits(time_limit=1e-6))
    with running_explorer(limited) as server:
        driver.get(f"{server.url}?moves={moves}")
        wait_for(driver, moves)
        answer = limited.analyze(moves)["analysis"]
        assert answer["unknown"]  # the server's own answer: what the page must show
        shown = {c["column"]: c for c in shown_columns(driver)}
        for entry in answer["columns"]:
            column = shown[entry["column"]]
            if entry["known"]:
                assert column["kind"] in ("win", "draw", "loss") and not column["best"]
            else:
                assert (column["kind"], column["word"]) == ("unknown", "?")
                assert "not solved within the time limit" in column["label"]
        verdict = driver.find_element("id", "verdict").text
        unknown = ", ".join(map(str, answer["unknown"]))
        assert "not known yet" in verdict and "Not solved within the time limit: " in verdict
        assert unknown in verdict
        count = (
            "return performance.getEntriesByType('resource')"
            ".filter((e) => e.name.includes('/api/analyze?')).length"
        )
        asked = driver.execute_script(count)
        driver.find_element("id", "search-again").click()
        wait_for(driver, moves)
        # the page asked the server again (it keeps complete answers only)
        assert driver.execute_script(count) == asked + 1
        assert moves not in limited._cache


# ---------------------------------------------------------------------- layout
def test_other_board_sizes_render(driver) -> None:
    board = BoardSize(6, 5)
    engine = Engine(board=board)
    moves = "1234561234561"  # 13 stones: every move's position is in the 14-ply 6x5 book
    with running_explorer(Explorer(engine, board)) as small:
        driver.get(f"{small.url}?moves={moves}&size=6x5")
        wait_for(driver, moves)
        columns = shown_columns(driver)
        assert len(columns) == 6 and all(len(c["cells"]) == 5 for c in columns)
        check_page_matches_engine(driver, engine, moves)
        link = driver.find_element("id", "share-link").get_attribute("href")
        assert link == f"{small.url}?moves={moves}&size=6x5"
        assert driver.find_element("id", "turn").text == "Yellow to move (move 14)."


def test_phone_width(chromium_paths: tuple[str, str], server) -> None:
    """At 360 px the page needs no sideways scrolling and shows every column's value."""
    with headless_chromium(chromium_paths, width=360, height=800, phone=True) as phone:
        phone.get(server.url + "?moves=4453")
        wait_for(phone, "4453")
        widths = phone.execute_script("return [innerWidth, document.documentElement.scrollWidth]")
        assert widths == [360, 360]
        board = phone.find_element("id", "board").rect
        assert board["x"] >= 0 and board["x"] + board["width"] <= 360
        for column in phone.find_elements("css selector", "#board .col .value"):
            assert column.is_displayed() and column.rect["width"] > 30
