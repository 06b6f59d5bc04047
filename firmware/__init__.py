"""MicroPython firmware for the egg-shaker (copied flat onto the Pico; see docs/hardware.md).

A package on the host only so that ``companion.inputs`` can import
``firmware.eggproto``: the host and the egg share one framing module.
"""
