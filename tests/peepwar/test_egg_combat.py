"""A Peep War fight settled by the real egg: firmware over a pty -> EggLink -> colour match -> Draw.

The end-to-end test calibrates the egg the way a player would (one bean per
player, as the prompts ask), then plays a whole fight: each round the egg is
shaken and a bean drawn; the firmware reports both over the pseudo-terminal,
the host matches the bean to a player, and the engine applies the Draw. The
victor's choice of what to eat comes from the page in real play; here the
test makes it.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from companion.inputs.egg import EggLink
from companion.inputs.egg_colours import bean_readings, calibrate_egg
from companion.inputs.events import InputEvent
from companion.rules.peepwar import Draw, Eat, EndMovement, PeepWar, PeepWarState, Phase, Stack
from companion.rules.peepwar.egg_input import draw_for_bean

for _path in (Path(__file__).resolve().parents[2] / "firmware",
              Path(__file__).resolve().parents[1] / "fakes"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from eggrig import EggRig, EventLog  # noqa: E402  (needs the MicroPython stand-ins on sys.path)

BEANS = {"red": (0.55, 0.25, 0.22), "blue": (0.20, 0.32, 0.50), "green": (0.25, 0.55, 0.20)}
CELL = "0,0/c"


def fight_state(rules: PeepWar, red: Stack, blue: Stack) -> PeepWarState:
    """Red has moved onto blue at the Neutral Territory's centre and ends movement."""
    state = rules.new_state()
    while state.phase in (Phase.SETUP_TILES, Phase.SETUP_SUPPLY):
        state, _ = rules.apply(state, next(iter(rules.legal_actions(state))))
    state = replace(state, phase=Phase.MOVEMENT, current="red",
                    pieces={**state.pieces, CELL: {"blue": blue, "red": red}})
    state, _ = rules.apply(state, EndMovement("red"))
    assert state.combat is not None
    return state


def bean_event(**data) -> InputEvent:
    return InputEvent("egg", "bean", {"reading": {}, "draw": 1, **data})


# --- the pure function ------------------------------------------------------------


@pytest.fixture
def rules() -> PeepWar:
    return PeepWar(players=("red", "blue"), edition=2005)


@pytest.fixture
def fight(rules: PeepWar) -> PeepWarState:
    return fight_state(rules, Stack(troops=2), Stack(troops=1))


def test_a_matched_bean_is_the_drawers_draw(rules, fight) -> None:
    assert draw_for_bean(rules, fight, bean_event(player="red")) == Draw("blue", "red")


def test_a_bean_of_someone_outside_the_fight_is_refused(rules, fight) -> None:
    refusal = draw_for_bean(rules, fight, bean_event(player="gold"))
    assert isinstance(refusal, str)
    assert refusal.startswith("the egg read a gold bean, but ")
    assert refusal.endswith("gold is not in the fight at 0,0/c")  # the rules' own reason


def test_an_unmatched_or_unmatchable_bean_is_refused_with_what_to_do(rules, fight) -> None:
    unknown = draw_for_bean(rules, fight, bean_event(player=None, match="could be red or blue"))
    assert unknown == ("the egg could not tell whose bean that was (could be red or blue): "
                       "enter the draw on the page")
    uncalibrated = draw_for_bean(rules, fight, bean_event())
    assert isinstance(uncalibrated, str) and "run companion calibrate-egg" in uncalibrated


def test_no_fight_no_draw(rules, fight) -> None:
    calm = replace(fight, combat=None)
    assert draw_for_bean(rules, calm, bean_event(player="red")) == (
        "a bean came out of the egg but no fight is going on: put it back")
    shake = InputEvent("egg", "shake", {})
    assert draw_for_bean(rules, fight, shake) == "a shake event is not a bean drawn from the egg"


# --- end to end over the pseudo-terminal -------------------------------------------


SEEN_AFTER = 4  # colour readings: the egg's draw detector settles on three in a row


class Table:
    """The physical side: a player's hands on the egg, driven from the test."""

    def __init__(self, rig: EggRig) -> None:
        self.rig = rig
        self._hand = threading.Lock()  # one bean at the mouth at a time

    def draw(self, colour: str, hold: float = 0.25) -> None:
        """A bean of ``colour`` comes to the mouth, is read, and is taken out.

        It stays at least ``hold`` seconds and until the egg has taken enough colour
        readings to see it: a busy machine that stalls the egg's loop must not turn a
        fixed hold into a bean never seen.
        """
        with self._hand:
            self.rig.colour.put_bean(BEANS[colour])
            time.sleep(hold)
            deadline = time.monotonic() + 5
            while self.rig.colour.bean_reads < SEEN_AFTER and time.monotonic() < deadline:
                time.sleep(0.02)
            self.rig.colour.take_bean()
            time.sleep(0.15)

    def follow(self, prompt: str) -> None:
        """Do what a calibration prompt asks ("Put one red bean in the egg's mouth ...")."""
        if prompt.startswith("Put one "):
            colour = prompt.split()[2]
            threading.Thread(target=self.draw, args=(colour,), daemon=True).start()


def test_a_whole_fight_settled_by_the_egg(tmp_path: Path, rules: PeepWar) -> None:
    rig = EggRig(tmp_path / "egg", HEARTBEAT_MS=100)
    rig.plug_in()
    table = Table(rig)
    log = EventLog()
    # The egg beats ten times a second so the test starts fast, but the link waits 3 s
    # before giving it up: a loaded machine can stall the egg's loop past three beats, and
    # a bean drawn while the port is being opened again is not heard.
    link = EggLink(str(rig.port), read_timeout=0.02, handshake_timeout=1.0, backoff=(0.05,),
                   heartbeat_timeout=3.0)
    link.start(log.put)
    try:
        log.wait("device_status", where=lambda e: e.data["state"] == "connected")
        time.sleep(0.15)  # the sensor's first readings set its dark level

        # Calibration, as `companion` will run it: one bean per player, in order.
        said: list[str] = []

        def say(text: str) -> None:
            said.append(text)
            table.follow(text)

        link.colours = calibrate_egg(["red", "blue"], bean_readings(log.queue), say, timeout=3)
        assert said[0].startswith("Put one red bean") and said[2].startswith("Put one blue bean")
        ref = link.colours.players["red"][0]
        assert all(abs(a - b) < 0.01 for a, b in zip(ref, BEANS["red"], strict=True))

        # The fight: red's 3 troops attack blue's troop and 2-health peep (2005: 3 blue beans).
        state = fight_state(rules, Stack(troops=3), Stack(troops=1, peep=2))

        def round_(colour: str) -> list[str]:
            nonlocal state
            # The egg changes hands, and the last shake's refractory time (counted from when
            # it was reported) ends: a shake begun inside it could lose the jolts it needs.
            time.sleep(rig.cfg.SHAKE_REFRACTORY_MS / 1000 + 0.15)
            # Six shakes of the wrist (0.35 s gave four jolts, one over the three needed:
            # a busy machine that stalls the egg's loop for a jolt lost the shake).
            rig.accel.shake(0.6)
            log.wait("shake")
            table.draw(colour)
            bean = log.wait("bean")
            action = draw_for_bean(rules, state, bean)
            assert isinstance(action, Draw), action
            assert action == Draw(state.combat.drawer, colour)
            state, happened = rules.apply(state, action)
            return [e.text for e in happened]

        assert round_("red")[0] == "blue draws a bean of red: red wins the round"
        assert state.combat.victor == "red"  # blue has troop and peep beans: red chooses

        table.draw("blue")  # a bean comes out before red has chosen
        refusal = draw_for_bean(rules, state, log.wait("bean"))
        assert isinstance(refusal, str) and refusal.startswith("the egg read a blue bean, but ")
        assert "red chooses which bean to eat at 0,0/c" in refusal  # the rules' reason
        state, _ = rules.apply(state, Eat("red", "peep"))  # the choice, made on the page

        assert round_("blue") == ["blue draws a bean of blue: blue wins the round",
                                  "blue eats a troop bean of red"]
        table.draw("green")  # nobody's colour
        assert "could not tell whose bean" in draw_for_bean(rules, state, log.wait("bean"))

        round_("red")
        state, _ = rules.apply(state, Eat("red", "troop"))
        texts = round_("red")  # blue has only its last peep bean: eaten, and the fight is over
        assert texts[0] == "blue draws a bean of red: red wins the round"
        assert texts[2] == "red wins the fight at 0,0/c: 2 troops remain"
        assert state.combat is None
        assert state.stack(CELL, "red").troops == 2 and not state.stack(CELL, "blue").troops

        table.draw("red")  # a stray bean after the fight
        assert "no fight is going on" in draw_for_bean(rules, state, log.wait("bean"))
        assert link.stats.corrupt == link.stats.lost_messages == 0
    finally:
        link.stop()
        rig.unplug()
