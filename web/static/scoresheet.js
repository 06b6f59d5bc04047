// The PeltaPeeps score-sheet page: draws the reading over the photo, sends corrections,
// shows the server's score. All arithmetic is the server's; this only edits the reading.
"use strict";

const $ = (id) => document.getElementById(id);
const initial = JSON.parse($("initial").textContent);
const api = initial.api;
let passphrase = sessionStorage.getItem("companion-pass") || "";

const state = {
  photo: null,     // {id, url, name, catalog, teams, colours, seats, unplayed}
  reading: null,   // the corrected reading, as the server's JSON
  seats: null,     // [[player, team], ...] or null for one player per colour
  unplayed: {},    // team -> piece ids, only for teams the user has edited
  result: null,    // the server's last answer
  editing: -1,     // index of the piece in the dialog (-2: a piece being added)
  adding: null,    // photo px where a piece the reader missed is being added, or true while waiting for the tap
  wholePhoto: false,
  warningsShown: false,  // a long list starts folded; afterwards the user decides
  scored: 0,
};

const ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
function esc(text) {  // safe in element content and in quoted attributes
  return (text == null ? "" : String(text)).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function prompt(text) { $("prompt").textContent = text || ""; }

async function post(url, body) {
  const headers = {"X-Companion-Token": window.COMPANION.token};
  if (passphrase) headers["X-Companion-Passphrase"] = passphrase;
  const isForm = body instanceof FormData;
  if (!isForm) headers["Content-Type"] = "application/json";
  const resp = await fetch(url, {method: "POST", headers, body: isForm ? body : JSON.stringify(body)});
  let data;
  try { data = await resp.json(); } catch (e) { data = {ok: false, error: "the companion did not answer (" + resp.status + ")"}; }
  if (resp.status === 401) {
    return new Promise((resolve) => {
      const dlg = $("pass-dialog");
      dlg.showModal();
      dlg.addEventListener("close", () => {
        passphrase = $("pass").value.trim();
        sessionStorage.setItem("companion-pass", passphrase);
        resolve(passphrase ? post(url, body) : data);
      }, {once: true});
    });
  }
  return data;
}

function colourOf(team) {
  return (state.photo && state.photo.colours[team]) || "#888";
}

function swatch(team) {
  return `<span class="swatch" style="background:${esc(colourOf(team))}">&nbsp;</span>`;
}

function pieceInfo(id) {
  return state.photo.catalog.pieces.find((p) => p.id === id);
}

// --- drawing the reading over the photo ----------------------------------------------------

function pieceSvg(p, i) {
  const colour = esc(colourOf(p.team));
  const r = p.radius_px;
  const [cx, cy] = p.centre_px;
  const shape = p.outline_px && p.outline_px.length > 2
    ? `<polygon points="${p.outline_px.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ")}"/>`
    : `<circle cx="${cx}" cy="${cy}" r="${r}"/>`;
  const size = Math.max(r * 0.42, 10);
  const unsure = p.confidence !== undefined && p.confidence < 1;
  return `<g class="piece ${p.face_up ? "up" : "down"}${unsure ? " unsure" : ""}" data-index="${i}" data-uid="${esc(p.uid)}" ` +
    `style="--team:${colour}" stroke-width="${(r * 0.09).toFixed(1)}" tabindex="0" role="button" ` +
    `aria-label="${esc(p.team)} ${esc(p.piece)} face ${p.face_up ? "up" : "down"}">` +
    shape +
    `<text x="${cx}" y="${cy - size * 0.15}" font-size="${size.toFixed(1)}">${esc(p.piece)}</text>` +
    `<text class="face" x="${cx}" y="${cy + size * 0.85}" font-size="${(size * 0.7).toFixed(1)}">` +
    `${p.face_up ? "▲ up" : "▽ down"}</text>` +
    // Read unsure: a badge, not a colour (a red piece's outline is red already).
    (unsure ? `<text class="unsure-mark" x="${cx + r * 0.62}" y="${cy - r * 0.62}" ` +
      `font-size="${(size * 1.1).toFixed(1)}">?</text>` : "") + "</g>";
}

function joinSvg(j, k, where) {
  const a = where[j.a], b = where[j.b];
  const r = Math.max(((a ? a.radius_px : 20) + (b ? b.radius_px : 20)) / 2 * 0.2, 5);
  const line = a && b
    ? `<line x1="${a.centre_px[0]}" y1="${a.centre_px[1]}" x2="${b.centre_px[0]}" y2="${b.centre_px[1]}" stroke-width="${(r * 0.35).toFixed(1)}"/>`
    : "";
  return `<g class="join ${esc(j.kind)}" data-join="${k}" tabindex="0" role="button" ` +
    `aria-label="${esc(j.a)} and ${esc(j.b)}: ${esc(j.kind)}">${line}` +
    `<circle cx="${j.at_px[0]}" cy="${j.at_px[1]}" r="${r.toFixed(1)}" stroke-width="${(r * 0.3).toFixed(1)}"/></g>`;
}

// The part of the photo the pieces lie in (with a margin), or all of it.
function viewBox() {
  const [w, h] = state.reading.image_size;
  const ps = state.reading.pieces;
  if (state.wholePhoto || !ps.length) return [0, 0, w, h];
  const margin = 2.2 * Math.max(...ps.map((p) => p.radius_px));
  const x0 = Math.max(0, Math.min(...ps.map((p) => p.centre_px[0])) - margin);
  const y0 = Math.max(0, Math.min(...ps.map((p) => p.centre_px[1])) - margin);
  const x1 = Math.min(w, Math.max(...ps.map((p) => p.centre_px[0])) + margin);
  const y1 = Math.min(h, Math.max(...ps.map((p) => p.centre_px[1])) + margin);
  return [x0, y0, x1 - x0, y1 - y0].map((v) => Math.round(v));
}

function drawOverlay() {
  const rd = state.reading;
  const [w, h] = rd.image_size;
  const where = {};
  rd.pieces.forEach((p) => { where[p.uid] = p; });
  $("zoom").textContent = state.wholePhoto ? "Zoom to the pieces" : "Whole photo";
  $("overlay").innerHTML =
    `<svg viewBox="${viewBox().join(" ")}" xmlns="http://www.w3.org/2000/svg">` +
    `<image href="${esc(state.photo.url)}" x="0" y="0" width="${w}" height="${h}"/>` +
    `<g class="pieces">${rd.pieces.map(pieceSvg).join("")}</g>` +
    `<g class="joins">${rd.joins.map((j, k) => joinSvg(j, k, where)).join("")}</g></svg>`;
}

// --- the sheet -------------------------------------------------------------------------------

const LINES = ["joins", "bonus", "face_up", "unplayed", "unplayed_peeps", "total"];

// The server's verdict on the reading: when it may not be a layout, that comes first and
// the sheet names no winner.
function drawVerdict(res) {
  const doubt = res.verdict.level !== "layout";
  $("verdict-box").hidden = !doubt;
  $("verdict").textContent = doubt
    ? `The photo may not show a PeltaPeeps layout: ${res.verdict.reason}. No winner is named; ` +
      "correct the pieces (tap each to confirm or fix it) and the sheet is scored again."
    : "";
  $("headline").textContent = doubt ? "No winner named" : res.headline;
  $("headline").classList.toggle("doubt", doubt);
}

function drawSheet() {
  const res = state.result;
  drawVerdict(res);
  const teamsOf = {};
  res.seats.forEach(([player, team]) => { (teamsOf[player] = teamsOf[player] || []).push(team); });
  // A line resting on a piece read unsure is marked: confirm or fix those pieces.
  const row = ([player, line]) => {
    const uids = Object.hasOwn(res.to_check || {}, player) ? res.to_check[player] : null;
    const mark = uids ? ` <span class="check" title="rests on pieces read unsure: ${esc(uids.join(", "))}">check</span>` : "";
    return `<tr data-player="${esc(player)}"${uids ? ' class="to-check"' : ""}>` +
      `<th>${(teamsOf[player] || []).map(swatch).join("")}${esc(player)}${mark}</th>` +
      LINES.map((k) => `<td class="${k}">${line[k]}</td>`).join("") + "</tr>";
  };
  $("totals").querySelector("tbody").innerHTML = Object.entries(res.sheet).map(row).join("");
  const counts = Object.entries(res.seen).map(([team, n]) =>
    `${swatch(team)}${esc(team)} ${n} seen (${res.face_up[team] || 0} face up)`);
  $("counts").innerHTML = counts.join(" · ") + ` · ${res.joins} join${res.joins === 1 ? "" : "s"}`;
  $("set-used").textContent = `Set: ${res.set}`;
  $("totals-box").hidden = false;

  $("warnings").innerHTML = res.warnings.map((w) => `<li>${esc(w)}</li>`).join("");
  $("warnings-title").textContent = `Check these (${res.warnings.length})`;
  if (!state.warningsShown && res.warnings.length > 3) $("warnings-details").open = false;
  state.warningsShown = state.warningsShown || res.warnings.length > 0;
  $("warnings-box").hidden = !res.warnings.length;

  $("players").innerHTML = res.seats.map(([player, team]) =>
    `<label class="row">${swatch(team)}<span class="colour">${esc(team)}</span>` +
    `<input data-team="${esc(team)}" value="${esc(player)}" autocomplete="off" spellcheck="false"></label>`).join("");
  $("players-box").hidden = false;

  const seenBy = {};
  state.reading.pieces.forEach((p) => { (seenBy[p.team] = seenBy[p.team] || new Set()).add(p.piece); });
  $("unplayed").innerHTML = res.seats.map(([player, team]) => {
    const left = new Set(res.unplayed[team] || []);
    const boxes = state.photo.catalog.pieces.map((pc) => {
      const seen = seenBy[team] && seenBy[team].has(pc.id);
      return `<label class="${seen ? "seen" : ""}" title="${esc(pc.kind_name)}${seen ? " (in the photo)" : ""}">` +
        `<input type="checkbox" data-team="${esc(team)}" data-piece="${esc(pc.id)}"${left.has(pc.id) ? " checked" : ""}>` +
        `${esc(pc.id)}</label>`;
    }).join("");
    return `<fieldset><legend>${swatch(team)}${esc(team)}${player !== team ? " · " + esc(player) : ""}</legend>${boxes}</fieldset>`;
  }).join("");
  $("unplayed-box").hidden = false;
}

function render() {
  drawOverlay();
  drawSheet();
  state.scored += 1;
  document.body.dataset.scored = String(state.scored);
}

// What a correction may change, to put back when the companion refuses it.
function snapshot() {
  return JSON.parse(JSON.stringify({reading: state.reading, seats: state.seats, unplayed: state.unplayed}));
}

let rescoring = 0;  // only the newest reply is shown: an older one may arrive last

async function rescore(before) {
  const unplayed = Object.keys(state.unplayed).length ? state.unplayed : null;
  const mine = ++rescoring;
  const data = await post(api.score, {photo: state.photo.id, reading: state.reading, seats: state.seats, unplayed});
  if (mine !== rescoring) return;
  if (!data.ok) {
    if (before) {
      Object.assign(state, before);
      if (state.result) render();
    }
    showError(data.error);
    return;
  }
  showError("");
  state.result = data;
  render();
}

function load(photo, result) {
  state.photo = photo;
  state.reading = JSON.parse(JSON.stringify(photo.reading));
  state.seats = photo.seats;
  state.unplayed = photo.unplayed ? {...photo.unplayed} : {};
  prompt(`${photo.name}: ${photo.reading.pieces.length} pieces read. Tap anything the camera got wrong.`);
  if (result) {
    state.result = result;
    render();
  } else {
    rescore();
  }
}

// --- corrections -------------------------------------------------------------------------

function freeUid(base, i) {
  let uid = base;
  for (let n = 2; state.reading.pieces.some((q, k) => k !== i && q.uid === uid); n++) uid = `${base}#${n}`;
  return uid;
}

function changePiece(i, team, pieceId, faceUp) {
  const p = state.reading.pieces[i];
  const uid = (team === p.team && pieceId === p.piece) ? p.uid : freeUid(`${team}:${pieceId}`, i);
  // A join names its pieces by uid, which no two pieces share (the companion refuses that).
  state.reading.joins.forEach((j) => {
    ["a", "b"].forEach((end) => { if (j[end] === p.uid) j[end] = uid; });
  });
  Object.assign(p, {uid, team, piece: pieceId, face_up: faceUp, confidence: 1.0});
  if (state.seats && !state.seats.some(([, t]) => t === team)) state.seats.push([team, team]);
}

function removePiece(i) {
  const p = state.reading.pieces[i];
  state.reading.joins = state.reading.joins.filter((j) => j.a !== p.uid && j.b !== p.uid);
  state.reading.pieces.splice(i, 1);
}

function openEditor(i, fresh) {
  const p = fresh || state.reading.pieces[i];
  state.editing = i;
  $("piece-name").textContent = fresh ? "the photo missed" : `${p.team} ${p.piece}`;
  $("piece-remove").hidden = Boolean(fresh);
  $("piece-team").innerHTML = state.photo.teams.map((t) =>
    `<option value="${esc(t)}"${t === p.team ? " selected" : ""}>${esc(t)}</option>`).join("");
  $("piece-id").innerHTML = state.photo.catalog.pieces.map((pc) =>
    `<option value="${esc(pc.id)}"${pc.id === p.piece ? " selected" : ""}>${esc(pc.id)} · ` +
    `${esc(pc.kind_name)} (${pc.interfaces} connector${pc.interfaces === 1 ? "" : "s"})</option>`).join("");
  $("piece-up").checked = p.face_up;
  $("piece-down").checked = !p.face_up;
  $("piece-dialog").returnValue = "";  // Escape closes without one: keep no old answer
  $("piece-dialog").showModal();
}

$("piece-dialog").addEventListener("close", () => {
  const i = state.editing;
  state.editing = -1;
  const how = $("piece-dialog").returnValue;
  if (i === -2) {
    const at = state.adding;
    state.adding = null;
    if (how !== "ok") { prompt(""); return; }
    const before = snapshot();
    addPiece(at, $("piece-team").value, $("piece-id").value, $("piece-up").checked);
    prompt("Added. Tap each dot where it joins a neighbour.");
    rescore(before);
    return;
  }
  if (i < 0 || !state.reading.pieces[i]) return;
  const before = snapshot();
  if (how === "ok") {
    changePiece(i, $("piece-team").value, $("piece-id").value, $("piece-up").checked);
  } else if (how === "remove") {
    removePiece(i);
  } else {
    return;
  }
  rescore(before);
});

// A piece the reader missed, put where it was tapped; it meets every piece about two radii
// away, as "no join" until the user taps the dots where it joins.
function addPiece(at, team, pieceId, faceUp) {
  const ps = state.reading.pieces;
  const radii = ps.map((q) => q.radius_px).sort((a, b) => a - b);
  const r = radii.length ? radii[Math.floor(radii.length / 2)] : 40;
  const uid = freeUid(`${team}:${pieceId}`, -1);
  ps.forEach((q) => {
    if (Math.hypot(q.centre_px[0] - at[0], q.centre_px[1] - at[1]) <= 1.2 * (r + q.radius_px)) {
      const [a, b] = [uid, q.uid].sort();
      state.reading.joins.push({a, b, kind: "touch", confidence: 1.0,
        at_px: [(q.centre_px[0] + at[0]) / 2, (q.centre_px[1] + at[1]) / 2]});
    }
  });
  ps.push({uid, team, piece: pieceId, face_up: faceUp, centre_px: at, radius_px: r,
           rotation: 0, confidence: 1.0, outline_px: []});
  if (state.seats && !state.seats.some(([, t]) => t === team)) state.seats.push([team, team]);
}

// Photo px under a click on the overlay.
function photoPoint(ev) {
  const svg = $("overlay").querySelector("svg");
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX;
  pt.y = ev.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  return [Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10];
}

$("add-piece").addEventListener("click", () => {
  if (!state.reading) return;
  state.adding = true;
  prompt("Tap the middle of the piece the photo missed.");
});

function toggleJoin(k) {
  const before = snapshot();
  const j = state.reading.joins[k];
  j.kind = j.kind === "join" ? "touch" : "join";
  j.confidence = 1.0;
  rescore(before);
}

function activate(target) {
  const join = target.closest("g.join");
  if (join) { toggleJoin(Number(join.dataset.join)); return; }
  const piece = target.closest("g.piece");
  if (piece) openEditor(Number(piece.dataset.index));
}

$("overlay").addEventListener("click", (ev) => {
  if (state.adding === true) {
    state.adding = photoPoint(ev);
    const team = state.photo.teams[0];
    openEditor(-2, {team, piece: state.photo.catalog.pieces[0].id, face_up: true});
    return;
  }
  activate(ev.target);
});
$("overlay").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); activate(ev.target); }
});

$("zoom").addEventListener("click", () => {
  state.wholePhoto = !state.wholePhoto;
  if (state.reading) drawOverlay();
});

$("players").addEventListener("change", () => {
  const before = snapshot();
  state.seats = Array.from($("players").querySelectorAll("input[data-team]"))
    .map((box) => [box.value.trim(), box.dataset.team]);
  rescore(before);
});

$("unplayed").addEventListener("change", (ev) => {
  const box = ev.target;
  if (!box.dataset.team) return;
  const team = box.dataset.team;
  const before = snapshot();
  state.unplayed[team] = Array.from($("unplayed").querySelectorAll("input[type=checkbox]"))
    .filter((b) => b.dataset.team === team && b.checked).map((b) => b.dataset.piece);
  rescore(before);
});

// --- uploading a photo (the live app) ------------------------------------------------------

$("upload-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const file = $("upload-file").files[0];
  if (!file) { showError("choose a photo of the layout first"); return; }
  const form = new FormData();
  form.append("photo", file);
  form.append("set", $("upload-set").value);
  $("upload-go").disabled = true;
  prompt("Reading the photo… this takes a few seconds.");
  try {
    const data = await post(api.upload, form);
    if (!data.ok) { showError(data.error); prompt(""); return; }
    showError("");
    load(data.photo, data);
  } finally {
    $("upload-go").disabled = Boolean(initial.problem);
  }
});

if (initial.uploads) {
  $("upload-box").hidden = false;
  if (initial.problem) {
    showError(initial.problem);
    $("upload-go").disabled = true;
  } else {
    prompt("Photograph the finished layout from above, then read it here.");
  }
}
if (initial.photo) load(initial.photo, initial.result);
