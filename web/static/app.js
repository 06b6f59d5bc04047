// The table page: renders the referee's snapshots (server-sent events) and posts controls.
"use strict";

const $ = (id) => document.getElementById(id);
let snap = JSON.parse($("initial").textContent);
let passphrase = sessionStorage.getItem("companion-pass") || "";

const ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
function esc(text) {  // safe in element content and in quoted attributes
  return (text == null ? "" : String(text)).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function showError(message) {
  const box = $("error");
  if (!message) { box.hidden = true; return; }
  box.textContent = message;
  box.hidden = false;
}

function askPassphrase(then) {
  const dlg = $("pass-dialog");
  dlg.showModal();
  dlg.addEventListener("close", () => {
    passphrase = $("pass").value.trim();
    sessionStorage.setItem("companion-pass", passphrase);
    if (passphrase && then) then();
  }, {once: true});
}

// The debug bundle holds camera frames and the whole log: other devices send the pass-phrase.
async function downloadDebugBundle() {
  const headers = passphrase ? {"X-Companion-Passphrase": passphrase} : {};
  const resp = await fetch("/api/debug-bundle", {headers});
  if (resp.status === 401) { askPassphrase(downloadDebugBundle); return; }
  if (!resp.ok) {
    let data = {};
    try { data = await resp.json(); } catch (e) { data = {error: "the companion did not answer (" + resp.status + ")"}; }
    showError(data.error);
    return;
  }
  const name = (resp.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await resp.blob());
  link.download = name ? name[1] : "companion-debug.zip";
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function post(path, body) {
  const headers = {"Content-Type": "application/json", "X-Companion-Token": window.COMPANION.token};
  if (passphrase) headers["X-Companion-Passphrase"] = passphrase;
  const resp = await fetch("/api/" + path, {method: "POST", headers, body: JSON.stringify(body || {})});
  let data = {};
  try { data = await resp.json(); } catch (e) { data = {error: "the companion did not answer (" + resp.status + ")"}; }
  if (resp.status === 401) {
    sessionStorage.removeItem("companion-pass-ok");  // the pass-phrase changed (a restart)
    watching = true;
    applyWatching();
    return data;
  }
  showError(data.ok ? "" : data.error);
  // The stream brings the new state soon, but a tap right after an answer must already
  // see it (a die chosen, then a hole tapped): fetch it now rather than act on the old one.
  if (data.ok && typeof data.version === "number" &&
      (data.boot !== snap.boot || data.version > snap.version)) await refresh();
  return data;
}

async function refresh() {
  try {
    const resp = await fetch("/api/state");
    if (resp.ok) render(await resp.json());
  } catch (e) { /* the stream reconnects and brings the state */ }
}

// A device other than the companion's own watches until its pass-phrase is checked.
let watching = window.COMPANION.remote && !sessionStorage.getItem("companion-pass-ok");

function applyWatching() {
  document.body.classList.toggle("watching", watching);
  $("watch-box").hidden = !watching;
  for (const el of document.querySelectorAll("main button, main input, main select, main textarea")) {
    if (el.closest("#watch-box")) continue;
    if (watching) { el.disabled = true; el.dataset.watchOff = "1"; }
    else if (el.dataset.watchOff) { el.disabled = false; delete el.dataset.watchOff; }
  }
  if (!watching) $("undo").disabled = !snap.can_undo;
}

async function checkPassphrase(ev) {
  ev.preventDefault();
  const given = $("watch-pass").value.trim();
  if (!given) return;
  const resp = await fetch("/api/check", {method: "POST", headers: {
    "Content-Type": "application/json", "X-Companion-Token": window.COMPANION.token,
    "X-Companion-Passphrase": given}, body: "{}"});
  let data = {};
  try { data = await resp.json(); } catch (e) { data = {error: "the companion did not answer (" + resp.status + ")"}; }
  if (!data.ok) {
    $("watch-error").textContent = data.error;
    $("watch-error").hidden = false;
    return;
  }
  passphrase = given;
  sessionStorage.setItem("companion-pass", passphrase);
  sessionStorage.setItem("companion-pass-ok", "1");
  $("watch-error").hidden = true;
  watching = false;
  applyWatching();
}

function styleOf(player) {
  return (snap.style && snap.style[player]) || {colour: "#999", glyph: "?", ink: "#000"};
}

function swatch(player) {
  const st = styleOf(player);
  return `<span class="swatch" style="background:${st.colour};color:${st.ink}">${esc(st.glyph)}</span>`;
}

let shown = null;  // the state last drawn, as canonical text

// JSON with every object's keys sorted: the stream and a fetch order keys differently.
function canonical(value) {
  return JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)) ?
    Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v);
}

function render(s) {
  // A state comes twice (fetched after a post, then by the stream), and one may be older
  // than one drawn since. Drawing either would replace the board and the panel's inputs
  // under a tap in flight. Versions are ordered within one run of the server (boot).
  if (shown && s.boot === snap.boot && s.version < snap.version) return;
  const text = canonical({...s, sent_at: 0});
  if (text === shown) return;
  shown = text;
  snap = s;
  const st = s.state;
  $("title").textContent = `${s.title} · game ${s.game_id}`;
  $("turn").textContent = s.tally.over ? `${s.tally.winners.join(" and ") || "nobody"} won` :
    (s.turn ? `turn ${s.turn} · ${s.waiting_for.join(", ")}${s.phase ? " · " + s.phase : ""}` : "setting up");
  $("prompt").textContent = s.prompt;
  if (s.svg) $("board").innerHTML = s.svg;

  const columns = window.COMPANION.columns || [];
  const rows = s.tally.standings.map((row) =>
    `<tr class="${row.out ? "out" : ""}" data-player="${esc(row.player)}"><td>${swatch(row.player)}${esc(row.player)}</td>` +
    `<td class="held">${row.score}</td>` + columns.map(([key]) => `<td>${esc(row[key])}</td>`).join("") + "</tr>").join("");
  $("tally").querySelector("tbody").innerHTML = rows;
  $("needed").textContent = s.tally.headline;

  $("proposal").hidden = !s.proposal;
  if (s.proposal) {
    $("proposal-list").innerHTML = s.proposal.verdict === "undo" ?
      `<li>the table is back as it was ${s.proposal.undo} action(s) ago: undo?</li>` :
      s.proposal.actions.map((a, i) => `<li>${esc(s.proposal.players[i])}: ${esc(a)}</li>`).join("") +
      (s.proposal.alternatives ? `<li><em>${s.proposal.alternatives} other reading(s) fit as well</em></li>` : "");
  }
  $("problems-box").hidden = !s.problems.length;
  $("problems").innerHTML = s.problems.map((p) => `<li>${esc(p)}</li>`).join("");

  $("end").hidden = !s.can_end;
  $("undo").disabled = !s.can_undo;
  $("camera-status").textContent = s.camera.state === "off" ? "(off)" : `(${s.camera.message})`;
  $("camera-box").hidden = s.camera.state === "off";
  const devices = Object.entries(s.devices || {});
  $("devices").hidden = !devices.length;
  $("devices").innerHTML = devices.map(([name, d]) =>
    `<span class="device ${esc(d.state)}" title="${esc(d.message)}">${esc(name)}: ${esc(d.state)}</span>`).join(" · ");
  const deviceEvents = (s.device_events || []).slice(-3);
  if (deviceEvents.length) $("devices").innerHTML += " · " + deviceEvents.map(esc).join(" · ");
  $("devices").hidden = !devices.length && !deviceEvents.length;
  $("camera-status").textContent += s.camera.misreads ? ` · ${s.camera.misreads} misread(s)` : "";
  $("events").innerHTML = s.events.slice().reverse().map((e) =>
    `<li value="${e.n}">${esc(e.text)}</li>`).join("");
  document.body.dataset.version = s.version;
  document.body.dataset.turn = s.turn;
  const panel = window.COMPANION.panels[s.game];
  if (panel && panel.render) panel.render(s);
  applyWatching();  // after the panel: its new buttons are off too while watching
}

function connect() {
  const source = new EventSource("/api/stream");
  source.addEventListener("update", (ev) => render(JSON.parse(ev.data)));
  source.onerror = () => { $("turn").textContent = "reconnecting…"; };
  // Back again: the state it sends first is drawn even if it is the one shown (which
  // puts the turn back in place of "reconnecting…").
  source.onopen = () => { shown = null; };
  return source;
}

// The camera stream costs bandwidth and the Pi's time: only while the tab is visible.
function camera() {
  const img = $("camera");
  if (document.hidden || snap.camera.state === "off") img.removeAttribute("src");
  else if (!img.getAttribute("src")) img.src = "/video.mjpg?t=" + Date.now();
}
document.addEventListener("visibilitychange", camera);

$("end").onclick = () => post("end");
$("undo").onclick = () => post("undo");
$("undo-turn").onclick = () => post("undo", {turn: true});
$("accept").onclick = () => post("accept");
$("debug-bundle").onclick = downloadDebugBundle;
$("new-game").onclick = () => {
  const players = prompt("Players in seat order (comma-separated):", (snap.options.players || []).join(","));
  if (!players) return;
  const options = {};
  for (const [key, value] of Object.entries(snap.options)) {
    if (key === "players") continue;
    if (value !== null && typeof value === "object") { options[key] = value; continue; }  // data (a map): kept as it is
    const given = prompt(`${key}:`, String(value));
    if (given === null) return;
    options[key] = typeof value === "number" ? Number(given) : given;
  }
  post("new", {players, options});
};
$("command-form").onsubmit = async (ev) => {
  ev.preventDefault();
  const text = $("command").value.trim();
  if (!text) return;
  const r = await post("command", {text});
  if (r.ok) $("command").value = "";
};

// A game's panel may handle taps on its board (Peep War corrects a cell).
$("board").addEventListener("click", (ev) => {
  const panel = window.COMPANION.panels[snap.game];
  if (panel && panel.boardClick && !watching) panel.boardClick(ev);
});

if ($("watch-form")) $("watch-form").onsubmit = checkPassphrase;

function companionStart() {
  render(snap);
  camera();
  connect();
}
