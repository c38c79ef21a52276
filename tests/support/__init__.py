"""Helpers the tests import: servers on 127.0.0.1, replicas, Pilot helpers, fixture paths.

Imported by tests directly (`from tests.support.loopback import serve`), never through a
conftest, so a helper's home is where its name says.
"""
