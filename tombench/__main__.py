from tombench.cli import run

run()
