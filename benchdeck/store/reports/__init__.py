"""Reports: comparisons, changes, scaling and counters rendered as text, Markdown, CSV and JSON; exports."""
