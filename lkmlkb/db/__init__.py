"""The knowledge base in SQLite: schema and migrations, connection settings, the message store,
the findings and reports writers and readers, read-only queries, the WAL checkpointer."""
