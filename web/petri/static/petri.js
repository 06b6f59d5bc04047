// Petri's panel: the dice (rolled by the companion or entered), the step in progress, taps on
// the board that place or remove pieces, and the suggested capture order stepped on the board.
"use strict";

(() => {
const $ = (id) => document.getElementById(id);
const FACES = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
const step = {key: "", at: 0};  // where the players are in walking the suggested order
let modeChosen = false;  // the players set the tap mode themselves: the camera no longer does

function dice(values) {
  return values.map((v) => `<span title="${v}">${FACES[v] || v}</span>`).join(" ");
}

function turnRow(s, p) {
  const pn = s.panel;
  const what = pn.steps[p];
  const left = pn.left[p];
  const rolled = pn.dice[p] || [];
  const head = `${swatch(p)}<strong>${esc(p)}</strong> <span class="dice">${dice(rolled)}</span>`;
  let body = "";
  if (what === "roll") {
    body = `<button class="primary" data-petri="roll" data-player="${esc(p)}">Roll for me</button>` +
      `<span>or real dice:</span>` +
      `<input type="number" min="1" max="6" data-die="1" data-player="${esc(p)}" aria-label="${esc(p)} first die">` +
      `<input type="number" min="1" max="6" data-die="2" data-player="${esc(p)}" aria-label="${esc(p)} second die">` +
      `<button data-petri="enter" data-player="${esc(p)}">Enter</button>`;
  } else if (what === "die") {
    body = [...new Set(rolled)].map((d) =>
      `<button class="primary" data-petri="die" data-player="${esc(p)}" data-die="${d}">Use ${d}</button>`).join("");
  } else if (what === "place") {
    body = `<span>tap ${left} marked hole${left === 1 ? "" : "s"} to place (die ${pn.die[p]})</span>`;
  } else if (what === "remove") {
    body = `<span>too few in hand: tap ${left} of your pieces to take off</span>`;
  } else if (what === "capture") {
    body = "<span>captures: see the suggested order</span>";
  } else {
    body = "<span>waits for the others</span>";
  }
  return `<div class="petri-turn" data-player="${esc(p)}" data-step="${esc(what)}">${head}${body}</div>`;
}

function markTaps(s) {
  for (const [p, holes] of Object.entries(s.panel.taps || {})) {
    const remove = s.panel.steps[p] === "remove";
    for (const h of holes) {
      const sel = remove ? `#board g.piece[data-hole="${h}"]` : `#board circle.hole[data-hole="${h}"]`;
      const el = document.querySelector(sel);
      if (el) el.classList.add("tap");
    }
  }
}

function showStep(s) {
  const a = s.panel.advice;
  if (!a) return;
  const n = a.order.length;
  document.querySelectorAll("#board .capture-mark").forEach((m) => {
    const i = Number(m.dataset.capture);
    m.classList.toggle("done", step.at > 0 && i < step.at);
    m.classList.toggle("now", i === step.at);
    m.classList.toggle("later", step.at > 0 && i > step.at);
  });
  a.order.forEach((h, i) => {
    const piece = document.querySelector(`#board g.piece[data-hole="${h}"]`);
    if (piece) piece.classList.toggle("taken", i + 1 < step.at || (i + 1 === step.at));
  });
  document.querySelectorAll("#petri-order li").forEach((li, i) => {
    li.classList.toggle("done", i + 1 < step.at);
    li.classList.toggle("now", i + 1 === step.at);
  });
  let text;
  if (!n) text = "No piece can be captured now.";
  else if (step.at === 0) {
    text = `The suggested order captures ${a.enemy} enemy piece${a.enemy === 1 ? "" : "s"}` +
      (a.own ? ` and ${a.own} of ${a.player}'s own` : "") + ". Step through it on the board.";
  } else {
    const h = a.order[step.at - 1];
    const owner = s.state.board[h] || "?";
    text = `Step ${step.at} of ${n}: ${h} (${owner}) has more enemy than friendly neighbours ` +
      `once the pieces before it are gone: it goes to ${a.player}'s cup.`;
  }
  $("petri-step-text").textContent = text;
  $("petri-step").disabled = step.at >= n;
  $("petri-back").disabled = step.at <= 0;
  document.body.dataset.petriStep = String(step.at);
}

function renderCaptures(s) {
  const a = s.panel.advice;
  $("petri-captures").hidden = !a;
  if (!a) { step.key = ""; step.at = 0; return; }
  const key = a.player + ":" + a.order.join(" ");
  if (key !== step.key) { step.key = key; step.at = 0; }
  $("petri-capturer").innerHTML = `${swatch(a.player)}${esc(a.player)}${a.exact ? "" : " (a greedy order: the search ran out of time)"}`;
  $("petri-order").innerHTML = a.order.map((h) =>
    `<li data-hole="${esc(h)}">${esc(h)} ${swatch(s.state.board[h])}${esc(s.state.board[h])}</li>`).join("");
  $("petri-careless").textContent = !a.order.length ? "" : a.careless_loss > 0 ?
    `Careless: checking in reading order (top row first) captures ${a.careless}, ` +
    `${a.careless_loss} fewer.` : "Checking in reading order captures as many here.";
  $("petri-capture").textContent = a.order.length ? "Capture in this order" : "Capture nothing";
  showStep(s);
}

function render(s) {
  const pn = s.panel;
  $("end").textContent = pn.advice ? "Capture in the suggested order" : "End turn";
  $("petri-turns").innerHTML = Object.keys(pn.steps).map((p) => turnRow(s, p)).join("");
  if (!modeChosen) $("petri-tap-corrects").checked = s.camera.state !== "off";
  markTaps(s);
  renderCaptures(s);
}

$("petri-turns").addEventListener("click", (ev) => {
  const btn = ev.target.closest("button[data-petri]");
  if (!btn) return;
  const p = btn.dataset.player;
  const act = btn.dataset.petri;
  if (act === "roll") post("roll", {});
  if (act === "die") post("action", {kind: "die", player: p, die: Number(btn.dataset.die)});
  if (act === "enter") {
    const row = btn.closest(".petri-turn");
    const first = Number(row.querySelector("input[data-die='1']").value);
    const second = Number(row.querySelector("input[data-die='2']").value);
    if (!first || !second) { showError("enter what both dice show (1 to 6)"); return; }
    post("roll", {outcome: {kind: "roll", player: p, first, second}});
  }
});
$("petri-tap-corrects").addEventListener("change", () => { modeChosen = true; });
$("petri-step").onclick = () => { step.at += 1; showStep(snap); };
$("petri-back").onclick = () => { step.at = Math.max(0, step.at - 1); showStep(snap); };
$("petri-capture").onclick = () => {
  const a = snap.panel.advice;
  if (a) post("action", {kind: "capture", player: a.player, order: a.order});
};

function correct(hole) {
  $("petri-correct-hole").textContent = hole;
  $("petri-correct-choices").innerHTML = snap.state.players.map((p) =>
    `<button value="${esc(p)}">${swatch(p)}${esc(p)}</button>`).join("") +
    '<button value="">empty</button>';
  const dlg = $("petri-correct");
  dlg.dataset.hole = hole;
  dlg.showModal();
}
$("petri-correct").addEventListener("close", () => {
  const dlg = $("petri-correct");
  if (dlg.returnValue === "cancel") return;
  post("correct", {hole: dlg.dataset.hole, player: dlg.returnValue || null});
});

// A tap on a hole: place or remove a piece there, or (in correcting mode) fix the camera.
function boardClick(ev) {
  const el = ev.target.closest("[data-hole]");
  if (!el) return;
  const hole = el.dataset.hole;
  if ($("petri-tap-corrects").checked) { correct(hole); return; }
  const taps = snap.panel.taps || {};
  const who = Object.keys(taps).find((p) => taps[p].includes(hole));
  if (!who) { showError(`nothing is placed or removed at ${hole} now: ${snap.prompt}`); return; }
  post("action", {kind: snap.panel.steps[who], player: who, holes: [hole]});
}

window.COMPANION.panels.petri = {render, boardClick};
})();
