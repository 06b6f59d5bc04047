"""Collection rules: the firmware test rig and data generators are not test modules."""

collect_ignore = ["fakes", "data"]
