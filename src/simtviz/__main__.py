"""``python -m simtviz``: same as the ``simtviz`` command."""

from simtviz.cli import main

if __name__ == "__main__":
    main()
