"""PeltaPeeps: pieces fitted together by their connectors, scored by the joins."""
