"""Ratings: the live Elo, standings after a match or rotation group, and the batch fits."""
