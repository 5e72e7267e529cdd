"""Save and load a fitted calibrator as JSON (no pickle: loading runs no code from the file).

The file holds the method's name (looked up in the closed registry
:data:`~forensic_lr.calibration.CALIBRATORS`), its options and its fitted state: every
attribute ending in ``_``. Values are JSON numbers (Python writes the shortest repr that
reads back to the same double, so a loaded calibrator gives bit-identical LLRs), lists,
tables and tagged forms for what JSON lacks: ``{"array": [...], "dtype": ..., "shape":
[...]}``, ``{"tuple": [...]}``, ``{"float": "inf"}`` and fitted records
``{"record": "TFit", "fields": {...}}``, whose classes come from a closed table of the
calibration modules' dataclasses, never from a path in the file.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from typing import Any

import numpy as np

from ..errors import InputError
from . import CALIBRATORS, make_calibrator, options_of
from .base import BaseCalibrator

#: Format of the file; a loader refuses others.
FORMAT = "forensic-lr calibrator 1"


def _records() -> dict[str, type]:
    """The dataclasses a fitted calibrator may hold, by class name (closed table)."""
    table: dict[str, type] = {}
    for name in CALIBRATORS:
        for value in vars(sys.modules[CALIBRATORS[name].__module__]).values():
            if dataclasses.is_dataclass(value) and isinstance(value, type):
                table[value.__name__] = value
    return table


def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else {"float": repr(float(value))}
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    if isinstance(value, np.ndarray):
        flat = [_encode(v.item(), where) for v in value.ravel()]
        return {"array": flat, "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, where) for v in value]}
    if isinstance(value, list):
        return [_encode(v, where) for v in value]
    if isinstance(value, dict):
        return {"dict": {str(k): _encode(v, where) for k, v in value.items()}}
    if dataclasses.is_dataclass(value) and type(value).__name__ in _records():
        return {"record": type(value).__name__,
                "fields": {f.name: _encode(getattr(value, f.name), where)
                           for f in dataclasses.fields(value)}}
    raise InputError(f"cannot save {where}: a value of type {type(value).__name__} has no "
                     "JSON form")


def _decode(value: Any, records: dict[str, type]) -> Any:
    if isinstance(value, list):
        return [_decode(v, records) for v in value]
    if not isinstance(value, dict):
        return value
    if "float" in value:
        return float(value["float"])
    if "array" in value:
        flat = [_decode(v, records) for v in value["array"]]
        return np.array(flat, dtype=np.dtype(value["dtype"])).reshape(value["shape"])
    if "tuple" in value:
        return tuple(_decode(v, records) for v in value["tuple"])
    if "dict" in value:
        return {k: _decode(v, records) for k, v in value["dict"].items()}
    if "record" in value:
        if value["record"] not in records:
            raise InputError(f"unknown fitted record {value['record']!r} in the calibrator file")
        return records[value["record"]](**{k: _decode(v, records)
                                           for k, v in value["fields"].items()})
    raise InputError(f"unreadable value in the calibrator file: keys {sorted(value)}")


def calibrator_to_json(calibrator: BaseCalibrator) -> str:
    """The fitted ``calibrator`` as a JSON text (see the module notes)."""
    calibrator.check_fitted()
    name = calibrator.name
    if name not in CALIBRATORS or type(calibrator) is not CALIBRATORS[name]:
        raise InputError(f"only the registered calibrators can be saved, got "
                         f"{type(calibrator).__name__}")
    where = f"the {name!r} calibrator"
    options = {k: _encode(getattr(calibrator, k), where) for k in options_of(name)}
    state = {k: _encode(v, where) for k, v in sorted(vars(calibrator).items())
             if k.endswith("_")}
    return json.dumps({"format": FORMAT, "method": name, "options": options, "state": state},
                      indent=1, sort_keys=True, allow_nan=False)


def calibrator_from_json(text: str, source: str = "the calibrator JSON") -> BaseCalibrator:
    """A fitted calibrator from :func:`calibrator_to_json`'s text.

    Raises
    ------
    InputError
        Not JSON, another format, an unknown method or option, or an unreadable value
        (naming ``source``).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source} is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{source} is not a saved calibrator (format {FORMAT!r} expected)")
    records = _records()
    options = {k: _decode(v, records) for k, v in data["options"].items()}
    calibrator = make_calibrator(data["method"], **options)
    for key, value in data["state"].items():
        if not key.endswith("_"):
            raise InputError(f"{source}: state key {key!r} is not a fitted attribute")
        setattr(calibrator, key, _decode(value, records))
    return calibrator
