"""forensic-lr: calibrated likelihood ratios, method validation and expert reports."""

__version__ = "0.1.0"

__all__ = ["__version__", "evaluate"]


def __getattr__(name: str):
    """``forensic_lr.evaluate`` is imported on first use (keeps ``forensic-lr --version`` fast)."""
    if name == "evaluate":
        from .metrics import evaluate

        return evaluate
    raise AttributeError(f"module 'forensic_lr' has no attribute {name!r}")
