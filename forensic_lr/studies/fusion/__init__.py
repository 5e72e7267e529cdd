"""Worst-case evaluation of one component inside a fused binary classifier: the model
(:mod:`.model`) and the readers of its files (:mod:`.io`)."""

from __future__ import annotations

from .io import *  # noqa: F403
from .io import __all__ as _io_all
from .model import *  # noqa: F403
from .model import __all__ as _model_all

__all__ = [*_model_all, *_io_all]
