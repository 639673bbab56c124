"""shardlab.torchrec, the TorchRec adapter (docs/python.md, "shardlab.torchrec").

The tests marked "needs TorchRec" compare ShardLabPlanner with TorchRec's own
EmbeddingShardingPlanner at commit fe1c2824 (ShardLab's "2024-02"), imported on Debian's
python3-torch through the bootstrap in ../shared/torchrec-env (its README.md): they run
where TORCHREC_SRC names TorchRec's source and SHARDLAB_TORCHREC_ENV (default:
SHARDLAB_SOURCE_DIR/../shared/torchrec-env) holds torchrec_env.py, and skip otherwise.
The others need neither torch nor TorchRec.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

import shardlab

SOURCE = os.environ.get("SHARDLAB_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
TINY = os.path.join(SOURCE, "data", "scenarios", "tiny_2gpu.json")
DLRM_PLAN = os.path.join(SOURCE, "data", "scenarios", "validation", "plans",
                         "torchrec_dlrm_4gpu.plan.json")
PACKAGE_DIR = os.path.dirname(os.path.abspath(shardlab.__file__))
ADAPTER = os.path.join(PACKAGE_DIR, "torchrec.py")


def _load_torchrec():
    """(shardlab.torchrec, None) where TorchRec imports through the bootstrap, else
    (None, why not)."""
    src = os.environ.get("TORCHREC_SRC")
    env = os.environ.get("SHARDLAB_TORCHREC_ENV",
                         os.path.join(SOURCE, "..", "shared", "torchrec-env"))
    if not src:
        return None, "TORCHREC_SRC is not set (TorchRec's source at fe1c2824)"
    if not os.path.isdir(os.path.join(src, "torchrec")):
        return None, "TORCHREC_SRC=%s holds no torchrec/" % src
    if not os.path.isfile(os.path.join(env, "torchrec_env.py")):
        return None, "no torchrec_env.py in %s (SHARDLAB_TORCHREC_ENV)" % env
    for path in (src, os.path.abspath(env)):
        if path not in sys.path:
            sys.path.insert(0, path)
    try:
        import torchrec_env
        import torchrec  # noqa: F401
        # The reference rule for constrained lists (torchrec-env README), and mtia
        # placements on torch 1.13, as ShardLab's goldens were made.
        torchrec_env.patch_ordered_constraint_filter()
        torchrec_env.patch_mtia_placement()
        import shardlab.torchrec as adapter
    except (ImportError, SystemExit) as e:  # torchrec_env exits where torch is missing
        return None, "TorchRec does not import here: %s" % e
    return adapter, None


ADAPTER_MODULE, NO_TORCHREC = _load_torchrec()
needs_torchrec = unittest.skipUnless(ADAPTER_MODULE, "needs TorchRec: %s" % NO_TORCHREC)


def torch_free_helpers():
    """shardlab.torchrec's torch-free helpers, which it defines before importing torch:
    the module itself where it imports, else what ran of it before its ImportError."""
    if ADAPTER_MODULE is not None:
        return ADAPTER_MODULE
    spec = importlib.util.spec_from_file_location("shardlab_torchrec_torch_free", ADAPTER)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:
        pass
    return module


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class WithoutTorchTest(unittest.TestCase):
    """What runs everywhere: the import guard and the plan conversions."""

    def run_python(self, code):
        env = dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE_DIR))
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, check=False)

    def test_import_without_torch_or_torchrec_says_what_it_needs(self):
        # None in sys.modules makes `import torch` fail whether torch is installed or not.
        for blocked in ("torch", "torchrec"):
            with self.subTest(blocked=blocked):
                out = self.run_python(
                    "import sys\n"
                    "sys.modules[%r] = None\n"
                    "import shardlab\n"
                    "try:\n"
                    "    import shardlab.torchrec\n"
                    "except ImportError as e:\n"
                    "    print('ImportError:', e)\n"
                    "else:\n"
                    "    print('imported')\n" % blocked)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertIn("ImportError: shardlab.torchrec needs PyTorch and TorchRec",
                              out.stdout)
                # The rest of the module still works.
                out = self.run_python("import sys\nsys.modules[%r] = None\nimport shardlab\n"
                                      "print(shardlab.validate(%r))" % (blocked, TINY))
                self.assertEqual(out.stdout.strip(), "{'valid': True}", out.stderr)

    def test_tables_of_a_shardlab_plan(self):
        helpers = torch_free_helpers()
        planned = shardlab.plan(TINY)
        tables = helpers.plan_dict_tables(planned)
        self.assertEqual({m: sorted(t) for m, t in tables.items()},
                         {"ebc": ["item_category", "item_id", "user_id"],
                          "weighted_ebc": ["user_history"]})
        for module, module_tables in tables.items():
            for name, p in module_tables.items():
                entry = planned["tables"][name]
                self.assertEqual(entry["module"], module)
                self.assertEqual(sorted(p), sorted(
                    ["sharding_type", "compute_kernel", "ranks", "sharding_spec",
                     "cache_params", "enforce_hbm", "stochastic_rounding",
                     "bounds_check_mode"]))
                self.assertEqual(p["sharding_type"], entry["sharding_type"])
                self.assertEqual(p["compute_kernel"], entry["compute_kernel"])
                self.assertEqual(p["ranks"], entry["ranks"])
                if entry["sharding_type"] == "data_parallel":
                    self.assertIsNone(p["sharding_spec"])
                else:
                    self.assertEqual(p["sharding_spec"], [
                        {"shard_offsets": s["offset"], "shard_sizes": s["size"],
                         "placement": s["placement"]} for s in entry["shards"]])
                    self.assertEqual([s["placement"] for s in p["sharding_spec"]],
                                     ["rank:%d/cuda:%d" % (r, r) for r in p["ranks"]])

    def test_tables_of_a_torchrec_shaped_file(self):
        helpers = torch_free_helpers()
        doc = read_json(DLRM_PLAN)
        tables = helpers.plan_dict_tables(doc)
        # The file's entries are already in the normalized shape.
        self.assertEqual(tables, doc["plan"])
        self.assertEqual(list(tables), ["ebc"])
        self.assertEqual(tables["ebc"]["t_cat_0"]["sharding_spec"][0]["placement"],
                         "rank:1/cuda:1")
        # The bare map inside it reads the same.
        self.assertEqual(helpers.plan_dict_tables(doc["plan"]), tables)

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_both_plan_formats_give_the_same_tables(self):
        helpers = torch_free_helpers()
        out = subprocess.run([os.environ["SHARDLAB_CLI"], "plan", TINY, "--format", "torchrec",
                              "--no-record", "-q", "-o", "-"],
                             check=True, capture_output=True, text=True).stdout
        self.assertEqual(helpers.plan_dict_tables(json.loads(out)),
                         helpers.plan_dict_tables(shardlab.plan(TINY)))

    def test_plans_that_are_no_torchrec_plan_are_refused(self):
        helpers = torch_free_helpers()
        failed = {"scenario": "x", "error": {"type": "insufficient_storage", "message": "full"}}
        with self.assertRaisesRegex(ValueError, "planning failed: insufficient_storage: full"):
            helpers.plan_dict_tables(failed)
        planned = shardlab.plan(TINY)
        planned["tables"]["user_id"]["layout"] = "hugectr"
        with self.assertRaisesRegex(ValueError, r"tables\.user_id: layout 'hugectr'"):
            helpers.plan_dict_tables(planned)
        doc = read_json(DLRM_PLAN)
        doc["version"] = 2
        with self.assertRaisesRegex(ValueError, '"version": 1'):
            helpers.plan_dict_tables(doc)
        doc = read_json(DLRM_PLAN)
        doc["plan"]["ebc"]["t_cat_3"]["sharding_types"] = ["table_wise"]
        with self.assertRaisesRegex(ValueError, r"plan\.ebc\.t_cat_3: not a field of TorchRec's"
                                                r" ParameterSharding: sharding_types"):
            helpers.plan_dict_tables(doc)


# --- With TorchRec ----------------------------------------------------------------------

def small_model(weighted=True, buffers=False):
    """A model as a TorchRec user writes one: dense layers, and an EmbeddingBagCollection
    (plus a weighted one) of tables from tiny to too big for one GPU, on device "meta"."""
    import torch
    from torchrec.modules.embedding_configs import DataType, EmbeddingBagConfig
    from torchrec.modules.embedding_modules import EmbeddingBagCollection
    meta = torch.device("meta")
    model = torch.nn.Module()
    model.dense = torch.nn.Sequential(torch.nn.Linear(13, 512, device=meta),
                                      torch.nn.Linear(512, 64, device=meta))
    if buffers:
        model.norm = torch.nn.BatchNorm1d(64, device=meta)
    model.sparse = torch.nn.Module()
    sizes = [(40, 16), (5_000, 64), (1_000_000, 128), (30_000_000, 128), (120_000, 64),
             (800, 32)]
    model.sparse.ebc = EmbeddingBagCollection(tables=[
        EmbeddingBagConfig(name="t%d" % i, num_embeddings=rows, embedding_dim=dim,
                           feature_names=["f%d" % i] + (["g%d" % i] if i == 1 else []),
                           data_type=DataType.FP16 if i == 4 else DataType.FP32)
        for i, (rows, dim) in enumerate(sizes)], device=meta)
    if weighted:
        model.sparse.weighted_ebc = EmbeddingBagCollection(tables=[
            EmbeddingBagConfig(name="w%d" % i, num_embeddings=rows, embedding_dim=64,
                               feature_names=["wf%d" % i])
            for i, rows in enumerate([300_000, 2_000])], is_weighted=True, device=meta)
    return model


def shards(sharding_plan):
    """{module: {table: (type, kernel, ranks, [(offsets, sizes, placement)])}}."""
    out = {}
    for module, module_plan in sharding_plan.plan.items():
        out[module] = {}
        for table, p in module_plan.items():
            spec = None if p.sharding_spec is None else [
                (list(m.shard_offsets), list(m.shard_sizes), str(m.placement))
                for m in p.sharding_spec.shards]
            out[module][table] = (p.sharding_type, p.compute_kernel, list(p.ranks), spec)
    return out


@needs_torchrec
class WithTorchRecTest(unittest.TestCase):
    def setUp(self):
        from torchrec.distributed.embeddingbag import EmbeddingBagCollectionSharder
        from torchrec.distributed.planner import Topology
        self.adapter = ADAPTER_MODULE
        self.Topology = Topology
        self.sharders = [EmbeddingBagCollectionSharder()]

    def torchrec_plan(self, model, sharders=None, **kwargs):
        from torchrec.distributed.planner import EmbeddingShardingPlanner
        return EmbeddingShardingPlanner(debug=False, **kwargs).plan(
            model, sharders or self.sharders)

    def shardlab_plan(self, model, sharders=None, **kwargs):
        planner = self.adapter.ShardLabPlanner(torchrec_version="2024-02", **kwargs)
        return planner.plan(model, sharders or self.sharders)

    def test_plans_as_torchrec_plans(self):
        import torch
        from torchrec.distributed.embeddingbag import EmbeddingBagCollectionSharder
        from torchrec.distributed.fbgemm_qcomm_codec import (
            CommType, QCommsConfig, get_qcomm_codecs_registry)
        from torchrec.distributed.planner import ParameterConstraints
        from torchrec.distributed.types import CacheParams
        four = self.Topology(world_size=4, compute_device="cuda")
        two_hosts = self.Topology(world_size=16, local_world_size=8, compute_device="cuda",
                                  hbm_cap=4 * 2**30)
        constraints = {
            "t1": ParameterConstraints(pooling_factors=[4.0, 1.0], batch_sizes=[512, 256]),
            "t2": ParameterConstraints(sharding_types=["column_wise", "table_wise"],
                                       min_partition=32),
            "t4": ParameterConstraints(compute_kernels=["fused_uvm_caching"],
                                       cache_params=CacheParams(load_factor=0.3),
                                       enforce_hbm=True),
            "w0": ParameterConstraints(pooling_factors=[30.0]),
        }
        qcomm = get_qcomm_codecs_registry(QCommsConfig(forward_precision=CommType.FP16,
                                                       backward_precision=CommType.BF16))
        cases = [
            ("one host", small_model(weighted=False), None, dict(topology=four,
                                                                 batch_size=512)),
            ("two modules, dense buffers, Adam", small_model(buffers=True), torch.optim.Adam,
             dict(topology=four, batch_size=1024)),
            ("two hosts with constraints", small_model(), None,
             dict(topology=two_hosts, batch_size=2048, constraints=constraints)),
            ("qcomm codecs", small_model(), None, dict(topology=two_hosts, batch_size=512),
             [EmbeddingBagCollectionSharder(qcomm_codecs_registry=qcomm)]),
        ]
        kinds = set()
        for case in cases:
            label, model, optimizer, kwargs = case[:4]
            sharders = case[4] if len(case) > 4 else None
            with self.subTest(label):
                if optimizer is not None:
                    for p in model.parameters():
                        p._optimizer_class = optimizer  # what TorchRec fe1c2824 reads
                ours = shards(self.shardlab_plan(model, sharders, **kwargs))
                self.assertEqual(ours, shards(self.torchrec_plan(model, sharders, **kwargs)))
                kinds |= {t[0] for m in ours.values() for t in m.values()}
        # The cases cover more than one way to shard.
        self.assertGreaterEqual(len(kinds), 3, kinds)

    def test_the_whole_parameter_sharding_matches(self):
        from torchrec.distributed.planner import ParameterConstraints
        from torchrec.distributed.types import BoundsCheckMode
        constraints = {"t3": ParameterConstraints(stochastic_rounding=True,
                                                  bounds_check_mode=BoundsCheckMode.WARNING)}
        kwargs = dict(topology=self.Topology(world_size=4, compute_device="cuda"),
                      batch_size=512, constraints=constraints)
        model = small_model()
        ours = self.shardlab_plan(model, **kwargs)
        self.assertEqual(ours.plan, self.torchrec_plan(model, **kwargs).plan)
        self.assertEqual(set(ours.plan), {"sparse.ebc", "sparse.weighted_ebc"})
        self.assertIs(ours.plan["sparse.ebc"]["t3"].stochastic_rounding, True)

    def test_scenario_from_torchrec(self):
        from torchrec.distributed.planner import ParameterConstraints
        from torchrec.distributed.types import BoundsCheckMode
        model = small_model()
        topology = self.Topology(world_size=8, local_world_size=4, compute_device="cuda",
                                 hbm_cap=80 * 2**30, intra_host_bw=3e8)
        constraints = {"w1": ParameterConstraints(pooling_factors=[2.0, 3.0],
                                                  bounds_check_mode=BoundsCheckMode.IGNORE)}
        scenario = self.adapter.scenario_from_torchrec(
            model, self.sharders, topology, batch_size=256, torchrec_version="2024-02",
            constraints=constraints)
        self.assertEqual(scenario["topology"]["world_size"], 8)
        self.assertEqual(scenario["topology"]["local_world_size"], 4)
        self.assertEqual(scenario["topology"]["hbm_cap"], 80 * 2**30)
        self.assertEqual(scenario["topology"]["intra_host_bw"], 3e8)
        self.assertEqual(scenario["batch_size"], 256)
        dense = (13 * 512 + 512 + 512 * 64 + 64) * 4
        self.assertEqual(scenario["module"], {"kind": "embedding_bag_collection",
                                              "dense_param_bytes": dense})
        tables = {t["name"]: t for t in scenario["tables"]}
        self.assertEqual([t["name"] for t in scenario["tables"]],
                         ["t0", "t1", "t2", "t3", "t4", "t5", "w0", "w1"])
        self.assertEqual(tables["t1"]["feature_names"], ["f1", "g1"])
        self.assertEqual(tables["t4"]["data_type"], "fp16")
        self.assertTrue(tables["w0"]["is_weighted"])
        self.assertEqual(tables["t3"]["num_embeddings"], 30_000_000)
        self.assertEqual(scenario["constraints"], {"w1": {"pooling_factors": [2.0, 3.0],
                                                          "bounds_check_mode": "ignore"}})
        self.assertEqual(scenario["planner"], {"torchrec_version": "2024-02"})
        self.assertEqual(self.adapter.module_paths_from_torchrec(model, self.sharders),
                         {"weighted_ebc": "sparse.weighted_ebc", "ebc": "sparse.ebc"})
        # Planned and converted by hand, it is the planner's plan.
        by_hand = self.adapter.plan_to_sharding_plan(
            shardlab.plan(scenario), {"ebc": "sparse.ebc", "weighted_ebc": "sparse.weighted_ebc"})
        planner = self.adapter.ShardLabPlanner(topology=topology, batch_size=256,
                                               constraints=constraints,
                                               torchrec_version="2024-02")
        self.assertEqual(shards(by_hand), shards(planner.plan(model, self.sharders)))

    def test_planner_components_map_to_the_scenario(self):
        from torchrec.distributed.planner.partitioners import (
            MemoryBalancedPartitioner, SortBy, GreedyPerfPartitioner)
        from torchrec.distributed.planner.proposers import GreedyProposer, UniformProposer
        from torchrec.distributed.planner.storage_reservations import (
            HeuristicalStorageReservation)
        kwargs = dict(topology=self.Topology(world_size=4, compute_device="cuda"),
                      batch_size=512,
                      storage_reservation=HeuristicalStorageReservation(percentage=0.3),
                      proposer=[GreedyProposer(use_depth=False), UniformProposer()],
                      partitioner=GreedyPerfPartitioner(sort_by=SortBy.PERF))
        planner = self.adapter.ShardLabPlanner(torchrec_version="2024-02", **kwargs)
        model = small_model()
        self.assertEqual(shards(planner.plan(model, self.sharders)),
                         shards(self.torchrec_plan(model, **kwargs)))
        self.assertEqual(planner.last_scenario["planner"], {
            "proposers": [{"kind": "greedy", "use_depth": False},
                          {"kind": "uniform", "use_depth": True}],
            "partitioner": {"kind": "greedy_perf", "sort_by": "perf", "balance_modules": False},
            "storage_reservation": {"kind": "heuristical", "percentage": 0.3,
                                    "parameter_multiplier": 6.0},
            "torchrec_version": "2024-02"})
        planner = self.adapter.ShardLabPlanner(partitioner=MemoryBalancedPartitioner(),
                                               topology=kwargs["topology"])
        self.assertEqual(planner._planner["partitioner"]["kind"], "memory_balanced")

    def test_an_unsupported_proposer_is_refused_by_name(self):
        from torchrec.distributed.planner.proposers import GreedyProposer

        class StochasticProposer(GreedyProposer):
            pass

        topology = self.Topology(world_size=4, compute_device="cuda")
        with self.assertRaises(ValueError) as e:
            self.adapter.ShardLabPlanner(topology=topology,
                                         proposer=[GreedyProposer(), StochasticProposer()])
        self.assertIn("proposer", str(e.exception))
        self.assertIn("StochasticProposer", str(e.exception))

    def test_what_a_scenario_cannot_express_is_refused_by_name(self):
        import torch
        from torchrec.distributed.planner import ParameterConstraints
        from torchrec.distributed.planner.enumerators import EmbeddingEnumerator
        from torchrec.modules.embedding_configs import EmbeddingBagConfig
        from torchrec.modules.embedding_modules import EmbeddingBagCollection
        from torchrec.modules.feature_processor_ import PositionWeightedModuleCollection
        from torchrec.modules.fp_embedding_modules import FeatureProcessedEmbeddingBagCollection
        topology = self.Topology(world_size=4, compute_device="cuda")
        model = small_model()
        model.fp = FeatureProcessedEmbeddingBagCollection(
            EmbeddingBagCollection(tables=[EmbeddingBagConfig(
                name="pos", num_embeddings=100, embedding_dim=8, feature_names=["pos"])],
                is_weighted=True, device=torch.device("meta")),
            PositionWeightedModuleCollection({"pos": 10}, device=torch.device("meta")))
        with self.assertRaisesRegex(ValueError, "'fp': .*FeatureProcessedEmbeddingBagCollection"):
            self.adapter.scenario_from_torchrec(model, None, topology)  # default sharders
        # grid_shard is TorchRec 2026-08's: the 2024-02 model refuses it by name.
        grid = {"t1": ParameterConstraints(sharding_types=["grid_shard"])}
        with self.assertRaisesRegex(ValueError, r"constraints\.t1\.sharding_types\[0\]: "
                                    "TorchRec 2024-02 has no grid_shard"):
            self.adapter.scenario_from_torchrec(small_model(), self.sharders, topology,
                                                constraints=grid, torchrec_version="2024-02")
        scenario = self.adapter.scenario_from_torchrec(small_model(), self.sharders, topology,
                                                       constraints=grid)
        self.assertEqual(scenario["constraints"]["t1"]["sharding_types"], ["grid_shard"])
        with self.assertRaisesRegex(ValueError, "enumerator .*EmbeddingEnumerator"):
            self.adapter.ShardLabPlanner(
                topology=topology, enumerator=EmbeddingEnumerator(topology, batch_size=512))

    def test_the_ssd_tier_is_read_for_the_2026_model(self):
        """TorchRec 2026-08's key-value settings, here set by hand on the 2024 objects
        (the Debian TorchRec predates them): the adapter reads them by name, and the
        2024-02 model refuses them by name."""
        import dataclasses
        from torchrec.distributed.planner import ParameterConstraints

        @dataclasses.dataclass
        class KeyValueParams:  # the two fields of TorchRec 2026-08's that the planner reads
            max_l1_cache_size: object = None
            l2_cache_size: object = None

        topology = self.Topology(world_size=4, compute_device="cuda")
        topology.ssd_mem_bw = 2e5
        for d in topology.devices:
            d.storage.ssd = 10 ** 12
        kv = ParameterConstraints(compute_kernels=["key_value"])
        kv.key_value_params = KeyValueParams(max_l1_cache_size=64)
        kv.use_virtual_table = True
        scenario = self.adapter.scenario_from_torchrec(small_model(), self.sharders, topology,
                                                       constraints={"t1": kv})
        self.assertEqual(scenario["topology"]["ssd_cap"], 10 ** 12)
        self.assertEqual(scenario["topology"]["ssd_mem_bw"], 2e5)
        self.assertEqual(scenario["constraints"]["t1"]["compute_kernels"], ["key_value"])
        self.assertEqual(scenario["constraints"]["t1"]["key_value_params"],
                         {"max_l1_cache_size": 64})
        self.assertTrue(scenario["constraints"]["t1"]["use_virtual_table"])
        self.assertEqual(shardlab.plan(scenario)["tables"]["t1"]["compute_kernel"], "key_value")
        with self.assertRaisesRegex(ValueError, "TorchRec 2024-02 has no SSD tier"):
            self.adapter.scenario_from_torchrec(small_model(), self.sharders, topology,
                                                constraints={"t1": kv},
                                                torchrec_version="2024-02")

    def test_a_plan_that_cannot_be_found_raises_torchrecs_error(self):
        from torchrec.distributed.planner.types import PlannerError, PlannerErrorType
        kwargs = dict(topology=self.Topology(world_size=2, compute_device="cuda",
                                             hbm_cap=2**20), batch_size=512)
        with self.assertRaises(PlannerError) as theirs:
            self.torchrec_plan(small_model(), **kwargs)
        with self.assertRaises(PlannerError) as ours:
            self.shardlab_plan(small_model(), **kwargs)
        self.assertEqual(ours.exception.error_type, PlannerErrorType.INSUFFICIENT_STORAGE)
        self.assertEqual(ours.exception.error_type, theirs.exception.error_type)

    def test_the_stats_table_is_logged_as_torchrec_logs_it(self):
        # TorchRec's default stats (EmbeddingStats) log the table row by row to its logger;
        # ShardLab's planner logs its table, TorchRec's line for line, to the same logger.
        # The run-time figure is the only line that may differ. The table names tables by
        # ShardLab's module paths (ebc, weighted_ebc, ec), so the model here keeps its
        # collections at those paths; under other paths the FQN column differs.
        kwargs = dict(topology=self.Topology(world_size=4, compute_device="cuda"),
                      batch_size=512)
        nested = small_model()
        import torch
        model = torch.nn.Module()
        model.dense = nested.dense
        model.ebc = nested.sparse.ebc
        model.weighted_ebc = nested.sparse.weighted_ebc

        def logged(plan):
            with self.assertLogs("torchrec.distributed.planner.stats", level="INFO") as logs:
                plan(model, **kwargs)
            return [r.getMessage() for r in logs.records]

        from torchrec.distributed.planner import EmbeddingShardingPlanner
        theirs = logged(lambda m, **k: EmbeddingShardingPlanner(**k).plan(m, self.sharders))
        ours = logged(lambda m, **k: self.adapter.ShardLabPlanner(
            torchrec_version="2024-02", **k).plan(m, self.sharders))
        self.assertEqual(len(ours), len(theirs))
        differing = [(a, b) for a, b in zip(ours, theirs) if a != b]
        self.assertLessEqual(len(differing), 1, differing)
        for a, b in differing:
            self.assertIn("ran for", b)
        # NoopEmbeddingStats logs nothing.
        from torchrec.distributed.planner.stats import NoopEmbeddingStats
        with self.assertNoLogs("torchrec.distributed.planner.stats", level="INFO"):
            self.shardlab_plan(model, stats=NoopEmbeddingStats(), **kwargs)

    def test_load_plan_renames_modules(self):
        plan = self.adapter.load_plan(DLRM_PLAN, module_paths={"ebc": "model.sparse.ebc"})
        doc = read_json(DLRM_PLAN)
        self.assertEqual(list(plan.plan), ["model.sparse.ebc"])
        self.assertEqual(set(plan.plan["model.sparse.ebc"]), set(doc["plan"]["ebc"]))
        p = plan.plan["model.sparse.ebc"]["t_cat_0"]
        self.assertEqual((p.sharding_type, p.compute_kernel, p.ranks),
                         ("table_wise", "fused", [1]))
        [meta] = p.sharding_spec.shards
        self.assertEqual((meta.shard_offsets, meta.shard_sizes, str(meta.placement)),
                         ([0, 0], [45833188, 128], "rank:1/cuda:1"))
        # The same plan from a dict, in ShardLab's own format too.
        planned = shardlab.plan(TINY)
        converted = self.adapter.plan_to_sharding_plan(planned)
        self.assertEqual(set(converted.plan), {"ebc", "weighted_ebc"})
        self.assertEqual(converted.plan["ebc"]["user_id"].ranks,
                         planned["tables"]["user_id"]["ranks"])

    def test_collective_plan_broadcasts_rank_0s_plan(self):
        # Two processes on gloo; only rank 0 may plan (rank 1 has no shardlab.plan).
        script = (
            "import os, pickle, sys\n"
            "rank, init, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]\n"
            "sys.path[:0] = [os.environ['TORCHREC_SRC'], os.environ['ENV_DIR']]\n"
            "import torchrec_env\n"
            "torchrec_env.patch_ordered_constraint_filter()\n"
            "import torch.distributed as dist\n"
            "dist.init_process_group('gloo', init_method='file://' + init, rank=rank,"
            " world_size=2)\n"
            "sys.path.insert(0, os.environ['TESTS_DIR'])\n"
            "import shardlab, test_torchrec as t\n"
            "from torchrec.distributed.planner import Topology\n"
            "from torchrec.distributed.embeddingbag import EmbeddingBagCollectionSharder\n"
            "import shardlab.torchrec as adapter\n"
            "if rank: shardlab.plan = None\n"
            "planner = adapter.ShardLabPlanner(topology=Topology(world_size=4,"
            " compute_device='cuda'), torchrec_version='2024-02')\n"
            "plan = planner.collective_plan(t.small_model(), [EmbeddingBagCollectionSharder()])\n"
            "with open(out, 'wb') as f: pickle.dump(t.shards(plan), f)\n"
            "dist.destroy_process_group()\n")
        import pickle
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE_DIR),
                       ENV_DIR=os.path.dirname(sys.modules["torchrec_env"].__file__),
                       TESTS_DIR=os.path.dirname(os.path.abspath(__file__)))
            init = os.path.join(tmp, "init")
            procs = [subprocess.Popen([sys.executable, "-c", script, str(rank), init,
                                       os.path.join(tmp, "plan%d" % rank)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for rank in (0, 1)]
            for p in procs:
                _, err = p.communicate(timeout=120)
                self.assertEqual(p.returncode, 0, err[-3000:])
            plans = []
            for rank in (0, 1):
                with open(os.path.join(tmp, "plan%d" % rank), "rb") as f:
                    plans.append(pickle.load(f))
        self.assertEqual(plans[0], plans[1])
        self.assertEqual(plans[0], shards(self.torchrec_plan(
            small_model(), topology=self.Topology(world_size=4, compute_device="cuda"))))


if __name__ == "__main__":
    unittest.main()
