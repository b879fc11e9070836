"""DuckDB schema of the benchdeck store, as an ordered list of migrations.

Each migration is applied once, in a transaction, and recorded in ``schema_version``.
Never edit a released migration: append a new one.
"""

from __future__ import annotations

from typing import Final

MIGRATIONS: Final[tuple[tuple[int, str], ...]] = (
    (
        1,
        """
        CREATE SEQUENCE host_id_seq START 1;
        CREATE SEQUENCE build_id_seq START 1;
        CREATE SEQUENCE workload_id_seq START 1;
        CREATE SEQUENCE run_id_seq START 1;

        CREATE TABLE hosts (
            host_id     INTEGER PRIMARY KEY DEFAULT nextval('host_id_seq'),
            name        VARCHAR NOT NULL UNIQUE,
            ncpu        INTEGER,
            facts       JSON,
            facts_at    TIMESTAMP
        );

        CREATE TABLE builds (
            build_id    INTEGER PRIMARY KEY DEFAULT nextval('build_id_seq'),
            name        VARCHAR NOT NULL UNIQUE,
            dbms        VARCHAR NOT NULL,
            version     VARCHAR NOT NULL,
            version_key VARCHAR NOT NULL,
            fork        VARCHAR NOT NULL DEFAULT '',
            variant     VARCHAR NOT NULL DEFAULT ''
        );

        CREATE TABLE workloads (
            workload_id INTEGER PRIMARY KEY DEFAULT nextval('workload_id_seq'),
            name        VARCHAR NOT NULL UNIQUE,
            family      VARCHAR NOT NULL DEFAULT 'sysbench'
        );

        CREATE TABLE runs (
            run_id      BIGINT PRIMARY KEY DEFAULT nextval('run_id_seq'),
            host_id     INTEGER NOT NULL REFERENCES hosts(host_id),
            build_id    INTEGER NOT NULL REFERENCES builds(build_id),
            workload_id INTEGER NOT NULL REFERENCES workloads(workload_id),
            config      VARCHAR NOT NULL DEFAULT '',
            threads     INTEGER,
            tables      INTEGER,
            table_size  BIGINT,
            device      VARCHAR,
            status      VARCHAR NOT NULL DEFAULT 'running',
            source      VARCHAR NOT NULL,
            source_path VARCHAR,
            command     VARCHAR,
            params      JSON,
            tags        VARCHAR[] NOT NULL DEFAULT [],
            error       VARCHAR,
            created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp,
            started_at  TIMESTAMP,
            finished_at TIMESTAMP
        );

        CREATE TABLE run_summary (
            run_id        BIGINT PRIMARY KEY REFERENCES runs(run_id),
            qps           DOUBLE,
            tps           DOUBLE,
            eps           DOUBLE,
            lat_avg_ms    DOUBLE,
            lat_pct_ms    DOUBLE,
            lat_pct       DOUBLE,
            lat_max_ms    DOUBLE,
            total_events  BIGINT,
            elapsed_s     DOUBLE,
            cpu_o         DOUBLE,
            cs_o          DOUBLE,
            r_o           DOUBLE,
            rkb_o         DOUBLE,
            wkb_o         DOUBLE,
            cpu_us_o      DOUBLE,
            bench_samples INTEGER NOT NULL DEFAULT 0,
            vm_samples    INTEGER NOT NULL DEFAULT 0,
            io_samples    INTEGER NOT NULL DEFAULT 0,
            tool_version  VARCHAR
        );

        CREATE TABLE bench_samples (
            run_id       BIGINT NOT NULL,
            t            DOUBLE NOT NULL,
            threads      INTEGER,
            tps          DOUBLE,
            qps          DOUBLE,
            reads        DOUBLE,
            writes       DOUBLE,
            other        DOUBLE,
            latency_ms   DOUBLE,
            latency_pct  DOUBLE,
            errors_s     DOUBLE,
            reconnects_s DOUBLE
        );

        CREATE TABLE vmstat_samples (
            run_id BIGINT NOT NULL,
            seq    INTEGER NOT NULL,
            r BIGINT, b BIGINT, swpd BIGINT, free BIGINT, buff BIGINT, cache BIGINT,
            si BIGINT, so BIGINT, bi BIGINT, bo BIGINT, "in" BIGINT, cs BIGINT,
            us INTEGER, sy INTEGER, id INTEGER, wa INTEGER, st INTEGER, gu INTEGER,
            ts VARCHAR
        );

        CREATE TABLE iostat_samples (
            run_id  BIGINT NOT NULL,
            seq     INTEGER NOT NULL,
            device  VARCHAR NOT NULL,
            r_s     DOUBLE, w_s DOUBLE, rkb_s DOUBLE, wkb_s DOUBLE,
            rrqm_s  DOUBLE, wrqm_s DOUBLE, r_await DOUBLE, w_await DOUBLE,
            aqu_sz  DOUBLE, util DOUBLE,
            ts      VARCHAR
        );

        -- Lines a parser could not use: kept, never silently dropped.
        CREATE TABLE skipped_lines (
            run_id BIGINT NOT NULL,
            source VARCHAR NOT NULL,
            lineno INTEGER NOT NULL,
            text   VARCHAR NOT NULL,
            reason VARCHAR NOT NULL
        );

        -- The raw text of imported files, so nothing is lost to a parser's limits.
        CREATE TABLE raw_files (
            run_id  BIGINT NOT NULL,
            kind    VARCHAR NOT NULL,
            name    VARCHAR NOT NULL,
            content VARCHAR NOT NULL
        );
        -- Sample tables have no index on purpose: rows arrive in run order, so DuckDB's
        -- zone maps already prune by run_id, and appends stay fast.
        """,
    ),
    (
        2,
        """
        -- Remote processes of a started run, so a later benchdeck can reattach and backfill.
        CREATE TABLE remote_runs (
            run_id     BIGINT PRIMARY KEY REFERENCES runs(run_id),
            host       VARCHAR NOT NULL,
            remote_dir VARCHAR NOT NULL,
            procs      JSON NOT NULL,
            plan       JSON NOT NULL,
            started_at TIMESTAMP
        );
        """,
    ),
    (
        3,
        """
        -- A run matrix (hosts x builds x workloads): hosts in parallel, each host serially.
        CREATE SEQUENCE queue_id_seq START 1;
        CREATE SEQUENCE queue_item_id_seq START 1;
        CREATE TABLE queues (
            queue_id   INTEGER PRIMARY KEY DEFAULT nextval('queue_id_seq'),
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
            options    JSON NOT NULL
        );
        CREATE TABLE queue_items (
            item_id  INTEGER PRIMARY KEY DEFAULT nextval('queue_item_id_seq'),
            queue_id INTEGER NOT NULL REFERENCES queues(queue_id),
            position INTEGER NOT NULL,
            host     VARCHAR NOT NULL,
            build    VARCHAR NOT NULL,
            workload VARCHAR NOT NULL,
            status   VARCHAR NOT NULL DEFAULT 'pending',
            run_id   BIGINT
        );
        """,
    ),
    (
        4,
        """
        -- DuckDB checks foreign keys against committed rows and runs an UPDATE as delete +
        -- insert, so rows referencing runs(run_id) made every later UPDATE of a finished run
        -- (status, tags) fail. Recreate the two referencing tables without the constraint.
        CREATE TABLE run_summary_v4 (
            run_id        BIGINT PRIMARY KEY,
            qps           DOUBLE,
            tps           DOUBLE,
            eps           DOUBLE,
            lat_avg_ms    DOUBLE,
            lat_pct_ms    DOUBLE,
            lat_pct       DOUBLE,
            lat_max_ms    DOUBLE,
            total_events  BIGINT,
            elapsed_s     DOUBLE,
            cpu_o         DOUBLE,
            cs_o          DOUBLE,
            r_o           DOUBLE,
            rkb_o         DOUBLE,
            wkb_o         DOUBLE,
            cpu_us_o      DOUBLE,
            bench_samples INTEGER NOT NULL DEFAULT 0,
            vm_samples    INTEGER NOT NULL DEFAULT 0,
            io_samples    INTEGER NOT NULL DEFAULT 0,
            tool_version  VARCHAR
        );
        INSERT INTO run_summary_v4 SELECT * FROM run_summary;
        DROP TABLE run_summary;
        ALTER TABLE run_summary_v4 RENAME TO run_summary;

        CREATE TABLE remote_runs_v4 (
            run_id     BIGINT PRIMARY KEY,
            host       VARCHAR NOT NULL,
            remote_dir VARCHAR NOT NULL,
            procs      JSON NOT NULL,
            plan       JSON NOT NULL,
            started_at TIMESTAMP
        );
        INSERT INTO remote_runs_v4 SELECT * FROM remote_runs;
        DROP TABLE remote_runs;
        ALTER TABLE remote_runs_v4 RENAME TO remote_runs;
        """,
    ),
    (
        5,
        """
        -- A queue item may name one of the build's server configurations (NULL: its default).
        ALTER TABLE queue_items ADD COLUMN config VARCHAR;
        """,
    ),
    (
        6,
        """
        -- Where a run's per-op metrics came from: 'computed' (from its vmstat/iostat samples) or
        -- 'imported' (the source's own per-op table, e.g. a mytools sb.met file); NULL: none.
        -- per_op_ops is the o/s those metrics are per, as the source printed it (NULL: the QPS).
        ALTER TABLE run_summary ADD COLUMN per_op_source VARCHAR;
        ALTER TABLE run_summary ADD COLUMN per_op_ops DOUBLE;

        -- Raw files are kept compressed: codec 'zstd' (or 'none'), size = uncompressed bytes.
        CREATE TABLE raw_files_v6 (
            run_id BIGINT NOT NULL,
            kind   VARCHAR NOT NULL,
            name   VARCHAR NOT NULL,
            codec  VARCHAR NOT NULL,
            size   BIGINT NOT NULL,
            data   BLOB NOT NULL
        );
        INSERT INTO raw_files_v6
            SELECT run_id, kind, name, 'none', octet_length(encode(content)), encode(content) FROM raw_files;
        DROP TABLE raw_files;
        ALTER TABLE raw_files_v6 RENAME TO raw_files;
        """,
    ),
    (
        7,
        """
        -- What a run ran on, captured when it ran (host facts, DBMS version, its variables and
        -- config files, the server binary's version and git commit, the command lines), so two
        -- runs can be explained. (The tools' raw outputs go to raw_files, kind 'output'.)
        CREATE TABLE run_records (
            run_id         BIGINT PRIMARY KEY,
            host_facts     JSON,
            dbms_version   VARCHAR,
            variables      JSON,
            config_files   JSON,
            binary_version VARCHAR,
            git_commit     VARCHAR,
            commands       JSON,
            notes          JSON,
            recorded_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        """,
    ),
    (
        8,
        """
        -- Builds compiled by benchdeck (benchdeck build / pgo): every attempt, its flags, compiler,
        -- duration and binary size; a finished one is registered as a build of its host. Ids
        -- come from the runs' sequence, so a build and a run never share one (Live keys by id).
        CREATE TABLE build_records (
            build_run_id     BIGINT PRIMARY KEY DEFAULT nextval('run_id_seq'),
            host             VARCHAR NOT NULL,
            name             VARCHAR NOT NULL,
            recipe           VARCHAR NOT NULL,
            variant          VARCHAR NOT NULL,
            base_variant     VARCHAR,
            dbms             VARCHAR NOT NULL,
            version          VARCHAR NOT NULL,
            status           VARCHAR NOT NULL DEFAULT 'queued',
            prefix           VARCHAR NOT NULL,
            binary_path      VARCHAR NOT NULL,
            library_dir      VARCHAR,
            cflags           VARCHAR NOT NULL,
            ldflags          VARCHAR NOT NULL,
            spec             JSON NOT NULL,
            compiler         VARCHAR,
            compiler_version VARCHAR,
            duration_s       DOUBLE,
            step_seconds     JSON,
            binary_size      BIGINT,
            profile_dir      VARCHAR,
            profile_files    INTEGER,
            missing_profiles INTEGER,
            training         JSON,
            measured         JSON,
            probe            VARCHAR,
            remote_dir       VARCHAR,
            procs            JSON,
            error            VARCHAR,
            log_tail         VARCHAR,
            created_at       TIMESTAMP NOT NULL DEFAULT current_timestamp,
            started_at       TIMESTAMP,
            finished_at      TIMESTAMP
        );
        """,
    ),
    (
        9,
        """
        -- Views for the common questions (run_results, bench_series, vmstat_series,
        -- iostat_series) and comments on tables and columns: store/storage/views.py, re-applied after
        -- every migration.
        SELECT 1;
        """,
    ),
    (
        10,
        """
        -- Imported runs known by what they are, not where they were read (issue 24): a hash of
        -- the benchmark's output file (store/importers/identity.py), NULL for runs benchdeck
        -- ran; and which evidence dated the run (store/importers/dating.py). Runs imported
        -- before have NULL in both: the next import fills content_key from their raw files.
        ALTER TABLE runs ADD COLUMN content_key VARCHAR;
        ALTER TABLE runs ADD COLUMN dated_from VARCHAR;
        """,
    ),
    (
        11,
        """
        -- vmstat and iostat sample times as TIMESTAMP in their tables (were the tools' text,
        -- TIMESTAMP only in the views): the stored strings parsed with the formats vmstat -t and
        -- iostat -t print (ISO, or the locale's); NULL where a tool printed none.
        ALTER TABLE vmstat_samples ALTER COLUMN ts TYPE TIMESTAMP USING try_strptime(ts, [
            '%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S%z', '%m/%d/%y %H:%M:%S', '%m/%d/%Y %I:%M:%S %p',
            '%m/%d/%Y %H:%M:%S', '%d/%m/%y %H:%M:%S'])::TIMESTAMP;
        ALTER TABLE iostat_samples ALTER COLUMN ts TYPE TIMESTAMP USING try_strptime(ts, [
            '%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S%z', '%m/%d/%y %H:%M:%S', '%m/%d/%Y %I:%M:%S %p',
            '%m/%d/%Y %H:%M:%S', '%d/%m/%y %H:%M:%S'])::TIMESTAMP;
        """,
    ),
    (
        12,
        """
        -- Counters and CPU profiles (engine/profiling/records.py). A window is one perf stat
        -- or perf record window of a run; value is NULL when perf did not count the event
        -- (status says why), never 0. Versions 10 and 11 are left for other migrations.
        CREATE TABLE counter_windows (
            run_id     BIGINT NOT NULL,
            window_no  INTEGER NOT NULL,
            start_s    DOUBLE,
            seconds    DOUBLE NOT NULL,
            target     VARCHAR NOT NULL DEFAULT '',
            source     VARCHAR NOT NULL
        );
        CREATE TABLE counter_values (
            run_id      BIGINT NOT NULL,
            window_no   INTEGER NOT NULL,
            event       VARCHAR NOT NULL,
            value       DOUBLE,
            unit        VARCHAR NOT NULL DEFAULT '',
            running_pct DOUBLE,
            status      VARCHAR NOT NULL
        );
        CREATE TABLE profile_windows (
            run_id       BIGINT NOT NULL,
            window_no    INTEGER NOT NULL,
            start_s      DOUBLE,
            seconds      DOUBLE NOT NULL,
            event        VARCHAR NOT NULL,
            frequency_hz DOUBLE,
            samples      BIGINT NOT NULL,
            target       VARCHAR NOT NULL DEFAULT '',
            source       VARCHAR NOT NULL
        );
        CREATE TABLE profile_stacks (
            run_id    BIGINT NOT NULL,
            window_no INTEGER NOT NULL,
            stack     VARCHAR NOT NULL,
            samples   BIGINT NOT NULL
        );
        -- A window the capture did not take (perf killed on the host, the target gone).
        CREATE TABLE capture_gaps (
            run_id    BIGINT NOT NULL,
            kind      VARCHAR NOT NULL,
            window_no INTEGER NOT NULL,
            start_s   DOUBLE,
            reason    VARCHAR NOT NULL
        );
        """,
    ),
    (
        13,
        """
        -- A queue is a matrix of concurrencies and repeats too (issue 28): an item's client
        -- threads (NULL: the queue's options) and which repeat of its cell it is (1-based;
        -- NULL: a queue made before repeats, one run per cell).
        ALTER TABLE queue_items ADD COLUMN threads INTEGER;
        ALTER TABLE queue_items ADD COLUMN repeat_no INTEGER;
        """,
    ),
    (
        14,
        """
        -- A run on a cluster (issue 41): the run's host is its primary's; the cluster's nodes,
        -- each replica's lag per second, each node's vmstat/iostat and faults. The summary
        -- columns (lag_*, over_limit, per-op) are filled when the run ends
        -- (store/storage/cluster_summary.py), from the rows below.
        CREATE TABLE run_clusters (
            run_id      BIGINT PRIMARY KEY,
            cluster     VARCHAR NOT NULL,
            kind        VARCHAR NOT NULL,
            lag_limit_s DOUBLE NOT NULL,
            lag_max_s   DOUBLE,
            lag_p95_s   DOUBLE,
            over_limit  BOOLEAN,
            faults      INTEGER NOT NULL DEFAULT 0,
            cpu_o DOUBLE, cs_o DOUBLE, r_o DOUBLE, rkb_o DOUBLE, wkb_o DOUBLE
        );
        CREATE TABLE cluster_nodes (
            run_id      BIGINT NOT NULL,
            node        VARCHAR NOT NULL,
            host        VARCHAR NOT NULL,
            role        VARCHAR NOT NULL,
            port        INTEGER,
            lag_max_s   DOUBLE,
            lag_p95_s   DOUBLE,
            lag_samples INTEGER NOT NULL DEFAULT 0,
            cpu_o DOUBLE, cs_o DOUBLE, r_o DOUBLE, rkb_o DOUBLE, wkb_o DOUBLE
        );
        CREATE TABLE replica_lag (
            run_id       BIGINT NOT NULL,
            node         VARCHAR NOT NULL,
            t            DOUBLE NOT NULL,
            lag_s        DOUBLE,
            behind_bytes BIGINT,
            behind_trx   BIGINT,
            paused_s     DOUBLE,
            state        VARCHAR NOT NULL
        );
        CREATE TABLE node_vmstat_samples (
            run_id BIGINT NOT NULL,
            node   VARCHAR NOT NULL,
            seq    INTEGER NOT NULL,
            r BIGINT, b BIGINT, swpd BIGINT, free BIGINT, buff BIGINT, cache BIGINT,
            si BIGINT, so BIGINT, bi BIGINT, bo BIGINT, "in" BIGINT, cs BIGINT,
            us INTEGER, sy INTEGER, id INTEGER, wa INTEGER, st INTEGER, gu INTEGER
        );
        CREATE TABLE node_iostat_samples (
            run_id  BIGINT NOT NULL,
            node    VARCHAR NOT NULL,
            seq     INTEGER NOT NULL,
            device  VARCHAR NOT NULL,
            r_s     DOUBLE, w_s DOUBLE, rkb_s DOUBLE, wkb_s DOUBLE,
            rrqm_s  DOUBLE, wrqm_s DOUBLE, r_await DOUBLE, w_await DOUBLE,
            aqu_sz  DOUBLE, util DOUBLE
        );
        CREATE TABLE node_faults (
            run_id BIGINT NOT NULL,
            node   VARCHAR NOT NULL,
            t      DOUBLE NOT NULL,
            kind   VARCHAR NOT NULL,
            reason VARCHAR NOT NULL
        );
        """,
    ),
)

LATEST_VERSION: Final[int] = max(version for version, _ in MIGRATIONS)
