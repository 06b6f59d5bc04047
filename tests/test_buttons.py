"""The Pi button panel on gpiozero's MockFactory: every role, debounce, long press, LEDs."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.errors import UserError
from companion.inputs.buttons import ButtonPanel, ButtonPins
from companion.inputs.events import InputEvent

BOUNCE = 0.02
HOLD = 0.25  # for the tests of long presses: they hold a button this long and more
# For the tests of short presses: a loaded machine can stall a test's 60 ms press past
# HOLD, and a short press must not turn long because the test was late to let go.
SHORT_PRESS_HOLD = 2.0
SHORT_WAIT = 0.15  # comfortably longer than BOUNCE, shorter than HOLD


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


def _started(factory: MockFactory, hold: float
             ) -> Iterator[tuple[ButtonPanel, queue.Queue[InputEvent]]]:
    events: queue.Queue[InputEvent] = queue.Queue()
    p = ButtonPanel(ButtonPins(), pin_factory=factory, hold_time=hold, bounce_time=BOUNCE)
    p.start(events.put)
    yield p, events
    p.stop()


@pytest.fixture
def panel(factory: MockFactory) -> Iterator[tuple[ButtonPanel, queue.Queue[InputEvent]]]:
    yield from _started(factory, HOLD)


@pytest.fixture
def short_panel(factory: MockFactory) -> Iterator[tuple[ButtonPanel, queue.Queue[InputEvent]]]:
    yield from _started(factory, SHORT_PRESS_HOLD)


def drained(events: queue.Queue[InputEvent], wait: float = SHORT_WAIT) -> list[InputEvent]:
    """Every event that arrives within ``wait`` seconds."""
    time.sleep(wait)
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def press(factory: MockFactory, pin: int, seconds: float) -> None:
    factory.pin(pin).drive_low()  # buttons pull up; pressed connects the pin to ground
    time.sleep(seconds)
    factory.pin(pin).drive_high()


ROLE_PINS = {"end_turn": 17, "undo": 27, "confirm": 22, "next_phase": 23, "draw": 24}


@pytest.mark.parametrize("role", sorted(ROLE_PINS))
def test_a_short_press_of_each_button_sends_its_event_on_release(short_panel, factory,
                                                                 role) -> None:
    p, events = short_panel
    press(factory, ROLE_PINS[role], 0.06)
    got = drained(events)
    assert [(e.source, e.kind) for e in got] == [("buttons", role)]
    assert got[0].data["button"] == role
    assert got[0].data["pin"] == ROLE_PINS[role]
    assert got[0].data["long"] is False
    assert 0.04 <= got[0].data["held_s"] < SHORT_PRESS_HOLD


def test_long_undo_undoes_the_whole_turn_and_nothing_else(panel, factory) -> None:
    p, events = panel
    factory.pin(27).drive_low()
    time.sleep(HOLD + 0.1)
    held = drained(events, 0.0)
    assert [e.kind for e in held] == ["undo_turn"]  # sent while still held
    assert held[0].data["long"] is True
    assert held[0].data["held_s"] >= HOLD - 0.01
    factory.pin(27).drive_high()
    assert drained(events) == []  # and no plain undo on release


def test_a_long_press_of_the_other_buttons_keeps_its_meaning(panel, factory) -> None:
    p, events = panel
    others = ["confirm", "draw", "end_turn", "next_phase"]
    for role in others:  # all four held at once: each is timed on its own
        factory.pin(ROLE_PINS[role]).drive_low()
    time.sleep(HOLD + 0.1)
    for role in others:
        factory.pin(ROLE_PINS[role]).drive_high()
    got = drained(events)
    assert sorted((e.kind, e.data["long"]) for e in got) == [(r, True) for r in others]


def test_chatter_on_press_and_release_counts_once(short_panel, factory) -> None:
    p, events = short_panel
    pin = factory.pin(17)
    for _ in range(5):  # a contact bouncing for ~10 ms as it closes
        pin.drive_low()
        time.sleep(0.001)
        pin.drive_high()
        time.sleep(0.001)
    pin.drive_low()
    time.sleep(0.08)
    for _ in range(4):  # and again as it opens
        pin.drive_high()
        time.sleep(0.001)
        pin.drive_low()
        time.sleep(0.001)
    pin.drive_high()
    got = drained(events)
    assert [e.kind for e in got] == ["end_turn"]


def test_a_glitch_shorter_than_the_bounce_time_is_no_press(panel, factory) -> None:
    p, events = panel
    pin = factory.pin(22)
    pin.drive_low()
    time.sleep(BOUNCE / 4)
    pin.drive_high()
    assert drained(events) == []


def test_presses_on_two_buttons_are_told_apart(short_panel, factory) -> None:
    p, events = short_panel
    factory.pin(23).drive_low()
    factory.pin(24).drive_low()
    time.sleep(0.06)
    factory.pin(24).drive_high()
    time.sleep(0.06)
    factory.pin(23).drive_high()
    assert [e.kind for e in drained(events)] == ["draw", "next_phase"]


def test_the_waiting_led_follows_the_referee(panel, factory) -> None:
    p, _ = panel
    led = factory.pin(5)
    assert led.state is False
    p.show_waiting(True)
    assert led.state is True
    p.show_waiting(False)
    assert led.state is False


def test_the_problem_led_blinks_until_cleared(panel, factory) -> None:
    p, _ = panel
    led = factory.pin(6)
    led.clear_states()
    p.show_problem(True)
    time.sleep(0.8)  # 0.25 s on, 0.25 s off
    changes = len(led.states) - 1
    assert changes >= 2
    p.show_problem(False)
    time.sleep(0.05)
    assert led.state is False


def test_status_names_the_pins(panel) -> None:
    p, _ = panel
    status = p.status()
    assert status.state == "on"
    assert "undo GPIO27" in status.message and "end turn GPIO17" in status.message


def test_unset_buttons_and_leds_are_left_out(factory) -> None:
    events: queue.Queue[InputEvent] = queue.Queue()
    pins = ButtonPins(confirm=None, draw=None, led_problem=None)
    p = ButtonPanel(pins, pin_factory=factory, hold_time=HOLD, bounce_time=BOUNCE)
    p.start(events.put)
    try:
        press(factory, 22, 0.06)  # not wired as confirm any more
        assert drained(events) == []
        p.show_problem(True)  # no LED: nothing to do, and no error
        assert "confirm" not in p.status().message
    finally:
        p.stop()


def test_without_gpio_the_panel_is_off_and_says_why(monkeypatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-pin-library")
    monkeypatch.setattr(Device, "pin_factory", None)
    p = ButtonPanel.open(ButtonPins())
    assert not p.enabled
    status = p.status()
    assert status.state == "off"
    assert status.message.startswith("buttons are off: no GPIO on this machine (")
    p.start(lambda e: None)  # the service goes on: starting, LEDs and stopping do nothing
    p.show_waiting(True)
    p.stop()


def test_a_pin_already_in_use_turns_the_panel_off_instead_of_failing(factory) -> None:
    from gpiozero import LED

    taken = LED(17, pin_factory=factory)
    try:
        p = ButtonPanel.open(ButtonPins(), pin_factory=factory)
        assert p.status().state == "off"
        assert "could not be set up" in p.status().message
    finally:
        taken.close()


def test_no_pins_at_all_is_off() -> None:
    none = ButtonPins(**{name: None for name in ButtonPins.__dataclass_fields__})
    assert ButtonPanel.open(none).status().message == "buttons are off: no button pins are set"


@pytest.mark.parametrize(("mapping", "said"), [
    ({"x" * 5000: 4}, f"unknown button setting(s) {'x' * 39}…; known: end_turn, undo, "),
    ({f"b{i}": 4 for i in range(2000)}, "unknown button setting(s) b0, b1, b10, b100, "),
    ({"draw": "x" * 5000}, f"the draw pin must be a BCM GPIO number 0..27 or null, not "
                           f"'{'x' * 59}…'"),
])
def test_a_runaway_button_name_or_pin_is_quoted_cut(mapping, said) -> None:
    # The names and the pin were repeated whole: a 5,000-character error line.
    with pytest.raises(UserError) as e:
        ButtonPins.from_mapping(mapping)
    assert str(e.value).startswith(said) and len(str(e.value)) < 300, str(e.value)


def test_settings_are_checked() -> None:
    assert ButtonPins.from_mapping({"undo": 4, "led_problem": None}).undo == 4
    with pytest.raises(UserError, match="unknown button setting.*undoo"):
        ButtonPins.from_mapping({"undoo": 4})
    with pytest.raises(UserError, match="GPIO17 is given to both the end turn and the undo"):
        ButtonPins(undo=17)
    with pytest.raises(UserError, match="BCM GPIO number 0..27"):
        ButtonPins(draw=40)
    with pytest.raises(UserError, match="BCM GPIO number"):
        ButtonPins.from_mapping({"draw": "24"})
