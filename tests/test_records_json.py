"""One JSON form for every result: records and result dataclasses alike.

The rule (forensic_lr.records): ``to_dict()`` gives plain JSON values with every
non-finite float (inf, -inf, NaN) as None, and ``to_json()`` is text that a strict JSON
parser accepts (``json.loads`` with ``parse_constant`` refusing Infinity/NaN).
"""

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

from forensic_lr.metrics import evaluate
from forensic_lr.metrics.dcf import ape_curve
from forensic_lr.metrics.evidence import tippett
from forensic_lr.metrics.pav import pav_fit
from forensic_lr.metrics.roc import roc
from forensic_lr.records import jsonable

PACKAGE = Path(__file__).resolve().parents[1] / "forensic_lr"
pytestmark = pytest.mark.filterwarnings("ignore::forensic_lr.errors.RawScoreWarning")


def _strict(text: str):
    def refuse(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def _non_finite(value) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return False


# LLRs with +-inf on both sides: Cllr is inf, PAV block LLRs and ROC thresholds are +-inf
SS = np.array([-np.inf, -1.0, 0.5, 2.0, np.inf])
DS = np.array([-np.inf, -2.0, -0.5, 1.0, np.inf])


@pytest.mark.parametrize("make", [
    lambda: evaluate(SS, DS), lambda: pav_fit(SS, DS), lambda: roc(SS, DS),
    lambda: tippett(SS, DS), lambda: ape_curve(np.array([-1.0, 2.0]), np.array([-2.0, 0.5])),
], ids=["Evaluation", "PAVFit", "ROC", "TippettData", "APECurve"])
def test_result_dataclasses_write_non_finite_values_as_null(make):
    result = make()
    values = result.to_dict()
    assert not _non_finite(values)
    assert _strict(result.to_json()) == values


def test_evaluation_to_dict_is_null_where_the_value_is_infinite():
    ev = evaluate(SS, DS)
    assert math.isinf(ev.cllr)           # hand: an SS LLR of -inf costs log2(1 + inf)
    assert ev.to_dict()["cllr"] is None  # the JSON form
    assert ev.to_dict()["n_ss"] == 5 and ev.to_dict()["auc"] == pytest.approx(ev.auc)


def test_jsonable_rule_by_hand():
    assert jsonable({"a": np.float64("inf"), "b": [np.nan, 1.5], "c": np.int64(3),
                     "d": (np.array([1.0, -np.inf]),)}) == {
        "a": None, "b": [None, 1.5], "c": 3, "d": [[1.0, None]]}


def test_every_to_dict_of_the_package_goes_through_the_one_serialiser():
    """No result class writes its own rule: a to_dict either comes from Record /
    Serialisable or returns ``jsonable(...)`` of the shape it builds. (The faces, cli/ and
    web/, define no result records.)"""
    own = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "records.py" or path.relative_to(PACKAGE).parts[0] in ("cli", "web"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "to_dict":
                last = node.body[-1]
                call = last.value if isinstance(last, ast.Return) else None
                if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == "jsonable"):
                    own.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not own, own

