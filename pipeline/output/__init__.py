"""What a task writes: the Parquet schema and sink, the completion markers, and the counts."""
