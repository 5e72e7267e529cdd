"""forensic_lr.metrics (being built)."""
