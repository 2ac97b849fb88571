"""croupier server: game engines, tables, stores and the WebSocket application."""
