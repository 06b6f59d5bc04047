// A Peloponnesian War on the table page: whose chits are awaited, and the resolve button.
"use strict";

(() => {
const $ = (id) => document.getElementById(id);

function render(s) {
  const st = s.state;
  $("end").textContent = "Resolve the struggles";
  const parts = [];
  if (st.turn) parts.push(`turn ${st.turn} of ${st.turns}`, `Gods' Support: ${st.gods_support}`);
  if (st.delphi_holder) parts.push(`Delphi: ${st.delphi_holder}`);
  parts.push(`chits in the cup: ${st.cup}`);
  parts.push("in hand: " + Object.entries(st.hands).map(([p, h]) => `${p} ${h.count}`).join(", "));
  $("pelo-status").textContent = parts.join(" · ");
}

window.COMPANION.panels.peloponnesian = {render};
})();
