from planner.cli import main

main(prog_name="planner")
