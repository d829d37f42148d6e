"""The web view of ``codememory up``: a local page over the gateway's gRPC API.

``server.py`` serves the static page and a thin JSON API on 127.0.0.1, refusing any request without
the local token; ``api.py`` turns each JSON route into gateway calls made with that token. The page
(``static/``: plain HTML, CSS and JS, no third-party code) shows memories, sessions, the code graph
and the event log. It keeps no store of its own.
"""

from codememory.web.server import WebServer, start_web

__all__ = ["WebServer", "start_web"]
