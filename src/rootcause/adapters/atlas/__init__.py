"""The message atlas's storage and loading (the builder, `rootcause atlas build`, lives here too)."""
