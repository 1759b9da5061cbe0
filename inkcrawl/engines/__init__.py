"""Rules engines that play inkcrawl's game data (docs/game-data.md): the grid-family simulator."""
