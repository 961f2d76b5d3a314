"""The message atlas: what the stack's released artifacts can print, and in which releases.

The model (`model.py`) is the contract between the builder (adapters/atlas, `rootcause atlas
build`) and the located tier of a diagnosis. Pure data and functions here; reading wheels,
downloading and SQLite live in the adapters.
"""
