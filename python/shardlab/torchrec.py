"""ShardLab for TorchRec users (docs/python.md, "shardlab.torchrec").

Plan a TorchRec model with ShardLab and get TorchRec's own ShardingPlan back:

    from shardlab.torchrec import ShardLabPlanner
    planner = ShardLabPlanner(topology=Topology(world_size=8, compute_device="cuda"),
                              batch_size=512, torchrec_version="2024-02")
    plan = planner.plan(model, sharders=[EmbeddingBagCollectionSharder()])
    model = DistributedModelParallel(model, device=device, plan=plan)

    scenario_from_torchrec(model, sharders, topology, batch_size, constraints)
        the scenario dict (docs/scenario-format.md) ShardLab plans for the model
    plan_to_sharding_plan(plan_dict, module_paths=None), load_plan(path, module_paths=None)
        a ShardLab plan (ShardLab's "tables" or TorchRec's "plan" shape) as a
        torchrec.distributed.types.ShardingPlan
    ShardLabPlanner
        EmbeddingShardingPlanner's constructor and plan() / collective_plan()

It needs PyTorch and TorchRec; importing it without them raises ImportError. The
torch-free helpers (plan_dict_tables) are defined before the imports that need torch.
Whatever ShardLab cannot express exactly (a module type it does not model, a constraint
field or value, a planner component) raises ValueError naming it, rather than planning
something else than TorchRec would.
"""

import json
import os

__all__ = [
    "plan_dict_tables", "scenario_from_torchrec", "module_paths_from_torchrec",
    "plan_to_sharding_plan", "load_plan", "ShardLabPlanner",
]

TORCHREC_VERSIONS = ("2024-02", "2026-08")

# The fields of TorchRec's ParameterSharding that a plan file carries (torchrec-interop.md).
_PARAMETER_SHARDING_FIELDS = ("sharding_type", "compute_kernel", "ranks", "sharding_spec",
                              "cache_params", "enforce_hbm", "stochastic_rounding",
                              "bounds_check_mode")


# ---------------------------------------------------------------------------------------
# Torch-free: plan files in either shape.
# ---------------------------------------------------------------------------------------

def plan_dict_tables(plan_dict):
    """Normalizes a plan into {module path: {table: ParameterSharding fields}}.

    `plan_dict` is what shardlab.plan() returns or `shardlab plan -o` writes (top-level
    "tables"), the TorchRec-shaped file of `shardlab plan --format torchrec`
    ({"format": "torchrec.ShardingPlan", "version": 1, "plan": {...}}), or the bare
    {module: {table: {...}}} map inside it. Each table becomes a dict with the eight
    fields of TorchRec's ParameterSharding, as the TorchRec-shaped file writes them:
    "sharding_spec" is None for data_parallel and otherwise a list of
    {"shard_offsets", "shard_sizes", "placement"}; fields the plan does not give are None.
    Modules and tables keep the plan's order. Raises ValueError for a failed plan, a
    HugeCTR-layout table (no TorchRec sharding builds it) or anything else malformed.
    """
    if not isinstance(plan_dict, dict):
        raise ValueError("plan: expected a plan dict, got " + type(plan_dict).__name__)
    if "error" in plan_dict and "tables" not in plan_dict and "plan" not in plan_dict:
        error = plan_dict.get("error") or {}
        raise ValueError("plan: the plan holds no tables, planning failed: %s: %s"
                         % (error.get("type"), error.get("message")))
    if "tables" in plan_dict:
        return _shardlab_tables(plan_dict["tables"])
    if "plan" in plan_dict and isinstance(plan_dict.get("plan"), dict) and (
            "format" in plan_dict or "version" in plan_dict):
        if plan_dict.get("format") != "torchrec.ShardingPlan" or plan_dict.get("version") != 1:
            raise ValueError('plan: expected "format": "torchrec.ShardingPlan" and "version": 1,'
                             " got %r and %r" % (plan_dict.get("format"), plan_dict.get("version")))
        return _torchrec_tables(plan_dict["plan"], "plan")
    return _torchrec_tables(plan_dict, "")


def _at(path, key):
    return "%s.%s" % (path, key) if path else str(key)


def _shardlab_tables(tables):
    if not isinstance(tables, dict):
        raise ValueError("tables: expected an object keyed by table name")
    out = {}
    for name, entry in tables.items():
        path = _at("tables", name)
        if not isinstance(entry, dict):
            raise ValueError(path + ": expected a table object")
        for key in ("module", "sharding_type", "compute_kernel", "ranks"):
            if key not in entry:
                raise ValueError("%s: has no %r" % (path, key))
        if entry.get("layout") not in (None, "torchrec"):
            raise ValueError("%s: layout %r: no TorchRec sharding type builds it"
                             % (path, entry["layout"]))
        spec = None
        if entry["sharding_type"] != "data_parallel" and entry.get("sharding_spec", True):
            shards = entry.get("shards")
            if not isinstance(shards, list) or not shards:
                raise ValueError(path + ".shards: expected the table's shards")
            spec = []
            for i, shard in enumerate(shards):
                try:
                    spec.append({"shard_offsets": list(shard["offset"]),
                                 "shard_sizes": list(shard["size"]),
                                 "placement": shard["placement"]})
                except (KeyError, TypeError):
                    raise ValueError("%s.shards[%d]: expected offset, size and placement"
                                     % (path, i)) from None
        sharding = {"sharding_type": entry["sharding_type"],
                    "compute_kernel": entry["compute_kernel"],
                    "ranks": list(entry["ranks"]),
                    "sharding_spec": spec}
        for key in ("cache_params", "enforce_hbm", "stochastic_rounding", "bounds_check_mode"):
            sharding[key] = entry.get(key)
        out.setdefault(entry["module"], {})[name] = sharding
    return out


def _torchrec_tables(modules, path):
    if not isinstance(modules, dict):
        raise ValueError((path or "plan") + ": expected an object keyed by module path")
    out = {}
    for module, tables in modules.items():
        module_path = _at(path, module)
        if not isinstance(tables, dict):
            raise ValueError(module_path + ": expected an object keyed by table name")
        out[module] = {}
        for name, entry in tables.items():
            table_path = _at(module_path, name)
            if not isinstance(entry, dict):
                raise ValueError(table_path + ": expected a ParameterSharding object")
            unknown = sorted(set(entry) - set(_PARAMETER_SHARDING_FIELDS))
            if unknown:
                raise ValueError("%s: not a field of TorchRec's ParameterSharding: %s"
                                 % (table_path, ", ".join(unknown)))
            for key in ("sharding_type", "compute_kernel", "ranks"):
                if key not in entry:
                    raise ValueError("%s: has no %r" % (table_path, key))
            spec = entry.get("sharding_spec")
            if spec is not None:
                if not isinstance(spec, list):
                    raise ValueError(table_path + ".sharding_spec: expected null or a list")
                shards = []
                for i, shard in enumerate(spec):
                    try:
                        shards.append({"shard_offsets": list(shard["shard_offsets"]),
                                       "shard_sizes": list(shard["shard_sizes"]),
                                       "placement": shard["placement"]})
                    except (KeyError, TypeError):
                        raise ValueError("%s.sharding_spec[%d]: expected shard_offsets,"
                                         " shard_sizes and placement" % (table_path, i)) from None
                spec = shards
            sharding = {key: entry.get(key) for key in _PARAMETER_SHARDING_FIELDS}
            sharding["ranks"] = list(entry["ranks"])
            sharding["sharding_spec"] = spec
            out[module][name] = sharding
    return out


# ---------------------------------------------------------------------------------------
# Everything below needs PyTorch and TorchRec.
# ---------------------------------------------------------------------------------------

try:
    import torch
    import torch.distributed as dist
    from torch import nn
    import torchrec  # noqa: F401
    import torchrec.optim as trec_optim
    from torchrec.distributed.embedding import EmbeddingCollectionSharder
    from torchrec.distributed.embeddingbag import EmbeddingBagCollectionSharder
    from torchrec.distributed.planner.constants import BATCH_SIZE
    from torchrec.distributed.planner.enumerators import EmbeddingEnumerator
    from torchrec.distributed.planner.partitioners import (
        GreedyPerfPartitioner, MemoryBalancedPartitioner)
    from torchrec.distributed.planner.perf_models import NoopPerfModel
    from torchrec.distributed.planner.proposers import (
        EmbeddingOffloadScaleupProposer, GreedyProposer, GridSearchProposer, UniformProposer)
    # TorchRec 2026-08 only.
    from torchrec.distributed.planner import proposers as _proposers
    _DynamicProgrammingProposer = getattr(_proposers, "DynamicProgrammingProposer", None)
    from torchrec.distributed.planner.shard_estimators import (
        EmbeddingPerfEstimator, EmbeddingStorageEstimator)
    from torchrec.distributed.planner.stats import EmbeddingStats, NoopEmbeddingStats
    from torchrec.distributed.planner.storage_reservations import (
        FixedPercentageStorageReservation, HeuristicalStorageReservation,
        InferenceStorageReservation)
    from torchrec.distributed.planner.types import (
        ParameterConstraints, PlannerError, PlannerErrorType, Topology)
    from torchrec.distributed.quant_embedding import QuantEmbeddingCollectionSharder
    from torchrec.distributed.quant_embeddingbag import QuantEmbeddingBagCollectionSharder
    from torchrec.distributed.sharding_plan import get_default_sharders
    from torchrec.distributed.types import (
        CacheParams, EmbeddingModuleShardingPlan, EnumerableShardingSpec, ParameterSharding,
        ShardingPlan, ShardMetadata)
    from torchrec.modules.embedding_modules import (
        EmbeddingBagCollection, EmbeddingBagCollectionInterface, EmbeddingCollection,
        EmbeddingCollectionInterface)
    from torchrec.quant.embedding_modules import (
        EmbeddingBagCollection as QuantEmbeddingBagCollection,
        EmbeddingCollection as QuantEmbeddingCollection)
    from torchrec.types import DataType
    try:
        from torchrec.distributed.types import BoundsCheckMode, CacheAlgorithm
    except ImportError:
        from fbgemm_gpu.split_table_batched_embeddings_ops_common import (
            BoundsCheckMode, CacheAlgorithm)
except ImportError as _error:
    raise ImportError(
        "shardlab.torchrec needs PyTorch and TorchRec, which this Python cannot import (%s). "
        "Install torch and torchrec in this environment; the rest of shardlab works without "
        "them." % (_error,)) from _error

import dataclasses
import logging
import pickle
import re
import warnings

import shardlab

_SHARDING_TYPES = ("data_parallel", "table_wise", "column_wise", "row_wise", "table_row_wise",
                   "table_column_wise", "grid_shard")
_COMPUTE_KERNELS = ("dense", "fused", "fused_uvm", "fused_uvm_caching", "quant", "quant_uvm",
                    "quant_uvm_caching", "key_value", "ssd_virtual_table", "dram_virtual_table",
                    "dram_ssd_virtual_table")
_DATA_TYPES = ("fp32", "fp16", "bf16", "int8", "int4", "int2")
_CONSTRAINT_FIELDS = ("sharding_types", "compute_kernels", "min_partition", "pooling_factors",
                      "num_poolings", "batch_sizes", "is_weighted", "cache_params",
                      "enforce_hbm", "stochastic_rounding", "bounds_check_mode", "feature_names",
                      "key_value_params", "use_virtual_table")
# The KeyValueParams fields the planner reads (TorchRec 2026-08).
_KEY_VALUE_FIELDS = ("max_l1_cache_size", "l2_cache_size")
_CACHE_FIELDS = ("algorithm", "load_factor", "reserved_memory", "precision",
                 "prefetch_pipeline")
# The planner methods of the stock sharders; a subclass that overrides one of them
# offers other options than ShardLab enumerates.
_SHARDER_METHODS = ("sharding_types", "compute_kernels", "storage_usage",
                    "shardable_parameters")


def _sharder_name(t):
    # TorchRec's planner/utils.py sharder_name: sharders are matched by exact type.
    return t.__module__ + "." + t.__name__


def _name(obj):
    return "%s.%s" % (type(obj).__module__, type(obj).__qualname__)


def _check_version(torchrec_version):
    if torchrec_version not in TORCHREC_VERSIONS:
        raise ValueError("torchrec_version: expected one of %s, got %r"
                         % (", ".join(TORCHREC_VERSIONS), torchrec_version))


def _is_default(value, f):
    if f.default is not dataclasses.MISSING:
        return value == f.default
    if f.default_factory is not dataclasses.MISSING:
        return value == f.default_factory()
    return False


# --- Topology -------------------------------------------------------------------------

def _default_topology():
    # As EmbeddingShardingPlanner builds it when given none.
    from torchrec.distributed.comm import get_local_size
    return Topology(local_world_size=get_local_size(), world_size=dist.get_world_size(),
                    compute_device="cuda" if torch.cuda.is_available() else "cpu")


def _topology_section(topology, torchrec_version):
    """scenario.topology from a TorchRec Topology, through the properties both versions
    (fe1c2824 and 376cac6a) have, refusing the 2026 settings ShardLab does not model."""
    device = topology.compute_device
    if device not in ("cuda", "cpu", "mtia"):
        raise ValueError("topology.compute_device %r: ShardLab plans cuda, cpu and mtia" % device)
    out = {"world_size": int(topology.world_size),
           "local_world_size": int(topology.local_world_size),
           "compute_device": device}
    devices = topology.devices
    hbm = {int(d.storage.hbm) for d in devices}
    ddr = {int(d.storage.ddr) for d in devices}
    if len(hbm) > 1 or len(ddr) > 1:
        raise ValueError("topology.devices: devices of different capacities (HBM %s, DDR %s):"
                         " ShardLab's topology has one capacity for every device"
                         % (sorted(hbm), sorted(ddr)))
    hbm_cap, ddr_cap = hbm.pop(), ddr.pop()
    # HBM exists on cuda (and, in the 2026-08 model, on mtia); elsewhere it is 0.
    if device == "cuda" or (device == "mtia" and torchrec_version == "2026-08"):
        out["hbm_cap"] = hbm_cap
    out["ddr_cap"] = ddr_cap
    if torchrec_version == "2024-02":
        for key in ("hbm_cap", "ddr_cap"):
            if out.get(key) == 0:
                raise ValueError("topology: %s is 0, which the 2024-02 model reads as the default"
                                 " capacity, not 0 bytes" % key)
    out["hbm_mem_bw"] = float(topology.hbm_mem_bw)
    out["ddr_mem_bw"] = float(topology.ddr_mem_bw)
    if hasattr(topology, "hbm_to_ddr_mem_bw"):  # TorchRec 2026-08
        out["hbm_to_ddr_mem_bw"] = float(topology.hbm_to_ddr_mem_bw)
    if hasattr(topology, "ssd_mem_bw"):  # TorchRec 2026-08's SSD tier
        out["ssd_mem_bw"] = float(topology.ssd_mem_bw)
        ssd = {int(getattr(d.storage, "ssd", 0)) for d in devices}
        if len(ssd) > 1:
            raise ValueError("topology.devices: devices of different SSD capacities %s"
                             % sorted(ssd))
        out["ssd_cap"] = ssd.pop()
    comms = getattr(topology, "comms_bandwidths", None)  # TorchRec 2026-08
    if comms is not None and type(comms).__name__ != "BasicCommsBandwidths":
        raise ValueError("topology.comms_bandwidths %s: ShardLab models TorchRec's"
                         " intra_host_bw and inter_host_bw only" % _name(comms))
    out["intra_host_bw"] = float(topology.intra_host_bw)
    out["inter_host_bw"] = float(topology.inter_host_bw)
    out["bwd_compute_multiplier"] = float(topology.bwd_compute_multiplier)
    # TorchRec 2026-08's pods: groups of intra_group_size = pod_size x local_world_size.
    group = getattr(topology, "intra_group_size", topology.local_world_size)
    if group != topology.local_world_size:
        out["pod_size"] = int(group) // int(topology.local_world_size)
    # TorchRec 2026-08 settings ShardLab has no field for: only their defaults plan alike.
    for key, default in (("weighted_feature_bwd_compute_multiplier", 1.0),
                         ("uneven_sharding_perf_multiplier", 1.0)):
        value = getattr(topology, key, default)
        if value != default:
            raise ValueError("topology.%s = %r: ShardLab models only the default %r"
                             % (key, value, default))
    return out


# --- Modules and sharders -------------------------------------------------------------

def _sharder_map(sharders):
    if sharders is None:
        sharders = get_default_sharders()
    return {_sharder_name(s.module_type): s for s in sharders}


def _sharded_modules(module, sharder_map):
    """(path, module, sharder) of every module TorchRec shards, in the order TorchRec's
    EmbeddingEnumerator visits them (a stack: last-declared child first)."""
    out = []
    stack = [("", module)]
    while stack:
        path, child = stack.pop()
        sharder = sharder_map.get(_sharder_name(type(child)))
        if sharder is None:
            for n, m in child.named_children():
                stack.append((path + "." + n if path else n, m))
            continue
        out.append((path, child, sharder))
    return out


def _check_sharder(path, module, sharder, stock):
    if not isinstance(sharder, stock):
        raise ValueError("%r: %s is sharded by %s; ShardLab models TorchRec's %s only"
                         % (path, _name(module), _name(sharder), stock.__name__))
    for method in _SHARDER_METHODS:
        if getattr(type(sharder), method) is not getattr(stock, method):
            raise ValueError("%r: sharder %s overrides %s(): ShardLab enumerates the options"
                             " of TorchRec's %s only" % (path, _name(sharder), method,
                                                         stock.__name__))


_QUANT_TYPES = (QuantEmbeddingBagCollection, QuantEmbeddingCollection)


def _modules_and_paths(module, sharder_map, inference=None):
    """[(ShardLab path, model path, module, sharder)] in TorchRec's
    enumeration order, refusing what a scenario cannot express. `inference` (True, False,
    or None: either) is the planner's is_inference: a scenario plans TorchRec's quantized
    modules in inference and its training modules otherwise, never a mix."""
    found = _sharded_modules(module, sharder_map)
    sharded = {path for path, _, _ in found}

    def inside_or_above(path):
        for p in sharded:
            if p == path or p == "" or path.startswith(p + ".") or path == "" or \
                    p.startswith(path + "."):
                return True
        return False

    for path, child in module.named_modules():
        if isinstance(child, (EmbeddingBagCollectionInterface, EmbeddingCollectionInterface)) \
                and not inside_or_above(path):
            raise ValueError("%r: %s holds embedding tables but none of the sharders shards it"
                             % (path, _name(child)))
    out = []
    for path, child, sharder in found:
        if type(child) in (EmbeddingBagCollection, QuantEmbeddingBagCollection):
            quantized = type(child) is QuantEmbeddingBagCollection
            _check_sharder(path, child, sharder, QuantEmbeddingBagCollectionSharder
                           if quantized else EmbeddingBagCollectionSharder)
            weighted = bool(child.is_weighted())
            kind = "weighted_ebc" if weighted else "ebc"
        elif type(child) in (EmbeddingCollection, QuantEmbeddingCollection):
            quantized = type(child) is QuantEmbeddingCollection
            _check_sharder(path, child, sharder, QuantEmbeddingCollectionSharder
                           if quantized else EmbeddingCollectionSharder)
            kind = "ec"
        else:
            raise ValueError("%r: %s (sharded by %s): ShardLab models TorchRec's"
                             " EmbeddingBagCollection and EmbeddingCollection (and their"
                             " quantized torchrec.quant.embedding_modules versions) only"
                             % (path, _name(child), _name(sharder)))
        if inference is False and quantized:
            raise ValueError("%r: %s is quantized: ShardLab plans quantized modules for"
                             " inference only, as TorchRec plans them with"
                             " enumerator=EmbeddingEnumerator(estimator=[EmbeddingPerfEstimator("
                             "is_inference=True), EmbeddingStorageEstimator(...)]); pass that"
                             " enumerator" % (path, _name(child)))
        if inference and not quantized:
            raise ValueError("%r: %s is a training module: an inference scenario"
                             " (is_inference, the enumerator's EmbeddingPerfEstimator) plans"
                             " torchrec.quant.embedding_modules' quantized modules only"
                             % (path, _name(child)))
        out.append((kind, path, child, sharder))
    kinds = [k for k, _, _, _ in out]
    for kind in set(kinds):
        if kinds.count(kind) > 1:
            paths = [p for k, p, _, _ in out if k == kind]
            raise ValueError("modules %s: a scenario has one %s module, the model has %d"
                             % (", ".join(repr(p) for p in paths), kind, len(paths)))
    if "ec" in kinds and len(kinds) > 1:
        raise ValueError("modules %s: a scenario holds EmbeddingBagCollections or one"
                         " EmbeddingCollection, not both"
                         % ", ".join(repr(p) for _, p, _, _ in out))
    if kinds == ["ebc", "weighted_ebc"]:
        # ShardLab's module tree enumerates weighted_ebc first (cost-model.md §2.4); the
        # order breaks ties between equal options, so the plans could differ.
        raise ValueError("modules %r and %r: TorchRec enumerates the unweighted"
                         " EmbeddingBagCollection first, a scenario the weighted one; declare"
                         " the weighted one after the unweighted one (TorchRec visits the last"
                         " declared first) to plan with ShardLab" % (out[0][1], out[1][1]))
    return out


def module_paths_from_torchrec(module, sharders=None):
    """{ShardLab module path: the model's path} for the modules scenario_from_torchrec
    finds, e.g. {"ebc": "sparse_arch.embedding_bag_collection"}: the module_paths to give
    plan_to_sharding_plan."""
    return {kind: path for kind, path, _, _ in _modules_and_paths(module, _sharder_map(sharders))}


# --- Tables, optimizer, qcomm ----------------------------------------------------------

def _data_type(config, path):
    data_type = getattr(config.data_type, "value", config.data_type)
    name = str(data_type).lower()
    if name not in _DATA_TYPES:
        raise ValueError("%r: table %r has data type %s, which ShardLab does not model"
                         % (path, config.name, data_type))
    return name


def _quant_columns(data_type, dim, row_alignment):
    """The width TorchRec's planner sees of a quantized table (cost-model.md §5.2): FBGEMM's
    padded row of u bytes (an fp16 scale and bias for the integer types), in packed
    half- and quarter-byte columns for int4 and int2."""
    u = {"fp32": 4 * dim, "fp16": 2 * dim, "int8": dim + 4, "int4": dim // 2 + 4,
         "int2": dim // 4 + 4}[data_type]
    w = -(-u // row_alignment) * row_alignment
    return w * {"int4": 2, "int2": 4}.get(data_type, 1)


def _quant_tables(path, child, sharder):
    """[(config, weight)] of a quantized module in the module's table order, refusing what
    ShardLab's quantized module (cost-model.md §2.7, §5.2) does not build alike."""
    configs = list(child.embedding_configs() if isinstance(child, QuantEmbeddingCollection)
                   else child.embedding_bag_configs())
    params = sharder.shardable_parameters(child)
    if set(params) != {c.name for c in configs}:
        raise ValueError("%r: sharder %s shards tables %s of %s: ShardLab plans every table"
                         " of a module" % (path, _name(sharder), sorted(params),
                                           sorted(c.name for c in configs)))
    # The module regroups its tables by data type (first appearance), as ShardLab does.
    types = []
    for c in configs:
        if c.data_type not in types:
            types.append(c.data_type)
    grouped = [c.name for t in types for c in configs if c.data_type == t]
    if list(params) != grouped:
        raise ValueError("%r: %s enumerates its tables %s, not grouped by data type as"
                         " ShardLab's quantized module does (%s)"
                         % (path, _name(child), list(params), grouped))
    row_alignment = int(getattr(child, "row_alignment", 16))
    out = []
    for c in configs:
        data_type = _data_type(c, path)
        param = params[c.name]
        expected = None
        if data_type in ("fp32", "fp16", "int8", "int4", "int2"):
            expected = [int(c.num_embeddings),
                        _quant_columns(data_type, int(c.embedding_dim), row_alignment)]
        if expected is None or param.element_size() != 1 or list(param.shape) != expected:
            raise ValueError("%r: quantized table %r (%s, %d x %d) has weights %s of shape %s:"
                             " ShardLab plans FBGEMM's row layout of byte tensors %s (16-byte"
                             " rows, scale and bias in the row)"
                             % (path, c.name, data_type, c.num_embeddings, c.embedding_dim,
                                param.dtype, list(param.shape), expected))
        out.append((c, param))
    return out


def _optimizer(tensor, torchrec_version):
    # The attribute each TorchRec version's storage estimator reads.
    if torchrec_version == "2024-02":
        return getattr(tensor, "_optimizer_class", None)
    return getattr(tensor, "_optimizer_classes", [None])[0]


def _optimizer_name(optimizer_class):
    """ShardLab's sharder.optimizer for a class, by _get_optimizer_multipler's rule."""
    if not optimizer_class:
        return None
    if optimizer_class in (torch.optim.SGD, getattr(trec_optim, "SGD", None)):
        return "sgd"
    if optimizer_class in (torch.optim.Adam, getattr(trec_optim, "Adam", None)):
        return "adam"
    if optimizer_class == getattr(trec_optim, "RowWiseAdagrad", None):
        return "rowwise_adagrad"
    if optimizer_class in (torch.optim.Adagrad, getattr(trec_optim, "Adagrad", None)):
        return "adagrad"
    # Any other optimizer: one copy of the table, by its name.
    name = "%s.%s" % (getattr(optimizer_class, "__module__", ""),
                      getattr(optimizer_class, "__qualname__", str(optimizer_class)))
    name = re.sub(r"[^A-Za-z0-9_.]", "_", name.strip("."))
    return name if re.match(r"[A-Za-z]", name) else "optimizer." + name


_PRECISION_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "fp8": 1}


def _shardlab_comm_sizes(forward, backward, table_size, pooled):
    # cost-model.md §4.8: ShardLab's codec registry for sharder.qcomm.
    if forward == "fp32" and backward == "fp32":
        return (table_size,) * 4
    fa, ba = _PRECISION_BYTES[forward], _PRECISION_BYTES[backward]
    if pooled:
        fr = 2 if forward == "fp8" else fa
        br = 2 if backward == "fp8" else ba
    else:
        fr = br = table_size
    return (fa, ba, fr, br)


def _dtype_size(dtype):
    return torch.tensor([], dtype=dtype).element_size()


def _torchrec_comm_sizes(sharder, table_size, pooled):
    # TorchRec's shard_estimators._extract_comm_data_type_size.
    sizes = [table_size] * 4
    registry = getattr(sharder, "qcomm_codecs_registry", None)
    if registry is None:
        return tuple(sizes), None
    dtypes = {}
    a2a = "POOLED_EMBEDDINGS_ALL_TO_ALL" if pooled else "SEQUENCE_EMBEDDINGS_ALL_TO_ALL"
    if a2a in registry:
        codecs = registry[a2a]
        sizes[0] = _dtype_size(codecs.forward.quantized_dtype)
        sizes[1] = _dtype_size(codecs.backward.quantized_dtype)
        dtypes = {"forward": codecs.forward.quantized_dtype,
                  "backward": codecs.backward.quantized_dtype}
    if pooled and "POOLED_EMBEDDINGS_REDUCE_SCATTER" in registry:
        codecs = registry["POOLED_EMBEDDINGS_REDUCE_SCATTER"]
        sizes[2] = _dtype_size(codecs.forward.quantized_dtype)
        sizes[3] = _dtype_size(codecs.backward.quantized_dtype)
    return tuple(sizes), dtypes


def _qcomm_section(sharder, tables, path):
    """sharder.qcomm reproducing the sharder's codec registry for every table, or None."""
    wanted = [(_torchrec_comm_sizes(sharder, size, pooled), size, pooled)
              for size, pooled in tables]
    dtypes = next((d for (_, d), _, _ in wanted if d), {})

    def guess(direction):
        d = dtypes.get(direction)
        return {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(d, "fp32")

    order = ["fp32", "fp16", "bf16", "int8", "fp8"]
    forwards = [guess("forward")] + order
    backwards = [guess("backward")] + order
    for forward in forwards:
        for backward in backwards:
            if all(_shardlab_comm_sizes(forward, backward, size, pooled) == sizes
                   for (sizes, _), size, pooled in wanted):
                if forward == "fp32" and backward == "fp32":
                    return None
                return {"forward": forward, "backward": backward}
    raise ValueError("%r: the qcomm codecs of %s (element sizes %s) are not a precision pair"
                     " ShardLab's sharder.qcomm can express"
                     % (path, _name(sharder), sorted({s for (s, _), _, _ in wanted})))


def _fused_params_section(sharder, path):
    fused = getattr(sharder, "fused_params", None) or {}
    if fused.get("multipass_prefetch_config") is not None:
        raise ValueError("%r: sharder fused_params multipass_prefetch_config is not modelled"
                         " by ShardLab" % path)
    out = {}
    if fused.get("cache_load_factor") is not None:
        out["cache_load_factor"] = float(fused["cache_load_factor"])
    if fused.get("prefetch_pipeline") is not None:
        out["prefetch_pipeline"] = bool(fused["prefetch_pipeline"])
    return out


# --- Constraints ----------------------------------------------------------------------

def _enum_name(value, enum_type, allowed, what):
    if isinstance(value, enum_type):
        name = value.name.lower()
    elif isinstance(value, str):
        name = value.lower()
    else:
        name = None
    if name not in allowed:
        raise ValueError("%s = %r: expected one of %s" % (what, value, ", ".join(allowed)))
    return name


def _cache_params(cache, what):
    if not dataclasses.is_dataclass(cache):
        raise ValueError("%s: expected TorchRec's CacheParams, got %s" % (what, _name(cache)))
    for f in dataclasses.fields(cache):
        value = getattr(cache, f.name)
        if f.name not in _CACHE_FIELDS and value is not None and not _is_default(value, f):
            raise ValueError("%s.%s = %r: not modelled by ShardLab" % (what, f.name, value))
    out = {}
    if cache.algorithm is not None:
        out["algorithm"] = _enum_name(cache.algorithm, CacheAlgorithm, ("lru", "lfu"),
                                      what + ".algorithm")
    for key in ("load_factor", "reserved_memory"):
        if getattr(cache, key) is not None:
            out[key] = float(getattr(cache, key))
    if cache.precision is not None:
        precision = getattr(cache.precision, "value", cache.precision)
        if str(precision).lower() not in _DATA_TYPES:
            raise ValueError("%s.precision = %s: expected one of %s"
                             % (what, precision, ", ".join(_DATA_TYPES)))
        out["precision"] = str(precision).lower()
    if cache.prefetch_pipeline is not None:
        out["prefetch_pipeline"] = bool(cache.prefetch_pipeline)
    return out


def _constraint_section(name, c):
    what = "constraints[%r]" % name
    if not isinstance(c, ParameterConstraints):
        raise ValueError("%s: expected TorchRec's ParameterConstraints, got %s" % (what, _name(c)))
    for f in dataclasses.fields(c):
        value = getattr(c, f.name)
        if f.name not in _CONSTRAINT_FIELDS and value is not None and not _is_default(value, f):
            raise ValueError("%s.%s = %r: not modelled by ShardLab" % (what, f.name, value))
    out = {}
    for key, allowed in (("sharding_types", _SHARDING_TYPES),
                         ("compute_kernels", _COMPUTE_KERNELS)):
        values = getattr(c, key)
        if values is None:
            continue
        names = []
        for v in values:
            v = getattr(v, "value", v)
            if v not in allowed:
                raise ValueError("%s.%s: %r is not one of %s"
                                 % (what, key, v, ", ".join(allowed)))
            names.append(v)
        out[key] = names
    if c.min_partition is not None:
        out["min_partition"] = int(c.min_partition)
    if c.pooling_factors is not None:
        out["pooling_factors"] = [float(x) for x in c.pooling_factors]
    if c.num_poolings is not None:
        out["num_poolings"] = [float(x) for x in c.num_poolings]
    if c.batch_sizes is not None:
        out["batch_sizes"] = [int(x) for x in c.batch_sizes]
    if c.is_weighted:
        out["is_weighted"] = True
    if c.cache_params is not None:
        out["cache_params"] = _cache_params(c.cache_params, what + ".cache_params")
    for key in ("enforce_hbm", "stochastic_rounding"):
        if getattr(c, key) is not None:
            out[key] = bool(getattr(c, key))
    if c.bounds_check_mode is not None:
        out["bounds_check_mode"] = _enum_name(c.bounds_check_mode, BoundsCheckMode,
                                              ("fatal", "warning", "ignore", "none"),
                                              what + ".bounds_check_mode")
    if c.feature_names is not None:
        out["feature_names"] = [str(x) for x in c.feature_names]
    kv = getattr(c, "key_value_params", None)  # TorchRec 2026-08
    if kv is not None:
        out["key_value_params"] = _key_value_params(kv, what + ".key_value_params")
    if getattr(c, "use_virtual_table", False):
        out["use_virtual_table"] = True
    return out


def _key_value_params(kv, what):
    if not dataclasses.is_dataclass(kv):
        raise ValueError("%s: expected TorchRec's KeyValueParams, got %s" % (what, _name(kv)))
    for f in dataclasses.fields(kv):
        value = getattr(kv, f.name)
        if f.name not in _KEY_VALUE_FIELDS and value is not None and not _is_default(value, f):
            raise ValueError("%s.%s = %r: not modelled by ShardLab" % (what, f.name, value))
    return {k: int(getattr(kv, k)) for k in _KEY_VALUE_FIELDS if getattr(kv, k) is not None}


# --- The dense size -------------------------------------------------------------------

def _bytes(tensor):
    return tensor.numel() * tensor.element_size()


def _dense_bytes(module, sharded_modules, multiplier):
    """(dense parameter bytes, dense buffer bytes, TorchRec's dense reservation with
    `multiplier`, as storage_reservations._get_dense_tensor_size computes it)."""
    def size(m):
        params = sum(_bytes(p) for p in m.parameters())
        buffers = sum(_bytes(b) for b in m.buffers())
        return params, buffers, round(sum(multiplier * _bytes(p) for p in m.parameters())
                                      + buffers)
    root_params, root_buffers, root_size = size(module)
    params, buffers, reserved = root_params, root_buffers, root_size
    for m in sharded_modules:
        p, b, s = size(m)
        params, buffers, reserved = params - p, buffers - b, reserved - s
    return params, buffers, reserved


# --- The scenario ---------------------------------------------------------------------

def _build(module, sharders, topology, batch_size, constraints, torchrec_version, planner):
    _check_version(torchrec_version)
    if topology is None:
        topology = _default_topology()
    batch_size = batch_size if batch_size else BATCH_SIZE
    constraints = constraints or {}
    inference = bool((planner or {}).get("is_inference"))
    modules = _modules_and_paths(module, _sharder_map(sharders), inference)
    if not modules:
        return None, {}
    tables, table_modules = [], {}
    optimizers = {}
    comm_tables = []
    for kind, path, child, sharder in modules:
        if inference:
            # Quantized: the configs' sizes (the weights are FBGEMM's byte rows), in the
            # module's order, which ShardLab regroups by data type as the module does; the
            # optimizer is not read in inference.
            pairs = _quant_tables(path, child, sharder)
        else:
            configs = {c.name: c for c in (child.embedding_configs() if kind == "ec"
                                           else child.embedding_bag_configs())}
            pairs = [(configs[name], param)
                     for name, param in sharder.shardable_parameters(child).items()]
        for config, param in pairs:
            name = config.name
            if name in table_modules:
                raise ValueError("table %r is in %r and %r: a scenario's table names are unique"
                                 % (name, table_modules[name], path))
            table_modules[name] = path
            data_type = _data_type(config, path)
            if inference:
                rows, dim = int(config.num_embeddings), int(config.embedding_dim)
            else:
                if param.element_size() != (4 if data_type == "fp32" else 2):
                    raise ValueError("%r: table %r is %s but its weights are %s: ShardLab"
                                     " stores fp32 tables in fp32 and others in fp16, as"
                                     " TorchRec builds them" % (path, name, data_type,
                                                                param.dtype))
                if param.dim() != 2:
                    raise ValueError("%r: table %r: weights of shape %s"
                                     % (path, name, list(param.shape)))
                rows, dim = int(param.shape[0]), int(param.shape[1])
            table = {"name": name, "num_embeddings": rows, "embedding_dim": dim,
                     "feature_names": list(config.feature_names or [name]),
                     "data_type": data_type}
            if kind == "weighted_ebc":
                table["is_weighted"] = True
            if getattr(config, "use_virtual_table", False):  # TorchRec 2026-08
                table["use_virtual_table"] = True
                if getattr(config, "total_num_buckets", None) is not None:
                    table["total_num_buckets"] = int(config.total_num_buckets)
            tables.append((kind, table))
            optimizers[name] = (None if inference else
                                _optimizer_name(_optimizer(param, torchrec_version)))
            comm_tables.append((param.element_size(), kind != "ec"))
    if not tables:
        return None, {}  # nothing to shard
    # ShardLab builds ebc, weighted_ebc (or ec) from the tables, each in file order.
    order = {"ebc": 0, "weighted_ebc": 1, "ec": 2}
    tables = [t for _, t in sorted(tables, key=lambda kt: order[kt[0]])]

    scenario = {"name": type(module).__name__,
                "topology": _topology_section(topology, torchrec_version),
                "batch_size": int(batch_size)}
    kind = "embedding_collection" if modules[0][0] == "ec" else "embedding_bag_collection"

    planner = dict(planner or {})
    planner["torchrec_version"] = torchrec_version
    reservation = dict(planner.get("storage_reservation") or {"kind": "heuristical"})
    params, buffers, reserved = _dense_bytes(
        module, [m for _, _, m, _ in modules],
        {"heuristical": reservation.get("parameter_multiplier", 6.0),
         "inference": 1}.get(reservation["kind"], 0))
    scenario["module"] = {"kind": kind, "dense_param_bytes": int(params)}
    # ShardLab reserves multiplier x dense_param_bytes; where TorchRec's own sum differs
    # (buffers, which it does not multiply, or a fractional multiplier), give its number.
    multiplier = reservation.get("parameter_multiplier", 6.0)
    if reservation["kind"] in ("heuristical", "inference") and \
            not reservation.get("dense_tensor_estimate") and reserved > 0 and \
            (buffers or (reservation["kind"] == "heuristical" and multiplier != int(multiplier))):
        reservation["dense_tensor_estimate"] = int(reserved)
        planner["storage_reservation"] = reservation
    scenario["tables"] = tables

    section = {}
    for name in table_modules:
        if name in constraints and constraints[name] is not None:
            section[name] = _constraint_section(name, constraints[name])
    ignored = sorted(set(constraints) - set(table_modules))
    if ignored:
        warnings.warn("constraints for %s: no such table in the model; TorchRec ignores them"
                      " too" % ", ".join(repr(n) for n in ignored), stacklevel=3)
    if section:
        scenario["constraints"] = section

    sharder = modules[0][3]
    sharder_section = {}
    # Optimizers that give the same state (storage_estimator's multiplier) plan alike.
    state = {None: "none", "sgd": "none", "adam": "adam", "rowwise_adagrad": "rowwise_adagrad"}
    by_state = {}
    for table, opt in optimizers.items():
        by_state.setdefault(state.get(opt, "one copy"), {}).setdefault(opt, table)
    if len(by_state) > 1:
        raise ValueError("tables with optimizers that keep different state (%s): a scenario has"
                         " one optimizer" % ", ".join("%r: %s" % (t, o or "none")
                                                      for named in by_state.values()
                                                      for o, t in named.items()))
    [named] = by_state.values()
    optimizer = next((o for o in named if o), None)
    if optimizer:
        sharder_section["optimizer"] = optimizer
    qcomm = _qcomm_section(sharder, comm_tables, modules[0][1])
    if qcomm:
        sharder_section["qcomm"] = qcomm
    fused = _fused_params_section(sharder, modules[0][1])
    if fused:
        sharder_section["fused_params"] = fused
    if sharder_section:
        scenario["sharder"] = sharder_section
    scenario["planner"] = planner
    try:
        shardlab.validate(scenario)
    except shardlab.InvalidScenarioError as e:
        raise ValueError("ShardLab cannot express this model: %s" % e) from None
    return scenario, {kind: path for kind, path, _, _ in modules}


def scenario_from_torchrec(module, sharders=None, topology=None, batch_size=None,
                           constraints=None, torchrec_version="2026-08", *, planner=None):
    """The scenario (docs/scenario-format.md) for planning `module` as TorchRec's
    EmbeddingShardingPlanner(topology, batch_size, constraints=constraints) plans it with
    `sharders` (TorchRec's default sharders when None).

    The model's EmbeddingBagCollections (one unweighted, one weighted) or its
    EmbeddingCollection become the scenario's modules and tables; the Topology its topology
    section (None: the one TorchRec builds from torch.distributed); the ParameterConstraints
    the constraints; the optimizer TorchRec's storage estimator reads from the tables'
    weights, the sharder's qcomm codecs and its fused params (cache_load_factor,
    prefetch_pipeline) the sharder section; the model's other parameters
    module.dense_param_bytes. `planner` is merged into the scenario's planner section.
    module_paths_from_torchrec(module, sharders) gives the model's paths of the modules.
    Raises ValueError naming what ShardLab cannot express.
    """
    scenario, _ = _build(module, sharders, topology, batch_size, constraints,
                         torchrec_version, planner)
    if scenario is None:
        raise ValueError("the model has no EmbeddingBagCollection or EmbeddingCollection that"
                         " the sharders shard")
    return scenario


# --- Plans as TorchRec objects --------------------------------------------------------

def _cache_params_object(c):
    if c is None:
        return None
    return CacheParams(
        algorithm=CacheAlgorithm[c["algorithm"].upper()] if c.get("algorithm") else None,
        load_factor=c.get("load_factor"), reserved_memory=c.get("reserved_memory"),
        precision=DataType[c["precision"].upper()] if c.get("precision") else None,
        prefetch_pipeline=c.get("prefetch_pipeline"))


def _placement(text):
    """ShardMetadata's placement for "rank:R/cuda:L", "rank:R/cpu", ...: the string where
    this torch parses it, else what TorchRec's own placement() builds (torch < 2.1 has no
    "mtia" device; TorchRec's placement() is where a bootstrap can supply one)."""
    try:
        torch.device(text.split("/", 1)[1])
        return text
    except (IndexError, RuntimeError):
        pass
    from torchrec.distributed import sharding_plan
    match = re.fullmatch(r"rank:(\d+)/([a-z]+)(?::(\d+))?", text)
    if not match:
        raise ValueError("placement %r: expected rank:R/<device>:L or rank:R/cpu" % text)
    rank, device = int(match.group(1)), match.group(2)
    local = int(match.group(3) or 0)
    # A local world size that puts rank R on local device L.
    local_size = rank - local if rank > local else rank + 1
    return sharding_plan.placement(device, rank, local_size)


def _parameter_sharding(p):
    spec = None
    if p["sharding_spec"] is not None:
        spec = EnumerableShardingSpec([
            ShardMetadata(shard_offsets=list(s["shard_offsets"]),
                          shard_sizes=list(s["shard_sizes"]), placement=_placement(s["placement"]))
            for s in p["sharding_spec"]])
    bounds = p.get("bounds_check_mode")
    if isinstance(bounds, str):
        bounds = BoundsCheckMode[bounds.upper()]
    cache = p.get("cache_params")
    return ParameterSharding(
        sharding_type=p["sharding_type"], compute_kernel=p["compute_kernel"],
        ranks=list(p["ranks"]), sharding_spec=spec,
        cache_params=cache if isinstance(cache, CacheParams) else _cache_params_object(cache),
        enforce_hbm=p.get("enforce_hbm"), stochastic_rounding=p.get("stochastic_rounding"),
        bounds_check_mode=bounds)


def _sharding_plan(tables_by_module, module_paths):
    module_paths = module_paths or {}
    plan, source = {}, {}
    for module, tables in tables_by_module.items():
        path = module_paths.get(module, module)
        if path in source:
            raise ValueError("module_paths: %r and %r both become %r"
                             % (source[path], module, path))
        source[path] = module
        plan[path] = EmbeddingModuleShardingPlan(
            {table: _parameter_sharding(p) for table, p in tables.items()})
    return ShardingPlan(plan)


def plan_to_sharding_plan(plan_dict, module_paths=None):
    """TorchRec's ShardingPlan for a ShardLab plan in either shape (plan_dict_tables):
    an EmbeddingModuleShardingPlan per module of ParameterShardings, with
    EnumerableShardingSpecs of ShardMetadata placed as the plan says ("rank:R/cuda:L").
    `module_paths` renames the plan's modules to the model's, e.g.
    {"ebc": "sparse_arch.embedding_bag_collection"}; others keep the plan's path."""
    return _sharding_plan(plan_dict_tables(plan_dict), module_paths)


def load_plan(path, module_paths=None):
    """plan_to_sharding_plan of the plan file at `path` (`shardlab plan -o`, in either
    format)."""
    with open(os.fspath(path), encoding="utf-8") as f:
        return plan_to_sharding_plan(json.load(f), module_paths)


# --- The planner ----------------------------------------------------------------------

def _proposer_section(p):
    if type(p) is GreedyProposer:
        out = {"kind": "greedy", "use_depth": bool(p._use_depth)}
        if p._threshold is not None:
            out["threshold"] = int(p._threshold)
        return out
    if type(p) is UniformProposer:
        return {"kind": "uniform", "use_depth": bool(p._use_depth)}
    if type(p) is GridSearchProposer:
        return {"kind": "grid_search", "max_proposals": int(p._max_proposals)}
    if type(p) is EmbeddingOffloadScaleupProposer:
        return {"kind": "embedding_offload_scaleup",
                "use_depth": bool(getattr(p, "use_depth", getattr(p, "_use_depth", True)))}
    if _DynamicProgrammingProposer is not None and type(p) is _DynamicProgrammingProposer:
        return {"kind": "dynamic_programming",
                "hbm_bins_per_device": int(p._hbm_bins_per_device)}
    raise ValueError("proposer %s: ShardLab implements TorchRec's GreedyProposer,"
                     " UniformProposer, GridSearchProposer, EmbeddingOffloadScaleupProposer and"
                     " DynamicProgrammingProposer" % _name(p))


def _partitioner_section(p):
    if type(p) is GreedyPerfPartitioner:
        return {"kind": "greedy_perf", "sort_by": getattr(p._sort_by, "value", p._sort_by),
                "balance_modules": bool(p._balance_modules)}
    if type(p) is MemoryBalancedPartitioner:
        return {"kind": "memory_balanced", "max_search_count": int(p._max_search_count),
                "tolerance": float(p._tolerance), "balance_modules": bool(p._balance_modules)}
    raise ValueError("partitioner %s: ShardLab implements TorchRec's GreedyPerfPartitioner"
                     " and MemoryBalancedPartitioner" % _name(p))


def _reservation_section(r):
    if type(r) is HeuristicalStorageReservation:
        out = {"kind": "heuristical", "percentage": float(r._percentage),
               "parameter_multiplier": float(r._parameter_multiplier)}
    elif type(r) is FixedPercentageStorageReservation:
        return {"kind": "fixed_percentage", "percentage": float(r._percentage)}
    elif type(r) is InferenceStorageReservation:
        out = {"kind": "inference", "percentage": float(r._percentage)}
    else:
        raise ValueError("storage_reservation %s: ShardLab implements TorchRec's"
                         " HeuristicalStorageReservation, FixedPercentageStorageReservation"
                         " and InferenceStorageReservation" % _name(r))
    if r._dense_tensor_estimate:
        out["dense_tensor_estimate"] = int(r._dense_tensor_estimate)
    return out


def _same_constraints(a, b):
    return a is b or (a or None) == (b or None)


def _inference_enumerator(e, topology, batch_size, constraints, torchrec_version):
    """planner.is_inference for TorchRec's inference enumerator: an EmbeddingEnumerator
    whose estimators are exactly EmbeddingPerfEstimator(is_inference=True) and
    EmbeddingStorageEstimator (is_inference=True where the version has it), built on the
    planner's topology, batch size and constraints. Anything else raises ValueError."""
    what = "enumerator %s" % _name(e)
    expected = ("ShardLab maps TorchRec's EmbeddingEnumerator(estimator=[EmbeddingPerfEstimator("
                "is_inference=True), EmbeddingStorageEstimator(...)]) to is_inference and"
                " otherwise enumerates as TorchRec's default EmbeddingEnumerator; pass"
                " enumerator=None")
    if type(e) is not EmbeddingEnumerator:
        raise ValueError("%s: %s" % (what, expected))
    estimators = getattr(e, "_estimators", None)
    estimators = list(estimators) if isinstance(estimators, (list, tuple)) else [estimators]
    perf = [x for x in estimators if type(x) is EmbeddingPerfEstimator]
    storage = [x for x in estimators if type(x) is EmbeddingStorageEstimator]
    others = [x for x in estimators if type(x) not in (EmbeddingPerfEstimator,
                                                       EmbeddingStorageEstimator)]
    if others or len(perf) != 1 or len(storage) != 1:
        raise ValueError("%s with estimators %s: %s"
                         % (what, ", ".join(_name(x) for x in estimators), expected))
    perf, storage = perf[0], storage[0]
    if not getattr(perf, "_is_inference", False):
        raise ValueError("%s: its EmbeddingPerfEstimator has is_inference=False: %s"
                         % (what, expected))
    # TorchRec 2026-08's storage estimator settings: only the inference defaults.
    if not getattr(storage, "_is_inference", True):
        raise ValueError("%s: its EmbeddingStorageEstimator has is_inference=False: %s"
                         % (what, expected))
    pipeline = getattr(storage, "_pipeline_type", None)
    if pipeline is not None and getattr(pipeline, "name", pipeline) not in ("NONE", "none"):
        raise ValueError("%s: EmbeddingStorageEstimator pipeline_type %r is not modelled by"
                         " ShardLab" % (what, pipeline))
    if getattr(storage, "_run_embedding_at_peak_memory", False):
        raise ValueError("%s: EmbeddingStorageEstimator run_embedding_at_peak_memory is not"
                         " modelled by ShardLab" % what)
    # TorchRec plans with the enumerator's own topology, batch size and constraints.
    if (e._world_size, e._local_world_size, e._compute_device) != (
            topology.world_size, topology.local_world_size, topology.compute_device):
        raise ValueError("%s: built for another topology (world_size %d, local_world_size %d,"
                         " %s) than the planner's" % (what, e._world_size,
                                                      e._local_world_size, e._compute_device))
    if e._batch_size != batch_size:
        raise ValueError("%s: batch_size %r, the planner's is %r"
                         % (what, e._batch_size, batch_size))
    topo = _topology_section(topology, torchrec_version)
    for name, obj in (("enumerator", e), ("EmbeddingPerfEstimator", perf),
                      ("EmbeddingStorageEstimator", storage)):
        if not _same_constraints(getattr(obj, "_constraints", None), constraints):
            raise ValueError("%s: its %s has other constraints than the planner's"
                             % (what, name))
        other = getattr(obj, "_topology", None)
        if other is not None and other is not topology and \
                _topology_section(other, torchrec_version) != topo:
            raise ValueError("%s: its %s has another topology than the planner's"
                             % (what, name))
    return True


def _global_rank(pg, rank):
    if pg is dist.GroupMember.WORLD:
        return rank
    get = getattr(dist, "get_global_rank", None) or dist.distributed_c10d._get_global_rank
    return get(pg, rank)


class ShardLabPlanner:
    """TorchRec's EmbeddingShardingPlanner, planned by ShardLab.

    Takes EmbeddingShardingPlanner's arguments. The planner components ShardLab
    implements map to the scenario's planner section: HeuristicalStorageReservation,
    FixedPercentageStorageReservation, InferenceStorageReservation; GreedyProposer,
    UniformProposer, GridSearchProposer, EmbeddingOffloadScaleupProposer (one or a list);
    GreedyPerfPartitioner, MemoryBalancedPartitioner; NoopPerfModel (TorchRec's default).
    TorchRec's inference enumerator, an EmbeddingEnumerator whose estimators are
    EmbeddingPerfEstimator(is_inference=True) and EmbeddingStorageEstimator, maps to
    planner.is_inference (the model's quantized modules, with the quant sharders).
    Any other component (another enumerator, a custom proposer, a Stats other than
    EmbeddingStats or NoopEmbeddingStats, ...) raises ValueError naming it. With stats=None
    (TorchRec's default) or EmbeddingStats, the stats table ShardLab computes (TorchRec's,
    line for line) is logged to TorchRec's logger "torchrec.distributed.planner.stats" as
    TorchRec logs it, after a failure too, but for two things: the run time, and the FQN
    column, which names tables by ShardLab's module paths (ebc, weighted_ebc, ec) where the
    model keeps its collections elsewhere; `debug` is accepted and ignored. `torchrec_version` picks the TorchRec planner
    ShardLab reproduces: "2026-08" (376cac6a) or "2024-02" (fe1c2824).

    After plan(), `last_scenario` and `last_plan` hold the scenario and ShardLab's plan.
    """

    def __init__(self, topology=None, batch_size=None, enumerator=None,
                 storage_reservation=None, proposer=None, partitioner=None,
                 performance_model=None, stats=None, constraints=None, debug=True,
                 torchrec_version="2026-08"):
        _check_version(torchrec_version)
        if performance_model is not None and type(performance_model) is not NoopPerfModel:
            raise ValueError("performance_model %s: ShardLab rates plans as TorchRec's"
                             " NoopPerfModel" % _name(performance_model))
        # TorchRec's default is one EmbeddingStats, which logs the stats table; ShardLab
        # logs the same table to the same logger. Other Stats classes are TorchRec's own.
        stats_list = [EmbeddingStats()] if stats is None else (
            stats if isinstance(stats, list) else [stats])
        for s in stats_list:
            if type(s) not in (EmbeddingStats, NoopEmbeddingStats):
                raise ValueError("stats %s: ShardLab logs TorchRec's EmbeddingStats table, or"
                                 " nothing with NoopEmbeddingStats" % _name(s))
        self._log_stats = sum(type(s) is EmbeddingStats for s in stats_list)
        planner = {}
        if proposer:
            planner["proposers"] = [_proposer_section(p) for p in
                                    (proposer if isinstance(proposer, list) else [proposer])]
        if partitioner is not None:
            planner["partitioner"] = _partitioner_section(partitioner)
        if storage_reservation is not None:
            planner["storage_reservation"] = _reservation_section(storage_reservation)
        self._topology = topology if topology is not None else _default_topology()
        self._batch_size = batch_size if batch_size else BATCH_SIZE
        if enumerator is not None:
            planner["is_inference"] = _inference_enumerator(
                enumerator, self._topology, self._batch_size, constraints, torchrec_version)
        self._constraints = constraints
        self._planner = planner
        self._debug = debug
        self._torchrec_version = torchrec_version
        self.last_scenario = None
        self.last_plan = None

    def plan(self, module, sharders=None):
        """The ShardingPlan ShardLab computes for `module` (paths and table names as in
        the model). A plan that cannot be found raises TorchRec's PlannerError with
        ShardLab's message and error type (RuntimeError where TorchRec raises one: a
        table left without options)."""
        if not isinstance(module, nn.Module):
            raise ValueError("module: expected a torch.nn.Module, got " + type(module).__name__)
        scenario, paths = _build(module, sharders, self._topology, self._batch_size,
                                 self._constraints, self._torchrec_version, self._planner)
        self.last_scenario = scenario
        if scenario is None:
            self.last_plan = None
            return ShardingPlan({})  # TorchRec's answer for no shardable parameters
        result, error_type, message, stats = shardlab._plan_with_stats(scenario)
        # TorchRec's EmbeddingStats logs its table row by row, after a failure too.
        stats_logger = logging.getLogger("torchrec.distributed.planner.stats")
        for _ in range(self._log_stats):
            for row in stats:
                stats_logger.info(row)
        if result is None:
            try:
                planner_error = PlannerErrorType(error_type)
            except ValueError:
                raise RuntimeError(message) from None
            raise PlannerError(message=message, error_type=planner_error) from None
        self.last_plan = result
        tables = plan_dict_tables(result)
        # The pass-through fields come from the constraints, as TorchRec copies them.
        constraints = self._constraints or {}
        for module_tables in tables.values():
            for name, p in module_tables.items():
                c = constraints.get(name)
                for key in ("cache_params", "enforce_hbm", "stochastic_rounding",
                            "bounds_check_mode"):
                    p[key] = getattr(c, key) if c is not None else None
        return _sharding_plan(tables, paths)

    def collective_plan(self, module, sharders=None, pg=None):
        """plan() on rank 0 of `pg` (the default group when None), broadcast to every
        rank with torch.distributed.broadcast_object_list, as TorchRec's planner does. A
        failure on rank 0 is raised on every rank."""
        if pg is None:
            pg = dist.GroupMember.WORLD
        assert pg is not None, "Process group is not initialized"
        if sharders is None:
            sharders = get_default_sharders()
        if pg.rank() == 0:
            try:
                result = ("ok", self.plan(module, sharders))
            except Exception as e:  # every rank raises it
                try:
                    pickle.dumps(e)
                    result = ("error", e)
                except Exception:
                    result = ("error", RuntimeError("%s: %s" % (type(e).__name__, e)))
            objects = [result]
        else:
            objects = [None]
        if pg.size() > 1:
            dist.broadcast_object_list(objects, _global_rank(pg, 0), group=pg)
        status, value = objects[0]
        if status == "error":
            raise value
        return value
