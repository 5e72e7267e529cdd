"""forensic_lr.report (being built)."""
