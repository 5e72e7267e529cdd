"""forensic-lr: calibrated likelihood ratios, method validation and expert reports."""

__version__ = "0.1.0"
