"""A Peloponnesian War on the table: the printed map, its pieces, and the camera reader."""
