"""Collection rules: the firmware test rig and data generators are not test modules."""

collect_ignore = ["fakes", "data"]


import os  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _own_data_folder(tmp_path_factory):
    """Game logs a test makes by default (the demo's too) go to a scratch folder, never the
    user's data folder; commands run as subprocesses inherit it."""
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("data-home"))
    yield
    if old is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = old
