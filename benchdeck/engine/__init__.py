"""benchdeck engine: domain model, workload catalogue, output parsers, metrics, runners.

The engine knows nothing of Textual, Rich or the store.
"""
