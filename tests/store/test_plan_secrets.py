"""A run's plan is stored with its passwords masked; everything else round-trips."""

from __future__ import annotations

import json
from dataclasses import fields, replace

from benchdeck.engine.planning.plan import REDACTED, RunPlan
from benchdeck.store.storage.live import plan_from_dict, plan_to_dict


def test_passwords_are_masked_in_argv_and_env_and_the_rest_round_trips() -> None:
    plan = RunPlan(
        run_id=7,
        host="h",
        workload="point-query_range=100",
        remote_dir="/r",
        bench_argv=("sysbench", "--mysql-password=s3cret", "--mysql-user=root", "run"),
        duration_s=300,
        prepare_argv=("sysbench", "--pgsql-password=s3cret", "prepare"),
        warmup_argv=("python3", "-m", "client", "--password=s3cret"),
        tables_exist_argv=("/usr/bin/mariadb", "-P3306", "-uroot", "-ps3cret", "-p", "sbtest"),
        env=(("PGPASSWORD", "s3cret"), ("MYSQL_PWD", "s3cret"), ("LANG", "C")),
    )
    stored = plan_to_dict(plan)
    assert "s3cret" not in json.dumps(stored)
    back = plan_from_dict(json.loads(json.dumps(stored)))
    assert back.bench_argv == ("sysbench", f"--mysql-password={REDACTED}", "--mysql-user=root", "run")
    assert back.prepare_argv == ("sysbench", f"--pgsql-password={REDACTED}", "prepare")
    assert back.warmup_argv == ("python3", "-m", "client", f"--password={REDACTED}")
    assert back.tables_exist_argv == ("/usr/bin/mariadb", "-P3306", "-uroot", f"-p{REDACTED}", "-p", "sbtest")
    assert back.env == (("PGPASSWORD", REDACTED), ("MYSQL_PWD", REDACTED), ("LANG", "C"))
    assert back == plan.redacted()
    assert (back.run_id, back.workload, back.duration_s) == (7, "point-query_range=100", 300)


def test_a_port_flag_of_other_tools_is_left_alone() -> None:
    plan = RunPlan(1, "h", "pgbench.select-only", "/r", ("pgbench", "-p5432", "-h", "db"), 60)
    assert plan.redacted().bench_argv == ("pgbench", "-p5432", "-h", "db")


def test_every_command_line_of_a_plan_is_masked() -> None:
    """A new ``*_argv`` field of RunPlan must be masked and unmasked like the others."""
    argvs = {f.name for f in fields(RunPlan) if f.name.endswith("_argv")}
    plan = RunPlan(1, "h", "w", "/r", ("sysbench", "--mysql-password=pw"), 10)
    plan = replace(plan, **dict.fromkeys(argvs - {"bench_argv"}, ("tool", "--password=pw")))
    masked = plan.redacted()
    assert {name: getattr(masked, name)[-1] for name in argvs} == {
        name: ("--mysql-password=" if name == "bench_argv" else "--password=") + REDACTED for name in argvs
    }
    assert masked.with_secret("pw") == plan
