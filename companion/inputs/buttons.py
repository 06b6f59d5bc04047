"""Raspberry Pi buttons and LEDs beside the table, through gpiozero.

Five buttons, each wired from a GPIO pin to ground (the Pi's internal
pull-up holds it high): end turn, undo, confirm, next phase, draw. A short
press sends its event when the button comes back up; holding it for
``hold_time`` sends the long meaning at once, and nothing on release:

=========== ============== ===============================================
button      short press    long press (held >= hold_time)
=========== ============== ===============================================
end turn    ``end_turn``   ``end_turn`` (same; ``data["long"]`` is true)
undo        ``undo``       ``undo_turn``: take back the whole turn
confirm     ``confirm``    ``confirm`` (same; ``data["long"]`` is true)
next phase  ``next_phase`` ``next_phase`` (same; ``data["long"]`` is true)
draw        ``draw``       ``draw`` (same; ``data["long"]`` is true)
=========== ============== ===============================================

Only undo has a second meaning: the others are one-way decisions where a
slow press should still count, not do something else.

Debouncing is done here, not by the pin library: a change counts once the
pin has held its new level for ``bounce_time``. gpiozero's own bounce
setting behaves differently per pin factory (the mock factory ignores it),
and the same code must behave the same on every factory.

Two LEDs (optional): "waiting for you" and "problem", driven by the referee
through :meth:`ButtonPanel.show_waiting` and :meth:`ButtonPanel.show_problem`.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from gpiozero import LED, BadPinFactory, Button, GPIOZeroError, PinFactoryFallback

from companion.inputs import events as ev
from companion.inputs.events import InputEvent
from companion.inputs.pins import LABELS, ButtonPins
from companion.inputs.source import Emit, SourceStatus

# ButtonPins lives in companion.inputs.pins (no gpiozero there) and is named here too.
__all__ = ["ButtonPanel", "ButtonPins", "ButtonsUnavailable"]

SOURCE = "buttons"
SHORT = {"end_turn": ev.END_TURN, "undo": ev.UNDO, "confirm": ev.CONFIRM,
         "next_phase": ev.NEXT_PHASE, "draw": ev.DRAW}
LONG = {**SHORT, "undo": ev.UNDO_TURN}


class ButtonsUnavailable(RuntimeError):
    """The buttons cannot be used on this machine; the message says why."""


class _Key:
    """One button's settled state and its pending timers."""

    def __init__(self, role: str, button: Button) -> None:
        self.role = role
        self.button = button
        self.pressed = False
        self.held = False
        self.presses = 0
        self.down_at = 0.0
        self.settle: threading.Timer | None = None
        self.hold: threading.Timer | None = None


class ButtonPanel:
    """The buttons and LEDs as an input source.

    ``pin_factory`` goes straight to gpiozero (tests pass a ``MockFactory``).
    Construction raises :class:`ButtonsUnavailable` when there is no GPIO;
    :meth:`open` instead returns a panel that is off and says why, so a
    service can always start.
    """

    def __init__(self, pins: ButtonPins, *, pin_factory: Any = None, hold_time: float = 1.0,
                 bounce_time: float = 0.05) -> None:
        self._init_common(pins, hold_time, bounce_time)
        if not pins.buttons():
            raise ButtonsUnavailable("no button pins are set")
        try:
            with warnings.catch_warnings():
                # gpiozero warns about each pin library it tries before the one that works
                warnings.simplefilter("ignore", PinFactoryFallback)
                for role, pin in pins.buttons().items():
                    button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                    self._keys[role] = _Key(role, button)
                for name in ("led_waiting", "led_problem"):
                    pin = getattr(pins, name)
                    if pin is not None:
                        self._leds[name] = LED(pin, pin_factory=pin_factory)
        except (GPIOZeroError, OSError, RuntimeError) as e:
            self.close()
            raise ButtonsUnavailable(_why(e)) from e

    def _init_common(self, pins: ButtonPins, hold_time: float, bounce_time: float) -> None:
        self.pins = pins
        self.hold_time = hold_time
        self.bounce_time = bounce_time
        self._keys: dict[str, _Key] = {}
        self._leds: dict[str, LED] = {}
        self._lock = threading.Lock()
        self._emit: Emit | None = None
        self._off_reason: str | None = None

    @classmethod
    def open(cls, pins: ButtonPins, *, pin_factory: Any = None, hold_time: float = 1.0,
             bounce_time: float = 0.05) -> ButtonPanel:
        """A working panel, or one that is off and whose status says why."""
        try:
            return cls(pins, pin_factory=pin_factory, hold_time=hold_time,
                       bounce_time=bounce_time)
        except ButtonsUnavailable as e:
            panel = cls.__new__(cls)
            panel._init_common(pins, hold_time, bounce_time)
            panel._off_reason = str(e)
            return panel

    # --- the InputSource protocol -------------------------------------------------

    def start(self, emit: Emit) -> None:
        self._emit = emit
        for key in self._keys.values():
            key.button.when_pressed = _bind(self._edge, key)
            key.button.when_released = _bind(self._edge, key)

    def stop(self) -> None:
        self._emit = None
        self.close()

    def status(self) -> SourceStatus:
        if self._off_reason is not None:
            return SourceStatus("off", f"buttons are off: {self._off_reason}")
        wired = ", ".join(f"{LABELS[r]} GPIO{getattr(self.pins, r)}" for r in self._keys)
        return SourceStatus("on", f"buttons are on: {wired} (hold undo to undo the whole turn)")

    @property
    def enabled(self) -> bool:
        return self._off_reason is None

    # --- LEDs ----------------------------------------------------------------------

    def show_waiting(self, on: bool) -> None:
        """Light "waiting for you": the referee waits for a player's input."""
        led = self._leds.get("led_waiting")
        if led is not None:
            led.value = on

    def show_problem(self, on: bool) -> None:
        """Blink "problem": the referee refused something or lost a device."""
        led = self._leds.get("led_problem")
        if led is None:
            return
        if on:
            led.blink(on_time=0.25, off_time=0.25)
        else:
            led.off()

    def close(self) -> None:
        with self._lock:
            for key in self._keys.values():
                for timer in (key.settle, key.hold):
                    if timer is not None:
                        timer.cancel()
        for device in [k.button for k in self._keys.values()] + list(self._leds.values()):
            device.close()

    # --- debouncing and long presses ---------------------------------------------

    def _edge(self, key: _Key) -> None:
        """A raw change on the pin: (re)start the wait for it to settle."""
        with self._lock:
            if key.settle is not None:
                key.settle.cancel()
            key.settle = _start_timer(self.bounce_time, self._settled, key)

    def _settled(self, key: _Key) -> None:
        with self._lock:
            key.settle = None
            try:
                pressed = bool(key.button.is_pressed)
            except GPIOZeroError:
                return  # closed while the timer ran
            if pressed == key.pressed:
                return  # it bounced back to where it was: nothing happened
            key.pressed = pressed
            if pressed:
                key.presses += 1
                key.held = False
                key.down_at = time.monotonic() - self.bounce_time
                key.hold = _start_timer(max(0.0, self.hold_time - self.bounce_time),
                                        self._held, key, key.presses)
                return
            if key.hold is not None:
                key.hold.cancel()
                key.hold = None
            if key.held:
                return
            held_s = time.monotonic() - key.down_at
        self._send(SHORT[key.role], key.role, held_s, long=False)

    def _held(self, key: _Key, press: int) -> None:
        with self._lock:
            if not key.pressed or key.held or key.presses != press:
                return
            key.held = True
            key.hold = None
            held_s = time.monotonic() - key.down_at
        self._send(LONG[key.role], key.role, held_s, long=True)

    def _send(self, kind: str, role: str, held_s: float, *, long: bool) -> None:
        emit = self._emit
        if emit is not None:
            pin = getattr(self.pins, role)
            emit(InputEvent(SOURCE, kind, {"button": role, "pin": pin,
                                           "held_s": round(held_s, 3), "long": long}))


def _bind(fn: Callable[[_Key], None], key: _Key) -> Callable[[], None]:
    def handler() -> None:
        fn(key)

    return handler


def _start_timer(delay: float, fn: Callable[..., None], *args: Any) -> threading.Timer:
    timer = threading.Timer(delay, fn, args)
    timer.daemon = True
    timer.start()
    return timer


def _why(error: Exception) -> str:
    if isinstance(error, BadPinFactory):
        return f"no GPIO on this machine ({error})"
    return f"the GPIO pins could not be set up ({type(error).__name__}: {error})"
