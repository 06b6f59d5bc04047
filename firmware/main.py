"""Runs at power-up on the Pico (MicroPython runs main.py after boot.py)."""

from eggloop import main

main()
