"""Server-rendered pages: games, ladders, bots, matches, uploads and accounts."""
