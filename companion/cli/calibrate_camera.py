"""``companion calibrate-camera``: lens intrinsics from photos of the ChArUco board.

Optional. Stores the camera matrix and distortion in the profile, where
``detect`` uses them to straighten what a wide-angle lens bends.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.errors import UserError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``calibrate-camera``."""
    parser = subparsers.add_parser(
        "calibrate-camera",
        help="camera intrinsics from photos of the ChArUco board (optional)",
        description="Calibrate the camera from 4+ photos of the ChArUco board "
        "(companion print charuco) taken from several angles; the result goes into --profile, "
        "created if missing.",
    )
    parser.add_argument("photos", metavar="PHOTO", nargs="+", help="photos of the board")
    parser.add_argument("--profile", metavar="PROFILE.json", help="profile to store the result in")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration.camera import CameraCalibrationError, calibrate_camera
    from calibration.profile import Profile, ProfileError, load_profile, save_profile
    from vision.image_io import ImageError, read_image

    if not args.profile:
        raise UserError("calibrate-camera needs --profile PROFILE.json")
    try:
        profile = load_profile(args.profile) if Path(args.profile).exists() else Profile()
        images = [read_image(p) for p in args.photos]
        intrinsics, rms, used = calibrate_camera(images)
        profile.intrinsics = intrinsics
        save_profile(profile, args.profile)
    except (ProfileError, ImageError, CameraCalibrationError) as e:
        raise UserError(str(e)) from None
    k = intrinsics.camera_matrix
    print(f"camera calibrated from {used} of {len(images)} photos: focal {k[0, 0]:.0f} px, "
          f"reprojection error {rms:.2f} px; stored in {args.profile}")
    return 0
