"""forensic_lr.calibration (being built)."""
