"""The errors the camera pipeline raises for input it cannot use.

Each message is one sentence a person can act on; the command line and the
page print it as it is. They are the vision layer's own, so that nothing here
depends on the application that calls it.
"""


class VisionError(Exception):
    """A frame, photo or model the pipeline cannot work with; the message says what to do."""


class ModelError(VisionError):
    """A learned model's file is missing or unreadable."""


class PhotoError(VisionError):
    """A photo that is not one the reader can read (not colour, too small, no calibration)."""
