"""The network edge: WebSocket frames in and out.

``frames.py`` reads an open connection's frames without I/O (bytes in, messages out);
``websocket.py`` is the adapter to websockets, the one module that touches its private
state (the fast paths, switched off on a release it was not written for).
"""
