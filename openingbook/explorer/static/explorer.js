// The explorer page: asks /api/analyze for each position and draws the answer.
// Plain JavaScript, no build step, nothing loaded from elsewhere. The server
// knows the rules (legal moves, move strings, the end of the game); the page
// only shows what it answers, so the two can never disagree.
"use strict";

(() => {
  const PLAYER = { first: "Red", second: "Yellow" };
  const $ = (id) => document.getElementById(id);
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  const state = {
    data: null, // the last answer shown
    flipped: false,
    size: null, // the board size asked for in the page's address, if any
    request: 0, // answers to older requests are dropped
  };
  const answers = new Map(); // move string -> complete answer (take-back is instant)

  // ------------------------------------------------------------------ values
  // What a column is worth for the side to move: "win", "draw", "loss",
  // "full" (not playable), "unknown" (not solved within the time limit).
  function columnValues(data) {
    return data.children.map((child, c) => {
      if (data.game_over) return { kind: "over" };
      const value = data.analysis.columns[c];
      if (child === null || !value.playable) return { kind: "full" };
      if (!value.known) return { kind: "unknown" };
      const kind = value.winner === "draw" ? "draw" : value.winner === data.to_move ? "win" : "loss";
      return { kind, winner: value.winner, plies: value.plies, score: value.score };
    });
  }

  const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0");
  const PLURALS = { ply: "plies", stone: "stones", column: "columns" };
  const plural = (n, word) => `${n} ${n === 1 ? word : PLURALS[word]}`;

  function describeValue(value, toMove) {
    if (value.winner === "draw") {
      return `Draw with perfect play (${plural(value.plies, "ply")} to the full board, score 0)`;
    }
    const who = PLAYER[value.winner];
    const side = value.winner === toMove ? "the side to move" : "the other side";
    return `${who} (${side}) wins with perfect play in ${plural(value.plies, "ply")} (score ${signed(value.score)})`;
  }

  // ------------------------------------------------------------------ drawing
  function render() {
    const data = state.data;
    const values = columnValues(data);
    const best = new Set(data.analysis ? data.analysis.best : []);
    const over = data.game_over;
    const four = new Set(over ? over.four.map(([c, r]) => `${c},${r}`) : []);
    const next = data.to_move;

    $("board-size").textContent = `Board ${data.size}.`;
    const input = $("moves-input");
    if (document.activeElement !== input) input.value = data.moves;
    input.removeAttribute("aria-invalid");
    $("undo").disabled = data.parent === null;

    const board = $("board");
    board.replaceChildren();
    board.style.setProperty("--columns", data.width);
    board.style.setProperty("--rows", data.height);
    board.dataset.turn = next || "";
    board.classList.toggle("flipped", state.flipped);
    const order = [...Array(data.width).keys()];
    if (state.flipped) order.reverse();
    for (const c of order) {
      const value = values[c];
      const column = el("button", `col ${value.kind}`);
      column.type = "button";
      column.dataset.column = c + 1;
      column.dataset.value = value.kind;
      if (best.has(c + 1)) column.classList.add("best");
      const playable = data.children[c] !== null;
      column.disabled = !playable;
      column.setAttribute("aria-label", columnLabel(c + 1, value, best.has(c + 1)));

      column.append(el("span", "col-number", String(c + 1)));
      const holes = el("span", "holes");
      const height = data.cells[c].filter((cell) => cell !== 0).length;
      for (let r = data.height - 1; r >= 0; r--) {
        const cell = data.cells[c][r];
        const hole = el("span", "cell");
        if (cell === 1) hole.classList.add("first");
        if (cell === 2) hole.classList.add("second");
        if (four.has(`${c},${r}`)) hole.classList.add("four");
        if (r === height && playable) hole.classList.add("next");
        holes.append(hole);
      }
      column.append(holes);
      column.append(valueBadge(value, best.has(c + 1)));
      column.addEventListener("click", () => play(c));
      board.append(column);
    }

    const turn = $("turn");
    const verdict = $("verdict");
    verdict.classList.remove("incomplete");
    if (over) {
      turn.textContent =
        over.winner === "draw"
          ? "Game over: the board is full, a draw."
          : `Game over: ${PLAYER[over.winner]} has four in a row.`;
      turn.className = `turn over ${over.winner}`;
      verdict.textContent = `${plural(data.stones, "stone")} played. Take back a move to go on exploring.`;
    } else {
      turn.textContent = `${PLAYER[next]} to move (move ${data.stones + 1}).`;
      turn.className = `turn ${next}`;
      const analysis = data.analysis;
      if (analysis.value) verdict.textContent = describeValue(analysis.value, next) + ".";
      else verdict.textContent = "The position's value is not known yet.";
      if (!analysis.complete) {
        verdict.textContent +=
          ` Not solved within the time limit: column${analysis.unknown.length === 1 ? "" : "s"} ` +
          `${analysis.unknown.join(", ")} (marked ?).`;
        verdict.classList.add("incomplete");
        // asking again goes further: the solver keeps what it learnt in its table
        const again = el("button", "again", "Search again");
        again.type = "button";
        again.id = "search-again";
        again.addEventListener("click", () => load(data.moves));
        verdict.append(" ", again);
      }
    }

    const link = shareUrl(data);
    $("share").hidden = false;
    $("share-link").href = link;
    $("share-link").textContent = link;
    document.title = `${data.moves || "empty board"} \u2013 openingbook explorer`;
  }

  function valueBadge(value, isBest) {
    const badge = el("span", `value ${value.kind}`);
    if (value.kind === "over") return badge;
    if (value.kind === "full") {
      badge.append(el("span", "v-word", "full"));
      return badge;
    }
    if (value.kind === "unknown") {
      badge.append(el("span", "v-word q", "?"));
      return badge;
    }
    const word = { win: "Win", draw: "Draw", loss: "Loss" }[value.kind];
    badge.append(el("span", "v-word", isBest ? `\u2605 ${word}` : word));
    const plies = el("span", "v-plies", String(value.plies));
    plies.title = "plies to the end";
    badge.append(plies);
    const score = el("span", "v-score", signed(value.score));
    score.title = "score";
    badge.append(score);
    return badge;
  }

  function columnLabel(column, value, isBest) {
    const base = `Column ${column}`;
    if (value.kind === "over") return `${base}: the game is over`;
    if (value.kind === "full") return `${base}: full`;
    if (value.kind === "unknown") return `${base}: not solved within the time limit`;
    const word = { win: "win", draw: "draw", loss: "loss" }[value.kind];
    return (
      `${base}: ${word} in ${plural(value.plies, "ply")}, score ${value.score}` +
      (isBest ? ", best move" : "")
    );
  }

  // ------------------------------------------------------------------ addresses
  function query(moves) {
    const params = new URLSearchParams({ moves });
    if (state.size) params.set("size", state.size);
    return params.toString();
  }

  function shareUrl(data) {
    const params = new URLSearchParams({ moves: data.moves });
    if (data.size !== "7x6") params.set("size", data.size);
    return `${location.origin}${location.pathname}?${params}`;
  }

  // ------------------------------------------------------------------ loading
  async function load(moves, { keepMessage = false } = {}) {
    const id = ++state.request;
    const asked = performance.now();
    document.body.dataset.state = "loading";
    let data = answers.get(moves);
    try {
      if (!data) {
        const response = await fetch(`api/analyze?${query(moves)}`, { cache: "no-store" });
        const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
        if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
        data = body;
      }
    } catch (error) {
      if (id !== state.request) return;
      showMessage(error.message === "Failed to fetch" ? "The explorer's server does not answer." : error.message);
      $("moves-input").setAttribute("aria-invalid", "true");
      if (state.data === null) {
        state.size = null; // a bad size in the address: show the server's own board
        load("", { keepMessage: true });
        return;
      }
      document.body.dataset.state = "error";
      return;
    }
    if (id !== state.request) return;
    if (!data.analysis || data.analysis.complete) {
      answers.set(data.moves, data);
      answers.set(moves, data);
    }
    state.data = data;
    if (!keepMessage) hideMessage();
    render();
    history.replaceState(null, "", `?${new URL(shareUrl(data)).searchParams}`);
    // from the click (or the page's load) to the drawn answer; bench_explorer.py reads it
    const shown = performance.now() - asked;
    $("timing").textContent =
      `Answer shown ${shown.toFixed(1)} ms after it was asked for ` +
      `(analysis ${data.ms.toFixed(1)} ms on the server).`;
    document.body.dataset.shownMs = shown.toFixed(3);
    document.body.dataset.moves = data.moves;
    document.body.dataset.state = "ready";
  }

  function play(column) {
    const data = state.data;
    if (!data || document.body.dataset.state === "loading") return;
    const child = data.children[column];
    if (child !== null && child !== undefined) load(child);
  }

  function takeBack() {
    if (state.data && state.data.parent !== null) load(state.data.parent);
  }

  function flip() {
    state.flipped = !state.flipped;
    $("flip").setAttribute("aria-pressed", String(state.flipped));
    if (state.data) render();
  }

  function showMessage(text) {
    const message = $("message");
    message.textContent = text;
    message.hidden = false;
  }

  function hideMessage() {
    $("message").hidden = true;
  }

  async function copyLink() {
    if (!state.data) return;
    const link = shareUrl(state.data);
    try {
      await navigator.clipboard.writeText(link);
      showNote("Link copied.");
    } catch {
      // no clipboard (an insecure origin, a denied permission): select the link to copy by hand
      const range = document.createRange();
      range.selectNodeContents($("share-link"));
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      showNote("Link selected: copy it with Ctrl-C.");
    }
  }

  function showNote(text) {
    const button = $("copy-link");
    button.dataset.note = text;
    button.classList.add("noted");
    setTimeout(() => button.classList.remove("noted"), 1500);
  }

  // ------------------------------------------------------------------ wiring
  function start() {
    const params = new URLSearchParams(location.search);
    state.size = params.get("size");
    $("undo").addEventListener("click", takeBack);
    $("reset").addEventListener("click", () => load(""));
    $("flip").addEventListener("click", flip);
    $("copy-link").addEventListener("click", copyLink);
    $("moves-form").addEventListener("submit", (event) => {
      event.preventDefault();
      load($("moves-input").value.replace(/\s+/g, ""));
    });
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Backspace" || event.key === "ArrowLeft") {
        event.preventDefault();
        takeBack();
      } else if (event.key === "f" || event.key === "F") {
        flip();
      } else if (event.key === "Home") {
        load("");
      } else if (/^[1-9]$/.test(event.key) && state.data && Number(event.key) <= state.data.width) {
        play(Number(event.key) - 1);
      }
    });
    load(params.get("moves") || "");
  }

  start();
})();
