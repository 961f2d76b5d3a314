"""A worker that only says hello."""
import os

print("worker", os.environ["RANK"], "of", os.environ["WORLD_SIZE"], flush=True)
