"""The shardlab module against the CLI's documents and errors (docs/python.md)."""

import json
import os
import signal
import subprocess
import threading
import time
import unittest

import shardlab

SOURCE = os.environ.get("SHARDLAB_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
TINY = os.path.join(SOURCE, "data", "scenarios", "tiny_2gpu.json")


def tiny():
    with open(TINY, encoding="utf-8") as f:
        return json.load(f)


def big_scenario():
    """300 tables on 64 ranks: TorchRec's plan in about 50 ms, searches that run for seconds."""
    return {"name": "big", "topology": {"world_size": 64, "local_world_size": 8,
                                        "hbm_cap": "80 GiB"},
            "tables": [{"name": "t%d" % t, "num_embeddings": 1000 + 7919 * (t % 397),
                        "embedding_dim": 64, "feature_names": ["f%d" % t]}
                       for t in range(300)]}


class ModuleTest(unittest.TestCase):
    def test_plan_from_a_path_and_from_a_dict_agree(self):
        by_path = shardlab.plan(TINY)
        by_dict = shardlab.plan(tiny())
        self.assertEqual(by_path["tables"], by_dict["tables"])
        self.assertEqual(by_path["perf_rating_ms"], by_dict["perf_rating_ms"])
        self.assertEqual(set(by_path["tables"]), {t["name"] for t in tiny()["tables"]})

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_the_same_documents_as_the_cli(self):
        cli = os.environ["SHARDLAB_CLI"]
        out = subprocess.run([cli, "plan", TINY, "--no-record", "-q", "-o", "-"],
                             check=True, capture_output=True, text=True).stdout
        self.assertEqual(json.loads(out), shardlab.plan(TINY))
        out = subprocess.run([cli, "simulate", TINY, "--no-record", "-q", "--iterations", "3",
                              "-o", "-"], check=True, capture_output=True, text=True).stdout
        from_cli = json.loads(out)
        from_python = shardlab.simulate(TINY, iterations=3)
        for doc in (from_cli, from_python):
            doc.pop("wall_seconds", None)
        self.assertEqual(from_cli["iteration_ms"], from_python["iteration_ms"])
        self.assertEqual(from_cli["ranks"], from_python["ranks"])
        out = subprocess.run([cli, "options", TINY, "-q", "-o", "-"], check=True,
                             capture_output=True, text=True).stdout
        self.assertEqual(json.loads(out), shardlab.options(TINY))

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_plan_equals_the_cli_on_every_golden_scenario(self):
        # Both TorchRec versions' golden scenarios: the same plan document, or the same
        # error (message and, for planning failures, TorchRec's error type).
        cli = os.environ["SHARDLAB_CLI"]
        for folder, version in (("data", "2024-02"), ("data-torchrec-2026", "2026-08")):
            directory = os.path.join(SOURCE, "tests", "golden", folder)
            names = sorted(n for n in os.listdir(directory)
                           if n.endswith(".json") and not n.endswith(".golden.json"))
            self.assertGreater(len(names), 40)
            for name in names:
                path = os.path.join(directory, name)
                with self.subTest(scenario=name, version=version):
                    run = subprocess.run([cli, "plan", path, "--torchrec-version", version,
                                          "--no-record", "-q", "-o", "-"],
                                         capture_output=True, text=True)
                    if run.returncode == 0:
                        self.assertEqual(json.loads(run.stdout),
                                         shardlab.plan(path, torchrec_version=version))
                        continue
                    error = json.loads(run.stdout)["error"]
                    with self.assertRaises(shardlab.Error) as raised:
                        shardlab.plan(path, torchrec_version=version)
                    self.assertEqual(str(raised.exception), error["message"])
                    if run.returncode == 3:
                        self.assertIsInstance(raised.exception, shardlab.PlanningFailedError)

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_calibration_as_the_cli_takes_it(self):
        # A profile (path or dict) and "torchrec" rate as --calibration does.
        import tempfile
        cli = os.environ["SHARDLAB_CLI"]
        profile = json.loads(subprocess.run(
            [cli, "presets", "show", "h100-sxm", "--profile"], check=True, capture_output=True,
            text=True).stdout)
        profile["parameters"]["compute"] = [
            dict(c, bandwidth_bytes_per_ms=c["bandwidth_bytes_per_ms"] / 4)
            for c in profile["parameters"]["compute"]]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "slow.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(profile, f)
            for args, calibration in (([], None), (["--calibration", path], path),
                                      (["--calibration", path], profile)):
                out = subprocess.run([cli, "plan", TINY, "--no-record", "-q", "-o", "-"] + args,
                                     check=True, capture_output=True, text=True).stdout
                self.assertEqual(json.loads(out), shardlab.plan(TINY, calibration=calibration))
        slow = shardlab.plan(TINY, calibration=profile)["perf_rating_ms"]
        self.assertGreater(slow, shardlab.plan(TINY)["perf_rating_ms"])
        with self.assertRaises(shardlab.InvalidScenarioError):
            shardlab.plan(TINY, calibration={"format": "nothing"})
        with self.assertRaises(TypeError):
            shardlab.plan(TINY, calibration=3)

    def test_ctrl_c_stops_a_long_call(self):
        # Planning 300 tables on 64 ranks by simulated iteration time takes seconds;
        # Ctrl-C after 0.3 s stops it at the next proposal.
        big = big_scenario()
        # Python's own Ctrl-C handler, even where SIGINT was ignored at start (ctest).
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        timer = threading.Timer(0.3, lambda: signal.raise_signal(signal.SIGINT))
        start = time.monotonic()
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                shardlab.compare(big, proposers=["greedy"], partitioners=["greedy_perf"],
                                 perf_models=["simulated"])
        finally:
            timer.cancel()
            signal.signal(signal.SIGINT, previous)
        self.assertLess(time.monotonic() - start, 3.0)

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_optimize_writes_the_plan_the_cli_writes(self):
        cli = os.environ["SHARDLAB_CLI"]
        out = subprocess.run([cli, "optimize", TINY, "--time-limit", "0", "--max-evaluations", "12",
                              "--no-record", "-q", "-o", "-"],
                             check=True, capture_output=True, text=True).stdout
        r = shardlab.optimize(TINY, time_limit=0, max_evaluations=12)
        self.assertEqual(json.loads(out), r["plan"])
        self.assertEqual(r["summary"]["stop"], "evaluation_limit")
        self.assertEqual(r["summary"]["reference"], "torchrec")
        self.assertLessEqual(r["summary"]["iteration_ms"], r["summary"]["start_iteration_ms"])
        with self.assertRaises(shardlab.InvalidScenarioError):
            shardlab.optimize(TINY, objective="fastest")

    def test_ctrl_c_keeps_optimizes_best_plan(self):
        # TorchRec's start plan of 300 tables on 64 ranks takes about 50 ms; the search by
        # simulated iteration time then runs for the whole minute unless stopped.
        big = big_scenario()
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        timer = threading.Timer(1.0, lambda: signal.raise_signal(signal.SIGINT))
        start = time.monotonic()
        timer.start()
        try:
            r = shardlab.optimize(big, time_limit=60)
        finally:
            timer.cancel()
            signal.signal(signal.SIGINT, previous)
        self.assertLess(time.monotonic() - start, 5.0)
        self.assertEqual(r["summary"]["stop"], "cancelled")
        self.assertEqual(set(r["plan"]["tables"]), {t["name"] for t in big["tables"]})

    def test_options_and_compare(self):
        listed = shardlab.options(TINY)
        self.assertEqual(listed["scenario"], "tiny_2gpu")
        self.assertGreater(len(listed["options"]), len(tiny()["tables"]))
        rows = shardlab.compare(TINY, proposers=["greedy", "uniform"], perf_models=["torchrec"])
        self.assertEqual(len(rows["rows"]), 4)
        with self.assertRaises(shardlab.InvalidScenarioError) as e:
            shardlab.compare(TINY, perf_models=["simulate"])
        self.assertIn("--perf-models: no row has", str(e.exception))

    def test_simulate_plans_or_takes_a_plan(self):
        planned = shardlab.plan(TINY)
        a = shardlab.simulate(TINY, iterations=3)
        b = shardlab.simulate(TINY, plan=planned, iterations=3)
        self.assertEqual(a["iterations"], 3)
        self.assertGreater(a["iteration_ms"], 0)
        self.assertEqual(a["iteration_ms"], b["iteration_ms"])
        self.assertEqual(a["host"]["mode"], "eager")

    def test_torchrec_version(self):
        self.assertEqual(shardlab.plan(TINY, torchrec_version="2024-02")["torchrec_version"],
                         "2024-02")
        with self.assertRaises(shardlab.InvalidScenarioError) as e:
            shardlab.plan(TINY, torchrec_version="2025")
        self.assertIn("2025", str(e.exception))

    def test_errors_are_typed_and_carry_the_message(self):
        bad = tiny()
        bad["topology"]["hbm_cpa"] = "16 GiB"
        with self.assertRaises(shardlab.InvalidScenarioError) as e:
            shardlab.validate(bad)
        self.assertIn("hbm_cpa", str(e.exception))
        self.assertTrue(isinstance(e.exception, shardlab.Error))
        with self.assertRaises(shardlab.Error) as e:
            shardlab.validate(os.path.join(SOURCE, "no-such-scenario.json"))
        self.assertIn("no-such-scenario.json", str(e.exception))
        full = tiny()
        full["topology"]["hbm_cap"] = "1 MB"
        with self.assertRaises(shardlab.PlanningFailedError) as e:
            shardlab.plan(full)
        self.assertEqual(e.exception.error_type, "insufficient_storage")
        with self.assertRaises(TypeError):
            shardlab.plan(42)
        self.assertEqual(shardlab.validate(TINY), {"valid": True})

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_options_filter_as_the_cli_does(self):
        name = tiny()["tables"][0]["name"]
        cli = subprocess.run([os.environ["SHARDLAB_CLI"], "options", TINY, "--table", name,
                              "--sharding-type", "row_wise", "-q", "--compact"],
                             check=True, capture_output=True, text=True)
        got = shardlab.options(TINY, tables=[name], sharding_types=["row_wise"])
        self.assertEqual(got, json.loads(cli.stdout))
        self.assertTrue(got["options"])
        with self.assertRaises(shardlab.InvalidScenarioError) as e:
            shardlab.options(TINY, tables=["no_such_table"])
        self.assertIn("no_such_table", str(e.exception))

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_validate_names_every_problem_as_the_cli_does(self):
        import tempfile
        bad = tiny()
        bad["topology"]["hbm_cpa"] = "16 GiB"
        bad["batch_size"] = 0
        bad["tables"][0]["embedding_dim"] = -1
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(bad, f)
            with self.assertRaises(shardlab.InvalidScenarioError) as e:
                shardlab.validate(path)
            cli = subprocess.run([os.environ["SHARDLAB_CLI"], "validate", path],
                                 capture_output=True, text=True)
        self.assertEqual(cli.returncode, 2)
        lines = [line[len("shardlab: error: "):] for line in cli.stderr.splitlines()]
        self.assertEqual(lines[-1], "3 problems in " + path)
        self.assertEqual(str(e.exception).splitlines(), lines[:-1])
        self.assertIn("hbm_cpa", lines[0])


SHARED = os.environ.get("SHARDLAB_SHARED_DIR", os.path.join(SOURCE, "..", "shared"))
V100 = os.path.join(SHARED, "traces", "v100_4rank_torchrec_dlrm")
V100_SCENARIO = os.path.join(SOURCE, "data", "scenarios", "validation",
                             "torchrec_golden_training_v100_4x4096.json")
V100_PLAN = os.path.join(SOURCE, "data", "scenarios", "validation", "plans",
                         "torchrec_golden_training_4gpu.plan.json")


@unittest.skipUnless(os.path.isdir(V100), "the shared traces (../shared/traces) are absent")
class TraceTest(unittest.TestCase):
    """Profiler traces from Python: the same documents as the CLI's."""

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_summaries_and_comparisons_are_the_clis(self):
        cli = os.environ["SHARDLAB_CLI"]
        out = subprocess.run([cli, "trace", "summarize", V100, "--format", "json", "--no-record",
                              "-o", "-"], check=True, capture_output=True, text=True).stdout
        summary = shardlab.summarize_trace(V100)
        self.assertEqual(json.loads(out), summary)
        self.assertEqual(len(summary["ranks"]), 4)
        out = subprocess.run([cli, "simulate", V100_SCENARIO, "--plan", V100_PLAN, "--against",
                              V100, "--against-json", "-", "--no-record", "-q"],
                             check=True, capture_output=True, text=True).stdout
        rows = shardlab.compare_with_trace(V100_SCENARIO, V100, plan=V100_PLAN)
        self.assertEqual(json.loads(out), rows)
        step = [r for r in rows["ranks"][0]["rows"] if r["what"] == "step"][0]
        self.assertGreater(step["measured_ms"], step["simulated_ms"])

    @unittest.skipUnless(os.environ.get("SHARDLAB_CLI"), "SHARDLAB_CLI names the shardlab binary")
    def test_calibration_from_traces_is_the_clis(self):
        cli = os.environ["SHARDLAB_CLI"]
        a100 = os.path.join(SHARED, "traces", "a100_8rank_prod")
        out = subprocess.run([cli, "calibrate", "--from-trace", a100, "--gpu", "a100-sxm4-80gb",
                              "-o", "-", "-q", "--no-record"],
                             check=True, capture_output=True, text=True).stdout
        from_cli = json.loads(out)
        profile = shardlab.calibrate_from_trace(a100, gpu="a100-sxm4-80gb")
        for doc in (from_cli, profile):
            doc.pop("created", None)
        self.assertEqual(from_cli, profile)
        self.assertIn("tf32", profile["parameters"]["dense"]["gemm_efficiency"])
        # With the job's scenario and plan, its lookups too; the profile rates a plan.
        profile = shardlab.calibrate_from_trace(V100, scenario=V100_SCENARIO, plan=V100_PLAN,
                                                local_world_size=4)
        self.assertTrue(profile["parameters"]["compute"])
        self.assertIn("perf_rating_ms", shardlab.plan(V100_SCENARIO, calibration=profile))
        with self.assertRaises(shardlab.InvalidScenarioError) as e:
            shardlab.calibrate_from_trace(a100, gpu="nope")
        self.assertIn('no GPU preset named "nope"', str(e.exception))

    def test_a_cut_trace_is_named(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            cut = os.path.join(d, "rank-0.json")
            with open(cut, "w", encoding="utf-8") as f:
                f.write('{"traceEvents": [{"ph": "X", "name": ')
            with self.assertRaises(shardlab.InvalidScenarioError) as e:
                shardlab.summarize_trace(cut)
            self.assertIn("rank-0.json: not a complete trace", str(e.exception))
            with self.assertRaises(shardlab.InvalidScenarioError):
                shardlab.compare_with_trace(V100_SCENARIO, [cut])


if __name__ == "__main__":
    unittest.main()
