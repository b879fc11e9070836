"""Analysis of stored runs: comparisons, ratios and their noise, change points, scaling, counters per op."""
