from oddslab.cli import app

app()
