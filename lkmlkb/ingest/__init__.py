"""Ingest: sources into the knowledge base, in batches, parsed and extracted by worker processes."""
