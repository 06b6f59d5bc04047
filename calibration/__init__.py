"""Calibration: per-player colour models from the calibration card, camera intrinsics
from ChArUco photos, and the versioned profile file that carries both."""
