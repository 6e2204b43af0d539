"""`python -m streams.cli`: the `omega` command line."""

from streams.cli.main import main

if __name__ == "__main__":
    main()
