"""The demo backend's parts (demo_backend.py starts it): `state` (what it holds), `forms`
(parameters, paging, bodies), `routes` (one function per API endpoint, in a table keyed by
method and endpoint), `debug` (the /_debug/ switches, likewise), `push` (the WebSocket side)
and `handler` (one HTTP request: record, canned answer or stall, then its route)."""
