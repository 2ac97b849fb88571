"""Sans-I/O game engines: commands in, events out; no sockets, clocks or global randomness."""
