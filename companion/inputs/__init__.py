"""Physical inputs: Raspberry Pi buttons and the serial egg-shaker.

Buttons, the egg and the web page are interchangeable sources of the same
:class:`~companion.inputs.events.InputEvent` values; the referee consumes
them without caring which one a player used.
"""
