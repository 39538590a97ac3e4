"""Loaded with ``-p tests._alias_httpx`` before other plugins (respx imports httpx).

The official SDKs use ``httpx2``; ``respx`` patches ``httpx``. Aliasing before anything
imports ``httpx`` makes them one module, so respx intercepts the SDKs' real HTTP path.
"""

import httpx2

httpx2.alias_httpx()
