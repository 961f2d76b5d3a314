"""`python -m rootcause ...`: the same command line as the `rootcause` script (where no script is on PATH)."""

from rootcause.adapters.cli.main import run

if __name__ == "__main__":
    run()
