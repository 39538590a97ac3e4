"""contextfold's harnesses and demo data, kept out of the runtime package.

Nothing here is imported by an application that uses contextfold; the ``contextfold``
command line loads these modules when one of its commands needs them
(``demo``, ``fidelity``, ``fake-upstream``) and says what to install when they are
missing.

* :mod:`.fidelity`: seeded long sessions with planted probes, and what survives
  repeated compaction (``contextfold fidelity``, ``bench/fidelity.py``);
* :mod:`.compactbench`: contextfold's summarizer as a CompactBench method (the
  ``compactbench`` extra);
* :mod:`.demo` and :mod:`.scenario`: the offline demo session (``contextfold demo``);
* :mod:`.fake_upstream` (its Responses shapes in :mod:`._fake_responses`): a scripted
  stand-in for the OpenAI and Anthropic APIs (``contextfold fake-upstream``, the
  proxy's tests).

The harness builds on contextfold, private modules included, and pins the release it
was built with; contextfold never imports it except lazily, from those CLI commands.
"""

from __future__ import annotations

__all__: list[str] = []
