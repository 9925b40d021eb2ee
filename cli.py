"""Run the twosat-formal CLI from a checkout: ``python cli.py --help``."""

from twosat_formal.cli.entry import main

if __name__ == "__main__":
    main()
