from oddslab.cli import main

main()
