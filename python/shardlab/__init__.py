"""ShardLab from Python: the CLI's verbs over the same core (docs/python.md).

Each function takes a scenario as a path (str or os.PathLike) or as a dict in
the scenario format (docs/scenario-format.md) and returns the JSON object the
CLI writes, as a dict. Failures raise a subclass of shardlab.Error carrying the
CLI's message:

    InvalidScenarioError  the scenario, plan or an option is invalid (exit 2)
    PlanningFailedError   TorchRec's planner found no plan (exit 3); .error_type
                          is TorchRec's PlannerErrorType ("insufficient_storage", ...)
    NotFoundError, UnavailableError, IoError, InternalError
"""

import json
import os

from . import _shardlab

__all__ = [
    "Error", "InvalidScenarioError", "PlanningFailedError", "NotFoundError",
    "UnavailableError", "IoError", "InternalError", "validate", "options", "plan", "simulate",
    "compare", "optimize", "summarize_trace", "compare_with_trace", "calibrate_from_trace",
]


class Error(Exception):
    """Every ShardLab failure; str(error) is the CLI's message."""


class InvalidScenarioError(Error):
    pass


class PlanningFailedError(Error):
    def __init__(self, message, error_type):
        super().__init__(message)
        self.error_type = error_type


class NotFoundError(Error):
    pass


class UnavailableError(Error):
    pass


class IoError(Error):
    pass


class InternalError(Error):
    pass


_KINDS = {
    "invalid_scenario": InvalidScenarioError,
    "not_found": NotFoundError,
    "unavailable": UnavailableError,
    "io": IoError,
    "internal": InternalError,
}


def _call(function, *args):
    try:
        return json.loads(function(*args))
    except _shardlab.CoreError as e:
        kind, message = e.args
        if kind.startswith("planning_failed:"):
            raise PlanningFailedError(message, kind.split(":", 1)[1]) from None
        raise _KINDS.get(kind, InternalError)(message) from None


def _source(scenario):
    """(text or path, is_path, origin) of a path or a dict."""
    if isinstance(scenario, dict):
        return json.dumps(scenario), False, "<dict>"
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        return path, True, path
    raise TypeError("scenario: a path or a dict in the scenario format, got "
                    + type(scenario).__name__)


def _plan_text(plan):
    """The text of a plan given as a dict or a path; None for None."""
    if plan is None:
        return None
    if isinstance(plan, dict):
        return json.dumps(plan)
    with open(os.fspath(plan), encoding="utf-8") as f:
        return f.read()


def _calibration(calibration):
    """(kind, value) of a calibration argument: None, "torchrec", a profile dict, or a path."""
    if calibration is None:
        return "", ""
    if isinstance(calibration, dict):
        return "text", json.dumps(calibration)
    if calibration == "torchrec":
        return "torchrec", ""
    if isinstance(calibration, (str, os.PathLike)):
        return "path", os.fspath(calibration)
    raise TypeError("calibration: a profile path, a profile dict or \"torchrec\", got "
                    + type(calibration).__name__)


def validate(scenario):
    """Checks a scenario as `shardlab validate` does; returns {"valid": True}."""
    return _call(_shardlab.validate, *_source(scenario))


def options(scenario, torchrec_version=None, calibration=None, tables=(), sharding_types=()):
    """Every sharding option with its estimates, as `shardlab options -o -` writes them;
    `tables` and `sharding_types` list only those, as --table and --sharding-type do."""
    return _call(_shardlab.options, *_source(scenario), torchrec_version or "",
                 *_calibration(calibration), list(tables), list(sharding_types))


def compare(scenario, proposers=(), partitioners=(), perf_models=(), iterations=4):
    """The comparison `shardlab compare -o -` writes; the lists choose the rows as
    --proposers, --partitioners and --perf-models do (empty: every row)."""
    return _call(_shardlab.compare, *_source(scenario), list(proposers), list(partitioners),
                 list(perf_models), int(iterations))


def plan(scenario, torchrec_version=None, calibration=None):
    """The plan `shardlab plan` writes (its JSON as a dict). `calibration`: a profile
    (path or dict, as `shardlab calibrate` writes) or "torchrec", as --calibration."""
    return _call(_shardlab.plan, *_source(scenario), torchrec_version or "",
                 *_calibration(calibration))


def simulate(scenario, plan=None, iterations=4, torchrec_version=None, calibration=None):
    """The result `shardlab simulate -o` writes. `plan`: a plan dict (as plan()
    returns or a plan file holds) or a path to one; None plans the scenario first."""
    return _call(_shardlab.simulate, *_source(scenario), _plan_text(plan), int(iterations),
                 torchrec_version or "", *_calibration(calibration))


def optimize(scenario, plan=None, objective="simulated", time_limit=30.0, max_evaluations=0,
             seed=1, torchrec_version=None, calibration=None):
    """`shardlab optimize`: {"plan": the plan `shardlab optimize -o` writes, "summary": what
    the run achieved (simulated iteration and TorchRec rating of the best and the start plan,
    gain_pct against TorchRec's plan, tables moved, why it stopped)}. `plan`: a start plan
    (dict or path) instead of TorchRec's; `time_limit` bounds the whole run in seconds (0: no
    limit). Ctrl-C stops the search and returns its best plan so far."""
    return _call(_shardlab.optimize, *_source(scenario), _plan_text(plan), str(objective),
                 float(time_limit), int(max_evaluations), int(seed), torchrec_version or "",
                 *_calibration(calibration))


def summarize_trace(paths):
    """The summary `shardlab trace summarize --format json` writes of PyTorch profiler
    traces: `paths`, a file or folder or a list of them (one file per rank, .json or
    .json.gz; docs/traces.md). A file that cannot be read raises InvalidScenarioError
    naming it (and the byte offset where a truncated file ends)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _call(_shardlab.summarize_traces, [os.fspath(p) for p in paths])


def compare_with_trace(scenario, traces, plan=None, iterations=4, torchrec_version=None,
                       calibration=None):
    """The traced ranks beside the simulation of `plan` (None: the scenario's own), as
    `shardlab simulate --against TRACES --against-json` writes them: {"ranks": [{"rank",
    "file", "steps", "rows": [{"what", "measured_ms", "simulated_ms", "error"}]}]}."""
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    return _call(_shardlab.compare_with_trace, *_source(scenario), _plan_text(plan),
                 [os.fspath(t) for t in traces], int(iterations), torchrec_version or "",
                 *_calibration(calibration))


def calibrate_from_trace(traces, scenario=None, plan=None, gpu=None, local_world_size=8,
                         holdout=0.2, seed=1, name="traces"):
    """The calibration profile `shardlab calibrate --from-trace` writes (a dict that plan(),
    options() and simulate() take as `calibration`): the collectives of PyTorch profiler
    traces, their dense model's matrix products (fitted against `gpu`, a GPU preset name;
    None: the scenario's GPU, else the one the trace's device names) and, given the job's
    `scenario` (and the `plan` it ran, else its own), its embedding lookups.
    docs/calibration.md "From profiler traces"."""
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    source, is_path, origin = _source(scenario) if scenario is not None else (None, False, "")
    return _call(_shardlab.calibrate_from_trace, [os.fspath(t) for t in traces],
                 int(local_world_size), source, is_path, origin, _plan_text(plan), gpu or "",
                 float(holdout), int(seed), str(name))


def _plan_with_stats(scenario, torchrec_version=None):
    """(plan dict or None, TorchRec error type or "", message, stats table lines): the plan
    with TorchRec's stats table, for shardlab.torchrec; a planning failure is returned, not
    raised (TorchRec logs the table then raises); invalid input raises as plan() does."""
    doc = _call(_shardlab.plan_with_stats, *_source(scenario), torchrec_version or "")
    kind = doc["error_kind"]
    error_type = kind.split(":", 1)[1] if kind.startswith("planning_failed:") else ""
    return doc["plan"], error_type, doc["error_message"], doc["stats"].splitlines()
