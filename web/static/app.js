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

async function post(path, body) {
  const headers = {"Content-Type": "application/json", "X-Companion-Token": window.COMPANION.token};
  if (passphrase) headers["X-Companion-Passphrase"] = passphrase;
  const resp = await fetch("/api/" + path, {method: "POST", headers, body: JSON.stringify(body || {})});
  let data = {};
  try { data = await resp.json(); } catch (e) { data = {error: "the companion did not answer (" + resp.status + ")"}; }
  if (resp.status === 401) {
    const dlg = $("pass-dialog");
    dlg.showModal();
    dlg.addEventListener("close", () => {
      passphrase = $("pass").value.trim();
      sessionStorage.setItem("companion-pass", passphrase);
      if (passphrase) post(path, body);
    }, {once: true});
    return data;
  }
  showError(data.ok ? "" : data.error);
  return data;
}

function styleOf(player) {
  return (snap.style && snap.style[player]) || {colour: "#999", glyph: "?", ink: "#000"};
}

function swatch(player) {
  const st = styleOf(player);
  return `<span class="swatch" style="background:${st.colour};color:${st.ink}">${esc(st.glyph)}</span>`;
}

function render(s) {
  snap = s;
  const st = s.state;
  $("title").textContent = `Peep War ${st.edition} · game ${s.game_id}`;
  $("turn").textContent = st.winner ? `${st.winner} won` :
    (st.turn ? `turn ${st.turn} · ${st.current} · ${st.phase}` : "setting up");
  $("prompt").textContent = s.prompt;
  if (s.svg) $("board").innerHTML = s.svg;

  const rows = s.tally.standings.map((row) =>
    `<tr class="${row.out ? "out" : ""}" data-player="${esc(row.player)}"><td>${swatch(row.player)}${esc(row.player)}</td>` +
    `<td class="held">${row.score}</td><td>${row.troops}</td><td>${row.peeps}</td></tr>`).join("");
  $("tally").querySelector("tbody").innerHTML = rows;
  $("needed").textContent = `${s.tally.needed} of the ${s.supply_centers_in_play} Supply Centers win`;

  const fight = s.odds;
  $("fight").hidden = !st.combat;
  if (st.combat) {
    const c = st.combat;
    $("fight-cell").textContent = c.cell;
    if (fight) {
      $("odds").innerHTML = `${swatch(fight.attacker)}${esc(fight.attacker)} ${(fight.attacker_wins * 100).toFixed(1)}% · ` +
        `${swatch(fight.defender)}${esc(fight.defender)} ${(fight.defender_wins * 100).toFixed(1)}%`;
      $("likely").innerHTML = "<tr><th>likely</th><th>left</th><th>chance</th></tr>" + fight.likely.map((o) =>
        `<tr><td>${esc(o.winner === "attacker" ? fight.attacker : fight.defender)} wins</td><td>${o.beans_left} beans</td>` +
        `<td>${(o.probability * 100).toFixed(1)}%</td></tr>`).join("");
      $("egg").textContent = "In the egg: " + Object.entries(fight.egg).map(([p, v]) =>
        `${p} ${v.troops} troop + ${v.peep} peep beans`).join(", ");
    }
    const b = [];
    if (c.undecided.length) {
      b.push(`<button data-act="peep-beans" data-commit="true" class="primary">Peep beans in</button>`);
      b.push(`<button data-act="peep-beans" data-commit="false">Keep them out</button>`);
    } else if (c.victor) {
      b.push(`<button data-act="eat" data-what="troop" class="primary">Eat a troop bean</button>`);
      b.push(`<button data-act="eat" data-what="peep">Eat a peep bean</button>`);
    } else {
      b.push(`<button data-act="draw" class="primary">Digital egg: draw</button>`);
      for (const p of [c.attacker, c.defender]) {
        b.push(`<button data-act="draw" data-owner="${esc(p)}">${swatch(p)}drew ${esc(p)}</button>`);
      }
    }
    $("fight-buttons").innerHTML = b.join("");
  }

  $("proposal").hidden = !s.proposal;
  if (s.proposal) {
    $("proposal-list").innerHTML = s.proposal.verdict === "undo" ?
      `<li>the table is back as it was ${s.proposal.undo} action(s) ago: undo?</li>` :
      s.proposal.actions.map((a, i) => `<li>${esc(s.proposal.players[i])}: ${esc(a)}</li>`).join("") +
      (s.proposal.alternatives ? `<li><em>${s.proposal.alternatives} other reading(s) fit as well</em></li>` : "");
  }
  $("problems-box").hidden = !s.problems.length;
  $("problems").innerHTML = s.problems.map((p) => `<li>${esc(p)}</li>`).join("");

  $("end").textContent = st.phase === "movement" ? "End movement" : "End turn";
  $("end").disabled = !(st.phase === "movement" || st.phase === "production");
  $("undo").disabled = !s.can_undo;
  $("camera-status").textContent = s.camera.state === "off" ? "(off)" : `(${s.camera.message})`;
  $("camera-box").hidden = s.camera.state === "off";
  const devices = Object.entries(s.devices || {});
  $("devices").hidden = !devices.length;
  $("devices").innerHTML = devices.map(([name, d]) =>
    `<span class="device ${esc(d.state)}" title="${esc(d.message)}">${esc(name)}: ${esc(d.state)}</span>`).join(" · ");
  $("events").innerHTML = s.events.slice().reverse().map((e) => `<li>${esc(e.text)}</li>`).join("");
  document.body.dataset.version = s.version;
  document.body.dataset.turn = st.turn;
}

function connect() {
  const source = new EventSource("/api/stream");
  source.addEventListener("update", (ev) => render(JSON.parse(ev.data)));
  source.onerror = () => { $("turn").textContent = "reconnecting…"; };
  return source;
}

// The camera stream costs bandwidth and the Pi's time: only while the tab is visible.
function camera() {
  const img = $("camera");
  if (document.hidden || snap.camera.state === "off") img.removeAttribute("src");
  else if (!img.getAttribute("src")) img.src = "/video.mjpg?t=" + Date.now();
}
document.addEventListener("visibilitychange", camera);

document.addEventListener("click", (ev) => {
  const btn = ev.target.closest("button[data-act]");
  if (!btn) return;
  const act = btn.dataset.act;
  if (act === "draw") post("draw", btn.dataset.owner ? {owner: btn.dataset.owner} : {});
  if (act === "eat") post("eat", {what: btn.dataset.what});
  if (act === "peep-beans") post("peep-beans", {commit: btn.dataset.commit === "true"});
});

$("end").onclick = () => post("end");
$("undo").onclick = () => post("undo");
$("undo-turn").onclick = () => post("undo", {turn: true});
$("accept").onclick = () => post("accept");
$("new-game").onclick = () => {
  const players = prompt("Players in seat order (comma-separated):", snap.state.players.join(","));
  if (!players) return;
  const edition = prompt("Edition (2001 or 2005):", String(snap.state.edition));
  post("new", {players, edition: Number(edition) || 2005});
};
$("command-form").onsubmit = async (ev) => {
  ev.preventDefault();
  const text = $("command").value.trim();
  if (!text) return;
  const r = await post("command", {text});
  if (r.ok) $("command").value = "";
};

// Correcting a cell: tap it on the board, say what really stands there.
$("board").addEventListener("click", (ev) => {
  const poly = ev.target.closest("[data-cell]");
  if (!poly) return;
  const cell = poly.dataset.cell;
  const entry = snap.state.cells[cell] || {pieces: {}, supply_center: false};
  $("correct-cell").textContent = cell;
  $("correct-sc").checked = !!entry.supply_center;
  $("correct-players").innerHTML = snap.state.players.map((p) => {
    const v = (entry.pieces || {})[p] || {troops: 0, peep: false};
    return `<div class="row">${swatch(p)}<span>${esc(p)}</span>` +
      `<input type="number" min="0" max="5" value="${v.troops}" data-player="${esc(p)}" aria-label="${esc(p)} troops"> troops ` +
      `<label><input type="checkbox" data-peep="${esc(p)}" ${v.peep ? "checked" : ""}> peep</label></div>`;
  }).join("");
  const dlg = $("correct-dialog");
  dlg.dataset.cell = cell;
  dlg.showModal();
});
$("correct-dialog").addEventListener("close", () => {
  const dlg = $("correct-dialog");
  if (dlg.returnValue !== "ok") return;
  const pieces = {};
  dlg.querySelectorAll("input[data-player]").forEach((inp) => {
    const p = inp.dataset.player;
    const peep = dlg.querySelector(`input[data-peep="${CSS.escape(p)}"]`).checked;
    const troops = Number(inp.value) || 0;
    if (troops || peep) pieces[p] = {troops, peep};
  });
  post("correct", {cell: dlg.dataset.cell, pieces, supply_center: $("correct-sc").checked});
});

render(snap);
camera();
connect();
