"""forensic-lr: calibrated likelihood ratios, method validation and expert reports."""

__version__ = "0.1.0"

from .metrics import evaluate

__all__ = ["__version__", "evaluate"]
