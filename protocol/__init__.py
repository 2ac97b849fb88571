"""Wire protocol: MessagePack messages over WebSocket, schemas, codec and error codes."""
