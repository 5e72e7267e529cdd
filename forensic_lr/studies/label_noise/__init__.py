"""Precision and recall under assessor label errors: the models and corrections
(:mod:`.model`) and the reader of judgement tables (:mod:`.io`)."""

from __future__ import annotations

from .io import *  # noqa: F403
from .io import __all__ as _io_all
from .model import *  # noqa: F403
from .model import __all__ as _model_all

__all__ = [*_model_all, *_io_all]
