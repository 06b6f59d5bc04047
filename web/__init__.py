"""The table page: a Flask app that shows the live game and takes the referee's controls."""
