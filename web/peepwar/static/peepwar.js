// Peep War's panel: the fight box (odds, the egg, eating) and correcting a cell by tapping it.
"use strict";

(() => {
const $ = (id) => document.getElementById(id);

function renderFight(s) {
  const st = s.state;
  const fight = s.panel.odds;
  $("needed").textContent = `${s.tally.needed} of the ${s.panel.supply_centers_in_play} Supply Centers win`;
  $("end").textContent = st.phase === "movement" ? "End movement" : "End turn";
  $("end").disabled = !(st.phase === "movement" || st.phase === "production");
  $("fight").hidden = !st.combat;
  if (!st.combat) return;
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

$("fight-buttons").addEventListener("click", (ev) => {
  const btn = ev.target.closest("button[data-act]");
  if (!btn) return;
  const act = btn.dataset.act;
  if (act === "draw") post("draw", btn.dataset.owner ? {owner: btn.dataset.owner} : {});
  if (act === "eat") post("eat", {what: btn.dataset.what});
  if (act === "peep-beans") post("peep-beans", {commit: btn.dataset.commit === "true"});
});

// Correcting a cell: tap it on the board, say what really stands there.
function correctCell(ev) {
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
}
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

window.COMPANION.panels.peepwar = {render: renderFight, boardClick: correctCell};
})();
