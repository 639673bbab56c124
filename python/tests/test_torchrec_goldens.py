"""ShardLabPlanner against TorchRec's own planner on every golden scenario.

For each golden scenario (tests/golden/data, plus the larger ones of the shared reference
set, ../shared/golden, where it is present) the test builds the TorchRec model and planner
inputs the scenario describes, as the goldens' oracle built them (tests/golden/data/README.md,
scenario-format.md "Modules built from a scenario"): a plain root module holding the dense
parameter (a uint8 tensor of dense_param_bytes elements) and the children `ebc` and
`weighted_ebc` (or `ec`) on device "meta", TorchRec's Topology, ParameterConstraints, the
sharder with the scenario's fused params and qcomm codecs, the optimizer class attached to
the tables' weights (`_optimizer_class`, what fe1c2824 reads) and the planner components.
It plans them with TorchRec's EmbeddingShardingPlanner at fe1c2824 and with
ShardLabPlanner(torchrec_version="2024-02") and asserts the two ShardingPlans are equal,
shard for shard and ParameterSharding for ParameterSharding, or that both fail with the same
exception (and PlannerErrorType). TorchRec's plan is also checked against the golden file,
which shows that the model built here is the one the golden was made from. For the one
golden whose TorchRec plan() takes minutes (RECORDED_ONLY), ShardLab's plan is compared with
the plan TorchRec recorded in the golden file instead of a fresh run.

Inference scenarios are planned by TorchRec with quantized modules, the quant sharders and
an enumerator whose perf estimator is built with is_inference=True; ShardLabPlanner maps
that enumerator to planner.is_inference and plans the quantized modules, and the test
compares the plans as for the others.

Needs TorchRec (see test_torchrec.py, whose detection it uses); skips otherwise.
"""

import fractions
import glob
import json
import logging
import os
import re
import unittest
import warnings

import shardlab
from test_torchrec import ADAPTER_MODULE, NO_TORCHREC, SOURCE, shards

BUNDLED = os.path.join(SOURCE, "tests", "golden", "data")
SHARED = os.path.join(
    os.environ.get("SHARDLAB_SHARED_DIR") or os.path.join(SOURCE, "..", "shared"), "golden")

# Goldens whose TorchRec plan() takes too long to rerun here: ShardLab's plan is compared
# with the plan TorchRec recorded in the golden file instead (its own output at fe1c2824).
RECORDED_ONLY = {
    "large_synthetic_512_tables_ws64_8x8":
        "512 tables on 64 ranks: TorchRec's plan() alone takes about 290 s (timings.json)",
}
# Scenarios TorchRec cannot build a model for (a build-stage error in the golden): there is
# no model to plan. The test checks that TorchRec's constructor raises the golden's error.
UNBUILDABLE = {
    "fail_sequence_ec_mixed_dims":
        "TorchRec's EmbeddingCollection refuses tables of different dims (ValueError at build)",
}


def golden_scenarios():
    """[(name, scenario path, golden path)]: the bundled goldens, then those only in the
    shared reference set."""
    out, seen = [], set()
    for folder in (BUNDLED, SHARED):
        for path in sorted(glob.glob(os.path.join(folder, "*.golden.json"))):
            name = os.path.basename(path)[:-len(".golden.json")]
            scenario = os.path.join(folder, name + ".json")
            if name not in seen and os.path.isfile(scenario):
                seen.add(name)
                out.append((name, scenario, path))
    return out


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# --- Scenario values (scenario-format.md: sizes and bandwidths with units) ---------------

_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
          "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
_QUANTITY = re.compile(r"\s*(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*(B|[KMGT]i?B)(/s)?\s*")


def size(value):
    if isinstance(value, str):
        m = _QUANTITY.fullmatch(value)
        assert m and not m.group(3), value
        exact = fractions.Fraction(m.group(1)) * _UNITS[m.group(2)]
        assert exact.denominator == 1, value
        return int(exact)
    return int(value)


def bandwidth(value):
    if isinstance(value, str):
        m = _QUANTITY.fullmatch(value)
        assert m and m.group(3), value
        # Exact value x unit / 1000, rounded once (int / int division is correctly rounded).
        exact = fractions.Fraction(m.group(1)) * _UNITS[m.group(2)] / 1000
        return exact.numerator / exact.denominator
    return float(value)


# --- TorchRec's inputs for a scenario ----------------------------------------------------

def torchrec_inputs(scenario):
    """(model, sharders, planner kwargs, inference) as the goldens' oracle built them."""
    import torch
    import torchrec.optim as trec_optim
    from torchrec.distributed.embedding import EmbeddingCollectionSharder
    from torchrec.distributed.embeddingbag import EmbeddingBagCollectionSharder
    from torchrec.distributed.fbgemm_qcomm_codec import (
        CommType, QCommsConfig, get_qcomm_codecs_registry)
    from torchrec.distributed.planner import ParameterConstraints, Topology
    from torchrec.distributed.planner.enumerators import EmbeddingEnumerator
    from torchrec.distributed.planner.partitioners import (
        GreedyPerfPartitioner, MemoryBalancedPartitioner, SortBy)
    from torchrec.distributed.planner.proposers import (
        EmbeddingOffloadScaleupProposer, GreedyProposer, GridSearchProposer, UniformProposer)
    from torchrec.distributed.planner.shard_estimators import (
        EmbeddingPerfEstimator, EmbeddingStorageEstimator)
    from torchrec.distributed.planner.storage_reservations import (
        FixedPercentageStorageReservation, HeuristicalStorageReservation,
        InferenceStorageReservation)
    from torchrec.distributed.quant_embedding import QuantEmbeddingCollectionSharder
    from torchrec.distributed.quant_embeddingbag import QuantEmbeddingBagCollectionSharder
    from torchrec.distributed.types import BoundsCheckMode, CacheAlgorithm, CacheParams
    from torchrec.modules.embedding_configs import DataType, EmbeddingBagConfig, EmbeddingConfig
    from torchrec.modules.embedding_modules import EmbeddingBagCollection, EmbeddingCollection
    from torchrec.quant import embedding_modules as quant

    meta = torch.device("meta")
    planner = scenario.get("planner") or {}
    inference = bool(planner.get("is_inference"))

    topo = scenario["topology"]
    args = {"world_size": int(topo["world_size"]),
            "compute_device": topo.get("compute_device", "cuda"),
            "local_world_size": int(topo.get("local_world_size", topo["world_size"]))}
    for key in ("hbm_cap", "ddr_cap"):
        if key in topo:
            args[key] = size(topo[key])
    for key in ("hbm_mem_bw", "ddr_mem_bw", "intra_host_bw", "inter_host_bw"):
        if key in topo:
            args[key] = bandwidth(topo[key])
    if "bwd_compute_multiplier" in topo:
        args["bwd_compute_multiplier"] = float(topo["bwd_compute_multiplier"])
    topology = Topology(**args)
    batch_size = int(scenario.get("batch_size", 512))

    # The model: the dense parameter first, then ebc and weighted_ebc (or ec).
    module = scenario.get("module") or {}
    model = torch.nn.Module()
    dense = size(module.get("dense_param_bytes", 0))
    if dense:
        model.dense = torch.nn.Parameter(torch.empty(dense, dtype=torch.uint8, device=meta),
                                         requires_grad=False)
    tables = scenario["tables"]
    if module.get("kind", "embedding_bag_collection") == "embedding_collection":
        configs = [EmbeddingConfig(name=t["name"], num_embeddings=t["num_embeddings"],
                                   embedding_dim=t["embedding_dim"],
                                   feature_names=list(t["feature_names"]),
                                   data_type=DataType[t.get("data_type", "fp32").upper()])
                   for t in tables]
        model.ec = (quant.EmbeddingCollection(configs, device=meta) if inference
                    else EmbeddingCollection(tables=configs, device=meta))
        sharder_class = (QuantEmbeddingCollectionSharder if inference
                         else EmbeddingCollectionSharder)
    else:
        for path, weighted in (("ebc", False), ("weighted_ebc", True)):
            configs = [EmbeddingBagConfig(name=t["name"], num_embeddings=t["num_embeddings"],
                                          embedding_dim=t["embedding_dim"],
                                          feature_names=list(t["feature_names"]),
                                          data_type=DataType[t.get("data_type", "fp32").upper()])
                       for t in tables if bool(t.get("is_weighted")) == weighted]
            if configs:
                setattr(model, path,
                        quant.EmbeddingBagCollection(configs, is_weighted=weighted, device=meta)
                        if inference else
                        EmbeddingBagCollection(tables=configs, is_weighted=weighted, device=meta))
        sharder_class = (QuantEmbeddingBagCollectionSharder if inference
                         else EmbeddingBagCollectionSharder)

    # The sharder, and the optimizer on the tables' weights (fe1c2824's _optimizer_class).
    sharder_section = scenario.get("sharder") or {}
    sharder_args = {}
    fused = {k: v for k, v in (sharder_section.get("fused_params") or {}).items()
             if v is not None}
    if fused:
        sharder_args["fused_params"] = fused
    qcomm = sharder_section.get("qcomm") or {}
    forward, backward = qcomm.get("forward", "fp32"), qcomm.get("backward", "fp32")
    if not inference and (forward, backward) != ("fp32", "fp32"):
        sharder_args["qcomm_codecs_registry"] = get_qcomm_codecs_registry(QCommsConfig(
            forward_precision=CommType[forward.upper()],
            backward_precision=CommType[backward.upper()]))
    sharders = [sharder_class(**sharder_args)]
    optimizer = {"none": None, "sgd": torch.optim.SGD, "adam": torch.optim.Adam,
                 "adagrad": torch.optim.Adagrad, "rowwise_adagrad": trec_optim.RowWiseAdagrad
                 }[sharder_section.get("optimizer", "none")]
    if optimizer is not None and not inference:
        for name, child in model.named_children():
            for p in child.parameters():
                p._optimizer_class = optimizer

    # Constraints.
    constraints = {}
    for name, c in (scenario.get("constraints") or {}).items():
        c = dict(c)
        if "cache_params" in c:
            cache = dict(c["cache_params"])
            if "algorithm" in cache:
                cache["algorithm"] = CacheAlgorithm[cache["algorithm"].upper()]
            if "precision" in cache:
                cache["precision"] = DataType[cache["precision"].upper()]
            c["cache_params"] = CacheParams(**cache)
        if "bounds_check_mode" in c:
            c["bounds_check_mode"] = BoundsCheckMode[c["bounds_check_mode"].upper()]
        constraints[name] = ParameterConstraints(**c)

    kwargs = {"topology": topology, "batch_size": batch_size,
              "constraints": constraints or None}

    # The planner's components (None: TorchRec's defaults, which ShardLab's match).
    def proposer(p):
        p = {"kind": p} if isinstance(p, str) else dict(p)
        kind = p.pop("kind")
        if kind == "greedy" and p.get("threshold") == 0:
            p["threshold"] = None
        return {"greedy": GreedyProposer, "uniform": UniformProposer,
                "grid_search": GridSearchProposer,
                "embedding_offload_scaleup": EmbeddingOffloadScaleupProposer}[kind](**p)

    if planner.get("proposers"):
        kwargs["proposer"] = [proposer(p) for p in planner["proposers"]]
    partitioner = planner.get("partitioner")
    if partitioner is not None:
        partitioner = {"kind": partitioner} if isinstance(partitioner, str) else dict(partitioner)
        kind = partitioner.pop("kind")
        if "sort_by" in partitioner:
            partitioner["sort_by"] = SortBy(partitioner["sort_by"])
        kwargs["partitioner"] = {"greedy_perf": GreedyPerfPartitioner,
                                 "memory_balanced": MemoryBalancedPartitioner}[kind](**partitioner)
    reservation = planner.get("storage_reservation")
    if reservation is not None:
        reservation = dict(reservation)
        kind = reservation.pop("kind")
        reservation.setdefault("percentage", 0.15)
        if "dense_tensor_estimate" in reservation:
            estimate = reservation.pop("dense_tensor_estimate")
            if estimate is not None:
                reservation["dense_tensor_estimate"] = size(estimate)
        kwargs["storage_reservation"] = {
            "heuristical": HeuristicalStorageReservation,
            "fixed_percentage": FixedPercentageStorageReservation,
            "inference": InferenceStorageReservation}[kind](**reservation)
    if inference:
        # TorchRec plans inference with an enumerator whose perf estimator knows it.
        kwargs["enumerator"] = EmbeddingEnumerator(
            topology=topology, batch_size=batch_size, constraints=kwargs["constraints"],
            estimator=[EmbeddingPerfEstimator(topology=topology,
                                              constraints=kwargs["constraints"],
                                              is_inference=True),
                       EmbeddingStorageEstimator(topology=topology,
                                                 constraints=kwargs["constraints"])])
    return model, sharders, kwargs, inference


def golden_shards(plan):
    """shards() of the golden file's plan."""
    out = {}
    for table, t in plan["tables"].items():
        spec = None if t["sharding_type"] == "data_parallel" else [
            (s["offset"], s["size"], s["placement"]) for s in t["shards"]]
        out.setdefault(t["module"], {})[table] = (t["sharding_type"], t["compute_kernel"],
                                                  t["ranks"], spec)
    return out


def same_options(test, scenario, scenario_path):
    """The adapter's scenario gives ShardLab the same sharding options, estimates included,
    as the golden's own scenario file: the model, constraints, sharder and topology were
    read back field for field, not only closely enough to give the same plan."""
    def options(s):
        try:
            return shardlab.options(s, torchrec_version="2024-02")["options"]
        except shardlab.Error as e:
            return type(e).__name__
    ours, expected = options(scenario), options(scenario_path)
    if isinstance(ours, str) or isinstance(expected, str):
        test.assertEqual(ours, expected)
        return
    # The first difference only: a diff of thousands of options takes minutes to print.
    for i, (a, b) in enumerate(zip(ours, expected)):
        if a != b:
            test.fail("option %d differs from the golden scenario's:\n  adapter: %s\n  golden:  %s"
                      % (i, json.dumps(a)[:1500], json.dumps(b)[:1500]))
    test.assertEqual(len(ours), len(expected), "number of options")


def outcome(plan_call):
    """("plan", ShardingPlan) or ("error", exception)."""
    try:
        return "plan", plan_call()
    except Exception as e:  # compared below: same type, same PlannerErrorType
        return "error", e


# --- The tests --------------------------------------------------------------------------

@unittest.skipUnless(ADAPTER_MODULE, "needs TorchRec: %s" % NO_TORCHREC)
class GoldenModelsTest(unittest.TestCase):
    maxDiff = 4000

    def setUp(self):
        # TorchRec's enumerator warns about every constraint that filters all options out.
        planner_logger = logging.getLogger("torchrec.distributed.planner")
        self.addCleanup(planner_logger.setLevel, planner_logger.level)
        planner_logger.setLevel(logging.ERROR)
        # ... through logger.warn, which this Python deprecates.
        caught = warnings.catch_warnings()
        caught.__enter__()
        self.addCleanup(caught.__exit__, None, None, None)
        warnings.filterwarnings("ignore", category=DeprecationWarning,
                                module=r"torchrec\.distributed\.planner")

    def test_shardlab_plans_every_golden_model_as_torchrec(self):
        from torchrec.distributed.planner import EmbeddingShardingPlanner
        from torchrec.distributed.planner.stats import NoopEmbeddingStats
        from torchrec.distributed.planner.types import PlannerError
        goldens = golden_scenarios()
        self.assertGreaterEqual(len(goldens), 49)
        tally = {"equal plans": [], "equal to the recorded plan": [], "same failure": [],
                 "skipped": []}
        for name, scenario_path, golden_path in goldens:
            with self.subTest(name):
                scenario = read_json(scenario_path)
                golden = read_json(golden_path)
                if name in UNBUILDABLE:
                    error = golden["error"]
                    self.assertEqual(error["stage"], "build")
                    with self.assertRaises(Exception) as built:
                        torchrec_inputs(scenario)
                    self.assertEqual(type(built.exception).__name__, error["exception"])
                    tally["skipped"].append(name)
                    self.skipTest("%s: %s" % (name, UNBUILDABLE[name]))
                model, sharders, kwargs, inference = torchrec_inputs(scenario)
                if name in RECORDED_ONLY:
                    self.assertIsNone(golden["error"])
                    self.assertFalse(inference)
                    planner = ADAPTER_MODULE.ShardLabPlanner(torchrec_version="2024-02",
                                                             **kwargs)
                    self.assertEqual(shards(planner.plan(model, sharders)),
                                     golden_shards(golden["plan"]))
                    same_options(self, planner.last_scenario, scenario_path)
                    tally["equal to the recorded plan"].append(name)
                    continue
                theirs = outcome(lambda: EmbeddingShardingPlanner(
                    stats=NoopEmbeddingStats(), debug=False, **kwargs).plan(model, sharders))
                # TorchRec's answer here is the golden's: the model is the oracle's.
                if golden["error"] is None:
                    self.assertEqual(theirs[0], "plan", theirs[1])
                    self.assertEqual(shards(theirs[1]), golden_shards(golden["plan"]))
                else:
                    self.assertEqual(theirs[0], "error")
                    self.assertEqual(type(theirs[1]).__name__, golden["error"]["exception"])
                    if isinstance(theirs[1], PlannerError):
                        self.assertEqual(theirs[1].error_type.value, golden["error"]["error_type"])
                if inference:
                    # Without the inference enumerator the quantized modules are refused by
                    # name: a scenario plans them for inference only.
                    training = dict(kwargs)
                    training.pop("enumerator")
                    refusing = ADAPTER_MODULE.ShardLabPlanner(torchrec_version="2024-02",
                                                              **training)
                    path = "ec" if hasattr(model, "ec") else "ebc"
                    with self.assertRaisesRegex(
                            ValueError, r"'%s': torchrec\.quant\.embedding_modules\." % path):
                        refusing.plan(model, sharders)
                    self.assertIsNone(refusing.last_plan)
                planner = ADAPTER_MODULE.ShardLabPlanner(torchrec_version="2024-02", **kwargs)
                ours = outcome(lambda: planner.plan(model, sharders))
                if inference:
                    self.assertIs(planner.last_scenario["planner"].get("is_inference"), True)
                same_options(self, planner.last_scenario, scenario_path)
                if theirs[0] == "plan":
                    self.assertEqual(ours[0], "plan", ours[1])
                    self.assertEqual(shards(ours[1]), shards(theirs[1]))
                    # The whole ParameterShardings, pass-through fields included.
                    self.assertEqual(ours[1].plan, theirs[1].plan)
                    tally["equal plans"].append(name)
                else:
                    self.assertEqual(ours[0], "error", "TorchRec failed (%r), ShardLab planned"
                                     % theirs[1])
                    self.assertIs(type(ours[1]), type(theirs[1]), ours[1])
                    if isinstance(theirs[1], PlannerError):
                        self.assertEqual(ours[1].error_type, theirs[1].error_type)
                    tally["same failure"].append(name)
        print("\n  goldens: " + "; ".join("%d %s" % (len(v), k) for k, v in tally.items()))

    def test_a_module_shardlab_does_not_shard_is_refused_by_name(self):
        import torch
        from torchrec.distributed.embeddingbag import EmbeddingBagCollectionSharder
        from torchrec.distributed.planner import EmbeddingShardingPlanner, Topology
        from torchrec.distributed.quant_embeddingbag import QuantEmbeddingBagCollectionSharder
        from torchrec.distributed.sharding_plan import get_default_sharders
        from torchrec.modules.embedding_configs import DataType, EmbeddingBagConfig
        from torchrec.modules.embedding_modules import EmbeddingBagCollection
        from torchrec.modules.feature_processor_ import PositionWeightedModuleCollection
        from torchrec.modules.fp_embedding_modules import FeatureProcessedEmbeddingBagCollection
        from torchrec.quant.embedding_modules import (
            EmbeddingBagCollection as QuantEmbeddingBagCollection)
        meta = torch.device("meta")
        topology = Topology(world_size=4, compute_device="cuda")

        def tables(prefix, data_type=DataType.FP32):
            return [EmbeddingBagConfig(name="%s%d" % (prefix, i), num_embeddings=rows,
                                       embedding_dim=64, feature_names=["%s_f%d" % (prefix, i)],
                                       data_type=data_type)
                    for i, rows in enumerate([1000, 200_000])]

        class MyEmbeddingBagCollection(EmbeddingBagCollection):
            """A user's subclass: no sharder shards it (TorchRec matches exact types)."""

        def model_with(path, module):
            model = torch.nn.Module()
            model.dense = torch.nn.Linear(8, 8, device=meta)
            model.sparse = torch.nn.Module()
            model.sparse.ebc = EmbeddingBagCollection(tables=tables("t"), device=meta)
            setattr(model.sparse, path, module)
            return model

        cases = [
            ("feature-processed", "sparse.fp_ebc", "FeatureProcessedEmbeddingBagCollection",
             model_with("fp_ebc", FeatureProcessedEmbeddingBagCollection(
                 EmbeddingBagCollection(tables=tables("p"), is_weighted=True, device=meta),
                 PositionWeightedModuleCollection({"p_f0": 10, "p_f1": 10}, device=meta))),
             get_default_sharders(), True),
            ("quantized", "sparse.qebc", "torchrec.quant.embedding_modules.EmbeddingBagCollection",
             model_with("qebc", QuantEmbeddingBagCollection(
                 tables("q", DataType.INT8), is_weighted=False, device=meta)),
             [EmbeddingBagCollectionSharder(), QuantEmbeddingBagCollectionSharder()], True),
            ("a subclass no sharder shards", "sparse.mine", "MyEmbeddingBagCollection",
             model_with("mine", MyEmbeddingBagCollection(tables=tables("m"), device=meta)),
             [EmbeddingBagCollectionSharder()], False),
        ]
        for label, path, type_name, model, sharders, torchrec_shards_it in cases:
            with self.subTest(label):
                # TorchRec's own planner plans it (or, for the subclass, leaves its tables
                # out of the plan); ShardLab refuses the model, naming the module.
                plan = EmbeddingShardingPlanner(topology=topology, debug=False).plan(
                    model, sharders)
                self.assertEqual(path in plan.plan, torchrec_shards_it, list(plan.plan))
                planner = ADAPTER_MODULE.ShardLabPlanner(topology=topology,
                                                         torchrec_version="2024-02")
                with self.assertRaises(ValueError) as refused:
                    planner.plan(model, sharders)
                self.assertIn(repr(path), str(refused.exception))
                self.assertIn(type_name, str(refused.exception))
                self.assertIsNone(planner.last_plan)

    def test_only_the_inference_enumerator_is_mapped(self):
        import torch
        from torchrec.distributed.embeddingbag import EmbeddingBagCollectionSharder
        from torchrec.distributed.planner import Topology
        from torchrec.distributed.planner.enumerators import EmbeddingEnumerator
        from torchrec.distributed.planner.shard_estimators import (
            EmbeddingPerfEstimator, EmbeddingStorageEstimator)
        from torchrec.modules.embedding_configs import EmbeddingBagConfig
        from torchrec.modules.embedding_modules import EmbeddingBagCollection
        topology = Topology(world_size=2, compute_device="cuda")

        def enumerator(perf_inference=True, extra=(), batch_size=512, topo=topology):
            return EmbeddingEnumerator(
                topology=topo, batch_size=batch_size,
                estimator=[EmbeddingPerfEstimator(topology=topo, is_inference=perf_inference),
                           EmbeddingStorageEstimator(topology=topo)] + list(extra))

        refused = [
            ("default estimators", EmbeddingEnumerator(topology=topology, batch_size=512),
             "enumerator .*EmbeddingEnumerator"),
            ("training perf estimator", enumerator(False), "is_inference=False"),
            ("a third estimator", enumerator(extra=[EmbeddingPerfEstimator(topology=topology)]),
             "estimators .*EmbeddingPerfEstimator"),
            ("another batch size", enumerator(batch_size=64), "batch_size 64"),
            ("another topology", enumerator(topo=Topology(world_size=4, compute_device="cuda")),
             "another topology"),
        ]
        for label, e, message in refused:
            with self.subTest(label):
                with self.assertRaisesRegex(ValueError, message):
                    ADAPTER_MODULE.ShardLabPlanner(topology=topology, batch_size=512,
                                                   enumerator=e, torchrec_version="2024-02")
        # The inference enumerator with training modules: refused by the module's name.
        model = torch.nn.Module()
        model.ebc = EmbeddingBagCollection(tables=[EmbeddingBagConfig(
            name="t0", num_embeddings=100, embedding_dim=16, feature_names=["f0"])],
            device=torch.device("meta"))
        planner = ADAPTER_MODULE.ShardLabPlanner(topology=topology, batch_size=512,
                                                 enumerator=enumerator(),
                                                 torchrec_version="2024-02")
        with self.assertRaisesRegex(ValueError, "'ebc': .*training module"):
            planner.plan(model, [EmbeddingBagCollectionSharder()])
        self.assertIsNone(planner.last_plan)


if __name__ == "__main__":
    unittest.main()
