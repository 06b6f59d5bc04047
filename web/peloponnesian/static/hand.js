// One player's private page: their hand, their face-down chits, and playing chits from it.
"use strict";

const $ = (id) => document.getElementById(id);
const HAND = window.HAND;
let snap = JSON.parse($("initial").textContent);
let passphrase = sessionStorage.getItem("companion-pass") || "";

const ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
function esc(text) {
  return (text == null ? "" : String(text)).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message || "";
}

async function act(action) {
  const headers = {"Content-Type": "application/json", "X-Companion-Token": HAND.token};
  if (passphrase) headers["X-Companion-Passphrase"] = passphrase;
  const resp = await fetch("/peloponnesian/api/hand", {method: "POST", headers,
    body: JSON.stringify({player: HAND.player, key: HAND.key, action})});
  let data = {};
  try { data = await resp.json(); } catch (e) { data = {error: `the companion did not answer (${resp.status})`}; }
  if (resp.status === 401) {
    passphrase = (prompt("The pass-phrase shown in the companion's terminal:") || "").trim();
    sessionStorage.setItem("companion-pass", passphrase);
    if (passphrase) return act(action);
  }
  showError(data.ok ? "" : data.error);
  refresh();
}

function render(s) {
  snap = s;
  const st = s.state;
  const me = HAND.player;
  const waiting = s.waiting_for.includes(me);
  $("turn").textContent = st.turn ? `turn ${st.turn} of ${st.turns} · Gods' Support: ${st.gods_support}` : "setting up";
  $("prompt").textContent = s.prompt;
  $("board").innerHTML = s.svg;
  const chits = (st.hands[me] && st.hands[me].chits) || [];
  $("hand").innerHTML = chits.map((c) => `<li data-chit="${esc(c.id)}">${esc(c.name)}</li>`).join("") || "<li>no chit</li>";
  $("draw-box").hidden = !(waiting && (st.phase === "draw" || st.phase === "redraw"));
  $("delphi-box").hidden = !(waiting && st.phase === "delphi");
  $("delphi-buttons").innerHTML = `<button data-keep="1" class="primary">Keep the hand</button>` +
    [...new Set(chits.map((c) => c.id))].map((id) =>
      `<button data-swap="${esc(id)}">Discard ${esc(chits.find((c) => c.id === id).name)}</button>`).join("");
  const plays = (s.panel && s.panel.plays) || [];
  const playing = waiting && st.phase === "play";
  $("play-box").hidden = !(playing && plays.length);
  $("pass-box").hidden = !(playing && !plays.length);
  if (playing && plays.length) fillChits(plays, chits);
  $("events").innerHTML = s.events.slice().reverse().map((e) => `<li value="${e.n}">${esc(e.text)}</li>`).join("");
}

function fillChits(plays, chits) {
  const sel = $("play-chit");
  const keep = sel.value;
  const ids = [...new Set(plays.map((p) => p.chit))];
  sel.innerHTML = ids.map((id) => {
    const c = chits.find((x) => x.id === id);
    return `<option value="${esc(id)}">${esc(c ? c.name : id)}</option>`;
  }).join("");
  if (ids.includes(keep)) sel.value = keep;
  fillAreas();
}

function fillAreas() {
  const plays = (snap.panel && snap.panel.plays) || [];
  const chit = $("play-chit").value;
  const star = chit === "star";
  $("star-label").hidden = !star;
  if (star) {
    const kinds = [...new Set(plays.filter((p) => p.chit === "star").map((p) => p.star_as))];
    const keep = $("play-as").value;
    $("play-as").innerHTML = kinds.map((k) => `<option>${esc(k)}</option>`).join("");
    if (kinds.includes(keep)) $("play-as").value = keep;
  }
  const as = star ? $("play-as").value : "";
  const areas = plays.filter((p) => p.chit === chit && p.star_as === as).map((p) => p.area);
  const keepArea = $("play-area").value;
  const names = snap.state.map.areas;
  $("play-area").innerHTML = areas.map((a) => `<option value="${esc(a)}">${esc(names[a].name)}</option>`).join("");
  if (areas.includes(keepArea)) $("play-area").value = keepArea;
}

$("play-chit").onchange = fillAreas;
$("play-as").onchange = fillAreas;
$("play-form").onsubmit = (ev) => {
  ev.preventDefault();
  const chit = $("play-chit").value;
  act({kind: "play", chit, area: $("play-area").value, star_as: chit === "star" ? $("play-as").value : ""});
};
$("pass").onclick = () => act({kind: "pass"});
$("draw").onclick = () => act({kind: "draw"});
$("delphi-buttons").addEventListener("click", (ev) => {
  const b = ev.target.closest("button");
  if (!b) return;
  act(b.dataset.keep ? {kind: "keep"} : {kind: "swap", chit: b.dataset.swap});
});

async function refresh() {
  const resp = await fetch(`/peloponnesian/api/hand/${encodeURIComponent(HAND.player)}?key=${encodeURIComponent(HAND.key)}`);
  if (resp.ok) render(await resp.json());
}

render(snap);
// The table's stream says when anything changed; this page then fetches its own view.
new EventSource("/api/stream").addEventListener("update", refresh);
