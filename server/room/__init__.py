"""The room: the people and the places around the tables.

- ``accounts.py``: player and staff accounts, roles, cashier roles;
- ``credentials.py``: tokens and secrets (never in argv);
- ``names.py``: display names;
- ``operator.py``: one message class per staff control, with the roles that may send it,
  and the audit entry each control writes with its outcome;
- ``staff.py``: staff queries (the floor's views);
- ``waiting.py``: waiting lists for full tables;
- ``directory.py`` (+ ``directory.lua``): which server of a deployment serves which table.
"""
