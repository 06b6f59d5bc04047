"""``companion odds``: exact Peep War combat odds before the beans go in the egg.

Players ask "should I attack?" at the table; this answers with the exact
chances, the expected beans left and what is likely to survive, in text for
people or ``--json`` for the web page and scripts (table standard, sections 5
and 6).
"""

from __future__ import annotations

import argparse
import json
import re
from itertools import product
from typing import Any

from companion.errors import UserError, quoted
from companion.rules.peepwar.odds import (
    MAX_PEEP_HEALTH,
    POLICIES,
    Odds,
    Side,
    Survivors,
    combat_odds,
    fraction_text,
)

MAX_TROOPS = 5  # the rules never allow more than five of a player's troops in one cell
EDITIONS = ("2001", "2005")
# A count longer than any side's is refused as no side before it is read: int() refuses
# one of more than 4,300 digits, which ended the command on a traceback.
_DIGITS = 9
_SIDE_FORM = re.compile(rf"([0-9]{{1,{_DIGITS}}})(?:\+([0-9]{{1,{_DIGITS}}}))?")
_FORM_HINT = (
    f"write T or T+P with T troops 0..{MAX_TROOPS} and P peep health 1..{MAX_PEEP_HEALTH}, "
    "e.g. 3 or 2+3"
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``odds``."""
    parser = subparsers.add_parser(
        "odds",
        help="exact Peep War combat odds",
        description=(
            "Exact chances of a Peep War fight (table standard, section 6): who wins, "
            "the expected beans left and the likely outcomes, with what survives when "
            "the loser eats troops first or the peep first. --attacker and --defender "
            "are both required."
        ),
    )
    parser.add_argument(
        "--attacker",
        metavar="T[+P]",
        help=f"attacking troops, plus a peep of health P: e.g. 3 or 2+3 (T 0..{MAX_TROOPS})",
    )
    parser.add_argument("--defender", metavar="T[+P]", help="defending troops and peep, as above")
    parser.add_argument(
        "--edition",
        default="2005",
        metavar="{2001,2005}",
        help="rules edition (default 2005, where a peep's beans always go in)",
    )
    parser.add_argument(
        "--attacker-peep-out",
        action="store_true",
        help="2001 only: the attacker keeps its peep's beans out of the container",
    )
    parser.add_argument(
        "--defender-peep-out",
        action="store_true",
        help="2001 only: the defender keeps its peep's beans out of the container",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def parse_side(text: str | None, option: str) -> Side:
    """Read ``T`` or ``T+P`` for ``option``; raise UserError naming the bad value."""
    if text is None:
        raise UserError(f"{option} is required: {_FORM_HINT}")
    text = text.strip()  # as read: spaces around a side are no fault of it, nor echoed
    match = _SIDE_FORM.fullmatch(text)
    if not match:
        raise UserError(f"{option} {quoted(text)} is not a side: {_FORM_HINT}")
    troops = int(match[1])
    if troops > MAX_TROOPS:
        raise UserError(
            f"{option} {quoted(text)} has {troops} troops but a cell holds at most "
            f"{MAX_TROOPS} of a player's troops: {_FORM_HINT}"
        )
    peep = int(match[2]) if match[2] is not None else 0
    if match[2] is not None and not 1 <= peep <= MAX_PEEP_HEALTH:
        raise UserError(f"{option} {quoted(text)} has peep health {peep}: {_FORM_HINT}")
    if troops == 0 and peep == 0:
        raise UserError(
            f"{option} {quoted(text)}: a side needs at least one troop or a peep; {_FORM_HINT}"
        )
    return Side(troops, peep)


def _peep_out(side: Side, out: bool, option: str, flag: str) -> Side:
    """``side`` with its peep's beans kept out when ``flag`` asks for it."""
    if not out:
        return side
    if not side.peep:
        raise UserError(f"{flag} needs a peep on that side: write {option} T+P, e.g. {option} 2+3")
    return Side(side.troops, side.peep, peep_beans=False)


def peep_beans_choices(attacker: Side, defender: Side) -> dict[str, dict[str, Any]]:
    """The attacker's chance for every 2001 in/out choice of the peeps present.

    Keys name the choice per side that has a peep, e.g.
    ``"attacker_peep_in,defender_peep_out"``; a choice that leaves no bean in the
    container at all is not a fight and is left out.
    """
    options = [
        [(name, False), (name, True)] if side.peep else [(name, None)]
        for name, side in (("attacker", attacker), ("defender", defender))
    ]
    choices: dict[str, dict[str, Any]] = {}
    for (att_name, att_out), (def_name, def_out) in product(*options):
        att = Side(attacker.troops, attacker.peep, peep_beans=not att_out)
        dfn = Side(defender.troops, defender.peep, peep_beans=not def_out)
        if att.beans == 0 and dfn.beans == 0:
            continue
        key = ",".join(
            f"{name}_peep_{'out' if out else 'in'}"
            for name, out in ((att_name, att_out), (def_name, def_out))
            if out is not None
        )
        p = combat_odds(att, dfn).attacker_wins
        choices[key] = {"attacker_wins": float(p), "attacker_wins_exact": fraction_text(p)}
    return choices


def run(args: argparse.Namespace) -> int:
    """Print the odds of the fight described by ``args``."""
    if args.edition not in EDITIONS:
        raise UserError(f"--edition {quoted(args.edition)} is not known: use 2001 or 2005")
    attacker = parse_side(args.attacker, "--attacker")
    defender = parse_side(args.defender, "--defender")
    for flag, used in (
        ("--attacker-peep-out", args.attacker_peep_out),
        ("--defender-peep-out", args.defender_peep_out),
    ):
        if used and args.edition != "2001":
            raise UserError(
                f"{flag} applies only to --edition 2001; in edition {args.edition} "
                "a peep's beans always go in"
            )
    base_attacker, base_defender = attacker, defender
    attacker = _peep_out(attacker, args.attacker_peep_out, "--attacker", "--attacker-peep-out")
    defender = _peep_out(defender, args.defender_peep_out, "--defender", "--defender-peep-out")
    if attacker.beans == 0 and defender.beans == 0:
        raise UserError(
            "with both peeps kept out no bean goes in, so there is no fight: "
            "drop --attacker-peep-out or --defender-peep-out"
        )
    odds = combat_odds(attacker, defender)
    choices = peep_beans_choices(base_attacker, base_defender) if args.edition == "2001" else None
    if args.json:
        data = {"edition": int(args.edition), **odds.to_dict()}
        if choices is not None:
            data["peep_beans_choices"] = choices
        print(json.dumps(data, indent=2))
    else:
        print(render_text(odds, args.edition, choices))
    return 0


def _describe_side(side: Side) -> str:
    """``3 troops + peep (health 2, beans out)`` and the like."""
    parts = []
    if side.troops:
        parts.append(f"{side.troops} troop{'s' if side.troops != 1 else ''}")
    if side.peep:
        out = "" if side.peep_beans else ", beans kept out"
        parts.append(f"peep (health {side.peep}{out})")
    return " + ".join(parts)


def _describe_survivors(s: Survivors, had_peep: bool) -> str:
    """``2 troops, peep 1`` / ``peep dead`` for the outcomes table."""
    parts = [f"{s.troops} troop{'s' if s.troops != 1 else ''}"] if s.troops else []
    if had_peep:
        parts.append(f"peep {s.peep}" if s.peep else "peep dead")
    return ", ".join(parts)


def _percent(p: Any) -> str:
    return f"{float(p) * 100:.2f}%"


def render_text(odds: Odds, edition: str, choices: dict[str, dict[str, Any]] | None) -> str:
    """The odds as a few lines and a small table for people at the table."""
    lines = [
        f"Peep War {edition}: attacker {_describe_side(odds.attacker)} "
        f"v defender {_describe_side(odds.defender)}",
        f"attacker wins {_percent(odds.attacker_wins):>8}  ({fraction_text(odds.attacker_wins)})",
        f"defender wins {_percent(odds.defender_wins):>8}  ({fraction_text(odds.defender_wins)})",
        "expected beans left: attacker "
        f"{float(odds.expected_beans_left['attacker']):.2f}, "
        f"defender {float(odds.expected_beans_left['defender']):.2f}",
        "",
        "likely outcomes (survivors when the loser eats troops first / the peep first):",
    ]
    rows = [("winner", "beans", "chance", "troops first", "peep first")]
    for o in odds.likely():
        had_peep = (odds.attacker if o.winner == "attacker" else odds.defender).peep > 0
        rows.append(
            (
                o.winner,
                str(o.beans_left),
                _percent(o.probability),
                *(_describe_survivors(o.survivors(p), had_peep) for p in POLICIES),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        lines.append(
            "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        )
    if choices:
        lines.append("")
        lines.append("2001 peep beans in/out (the figures above are for the choice asked):")
        for key, value in choices.items():
            label = key.replace("_peep_", " peep ").replace(",", ", ")
            lines.append(f"  {label}: attacker wins {_percent(value['attacker_wins'])}")
    return "\n".join(lines)
