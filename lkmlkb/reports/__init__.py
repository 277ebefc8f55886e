"""Reports: one per thread, built from the findings of its messages; their JSON and text forms."""
