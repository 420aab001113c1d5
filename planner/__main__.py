"""`python -m planner`: the command line."""

from planner.cli import main

if __name__ == "__main__":
    main(prog_name="planner")
