"""The network edge: the server process, its WebSocket and HTTP sides, and the router.

- ``app.py``: the server process (the nursery that owns every table, the store and the
  listeners; start, drain and stop);
- ``connections.py``: one task pair per WebSocket connection (reader, paced sender);
- ``frames.py``: reads an open connection's frames without I/O (bytes in, messages out);
- ``websocket.py``: the adapter to websockets, the one module that touches its private
  state (the fast paths, switched off on a release it was not written for);
- ``router.py``: a connection's messages to their handlers (one map, message class to
  handler) and on to the tables' actors;
- ``http.py``: the HTTP side (page, health, readiness, metrics, staff queries).
"""
