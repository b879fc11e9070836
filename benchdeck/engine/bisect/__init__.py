"""Bisecting a performance regression down to the commit, noise-aware (issue 39).

``decide`` judges one commit from the noise intervals of its QPS ratios to the endpoints,
``search`` keeps the positions known good, bad, skipped or unclear and picks the next commit,
``driver`` runs the whole search over a :class:`~engine.bisect.driver.Lab` the caller supplies
(builds, runs, intervals and the store live there: the engine knows none of them).
"""
