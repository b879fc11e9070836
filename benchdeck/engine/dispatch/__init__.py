"""Above the families: choosing a family for a request, checking requests and planning runs through
the families (planning below holds the types the families fill)."""
