"""The nine TPC-C tables, their load, and the spec's random data (TPC-C 5.11, clauses 1, 2.1.6, 4.3).

Scaled down so one warehouse loads in seconds: ``items`` (spec 100,000) and ``customers`` per
district (spec 3,000, also the initial orders per district) are options; 10 districts per
warehouse as in the spec. Values go through the drivers' ``%s`` placeholders; table names are
the constants below. The drivers come from :mod:`benchdeck.engine.families.insertbench.schema`.
"""

# ruff: noqa: S608 - table names are the constants of TABLES; values are bound parameters
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from benchdeck.engine.families.insertbench.schema import is_postgres

DISTRICTS = 10
SYLLABLES = ("BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING")
BATCH = 500  # rows per multi-row INSERT of the load

TABLES: dict[str, str] = {
    "warehouse": "w_id int NOT NULL, w_name varchar(10), w_street_1 varchar(20), w_city varchar(20), "
    "w_state char(2), w_zip char(9), w_tax decimal(4,4), w_ytd decimal(12,2), PRIMARY KEY (w_id)",
    "district": "d_id int NOT NULL, d_w_id int NOT NULL, d_name varchar(10), d_street_1 varchar(20), "
    "d_city varchar(20), d_state char(2), d_zip char(9), d_tax decimal(4,4), d_ytd decimal(12,2), "
    "d_next_o_id int, PRIMARY KEY (d_w_id, d_id)",
    "customer": "c_id int NOT NULL, c_d_id int NOT NULL, c_w_id int NOT NULL, c_first varchar(16), "
    "c_middle char(2), c_last varchar(16), c_street_1 varchar(20), c_city varchar(20), c_state char(2), "
    "c_zip char(9), c_phone char(16), c_since timestamp, c_credit char(2), c_credit_lim decimal(12,2), "
    "c_discount decimal(4,4), c_balance decimal(12,2), c_ytd_payment decimal(12,2), "
    "c_payment_cnt int, c_delivery_cnt int, c_data varchar(500), PRIMARY KEY (c_w_id, c_d_id, c_id)",
    "history": "h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date timestamp, "
    "h_amount decimal(6,2), h_data varchar(24)",
    "new_order": "no_o_id int NOT NULL, no_d_id int NOT NULL, no_w_id int NOT NULL, "
    "PRIMARY KEY (no_w_id, no_d_id, no_o_id)",
    "orders": "o_id int NOT NULL, o_d_id int NOT NULL, o_w_id int NOT NULL, o_c_id int, "
    "o_entry_d timestamp, o_carrier_id int, o_ol_cnt int, o_all_local int, "
    "PRIMARY KEY (o_w_id, o_d_id, o_id)",
    "order_line": "ol_o_id int NOT NULL, ol_d_id int NOT NULL, ol_w_id int NOT NULL, ol_number int NOT NULL, "
    "ol_i_id int, ol_supply_w_id int, ol_delivery_d timestamp, ol_quantity int, ol_amount decimal(6,2), "
    "ol_dist_info char(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)",
    "item": "i_id int NOT NULL, i_im_id int, i_name varchar(24), i_price decimal(5,2), i_data varchar(50), "
    "PRIMARY KEY (i_id)",
    "stock": "s_i_id int NOT NULL, s_w_id int NOT NULL, s_quantity int, s_dist_info char(24), s_ytd int, "
    "s_order_cnt int, s_remote_cnt int, s_data varchar(50), PRIMARY KEY (s_w_id, s_i_id)",
}
# Secondary indexes the transactions need (customer by last name, a customer's last order).
INDEXES = (
    ("customer", "tpcc_customer_last", "c_w_id, c_d_id, c_last, c_first"),
    ("orders", "tpcc_orders_customer", "o_w_id, o_d_id, o_c_id, o_id"),
)
LOADED = "tpcc_loaded"  # one row: what the last complete load made (warehouses, items, customers)


def last_name(n: int) -> str:
    """The spec's last name of number ``n`` (0..999): three syllables (clause 4.3.2.3)."""
    return SYLLABLES[n // 100] + SYLLABLES[n // 10 % 10] + SYLLABLES[n % 10]


def nurand(rng: random.Random, a: int, x: int, y: int, c: int = 42) -> int:
    """NURand(A, x, y), the spec's non-uniform random (clause 2.1.6)."""
    return (((rng.randint(0, a) | rng.randint(x, y)) + c) % (y - x + 1)) + x


def astring(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", k=rng.randint(lo, hi)))


def data_with_original(rng: random.Random, lo: int, hi: int) -> str:
    """i_data / s_data: 10 % of them contain ``ORIGINAL`` (clause 4.3.3.1)."""
    s = astring(rng, lo, hi)
    if rng.random() < 0.1:
        at = rng.randint(0, len(s) - 8)
        s = s[:at] + "ORIGINAL" + s[at + 8 :]
    return s


def _place(rng: random.Random) -> tuple[str, str, str, str, str]:
    """A warehouse's or district's name, street, city, state and zip (clause 4.3.3.1)."""
    return astring(rng, 6, 10), astring(rng, 10, 20), astring(rng, 10, 20), "CA", "123411111"


def drop_sql(dbms: str) -> list[str]:
    tail = " CASCADE" if is_postgres(dbms) else ""
    return [f"DROP TABLE IF EXISTS {t}{tail}" for t in (*TABLES, LOADED)]


def create_sql(dbms: str) -> list[str]:
    engine = "" if is_postgres(dbms) else " ENGINE=InnoDB"
    out = [f"CREATE TABLE {t} ({cols}){engine}" for t, cols in TABLES.items()]
    out += [f"CREATE INDEX {name} ON {t} ({cols})" for t, name, cols in INDEXES]
    out.append(f"CREATE TABLE {LOADED} (warehouses int, items int, customers int){engine}")
    return out


def loaded_sql() -> str:
    return f"SELECT warehouses, items, customers FROM {LOADED}"


def _insert(cur: Any, table: str, rows: Sequence[Sequence[Any]]) -> None:
    for at in range(0, len(rows), BATCH):
        chunk = rows[at : at + BATCH]
        row = "(" + ", ".join(["%s"] * len(chunk[0])) + ")"
        cur.execute(
            f"INSERT INTO {table} VALUES " + ", ".join([row] * len(chunk)), [v for r in chunk for v in r]
        )


def load(
    conn: Any, dbms: str, warehouses: int, items: int, customers: int, seed: int, say: Callable[[str], None]
) -> None:
    """Drop and create the tables, load ``warehouses`` warehouses (a commit per table and
    warehouse), then record the load in ``tpcc_loaded`` (its presence marks it complete)."""
    rng = random.Random(seed)  # noqa: S311 (benchmark data, not secrets)
    cur = conn.cursor()
    for sql in drop_sql(dbms) + create_sql(dbms):
        cur.execute(sql)
    conn.commit()
    rows: list[Sequence[Any]] = []
    for i in range(1, items + 1):
        rows.append(
            (
                i,
                rng.randint(1, 10_000),
                astring(rng, 14, 24),
                round(rng.uniform(1, 100), 2),
                data_with_original(rng, 26, 50),
            )
        )
    _insert(cur, "item", rows)
    conn.commit()
    now = "2026-01-01 00:00:00"
    for w in range(1, warehouses + 1):
        tax = round(rng.uniform(0, 0.2), 4)
        _insert(cur, "warehouse", [(w, *_place(rng), tax, 300000.0)])
        _insert(
            cur,
            "stock",
            [
                (i, w, rng.randint(10, 100), astring(rng, 24, 24), 0, 0, 0, data_with_original(rng, 26, 50))
                for i in range(1, items + 1)
            ],
        )
        for d in range(1, DISTRICTS + 1):
            _load_district(cur, rng, w, d, items, customers, now)
        conn.commit()
        say(f"loaded warehouse {w} of {warehouses}")
    cur.execute(f"INSERT INTO {LOADED} VALUES (%s, %s, %s)", (warehouses, items, customers))
    conn.commit()


def _load_district(
    cur: Any, rng: random.Random, w: int, d: int, items: int, customers: int, now: str
) -> None:
    tax = round(rng.uniform(0, 0.2), 4)
    _insert(cur, "district", [(d, w, *_place(rng), tax, 30000.0, customers + 1)])
    cust, hist = [], []
    for c in range(1, customers + 1):
        name = last_name(c - 1 if c <= 1000 else nurand(rng, 255, 0, 999))
        credit = "BC" if rng.random() < 0.1 else "GC"
        cust.append(
            (
                c,
                d,
                w,
                astring(rng, 8, 16),
                "OE",
                name,
                astring(rng, 10, 20),
                astring(rng, 10, 20),
                "CA",
                "123411111",
                "1234567890123456",
                now,
                credit,
                50000.0,
                round(rng.uniform(0, 0.5), 4),
                -10.0,
                10.0,
                1,
                0,
                astring(rng, 300, 500),
            )
        )
        hist.append((c, d, w, d, w, now, 10.0, astring(rng, 12, 24)))
    _insert(cur, "customer", cust)
    _insert(cur, "history", hist)
    perm = list(range(1, customers + 1))
    rng.shuffle(perm)
    orders, lines, new = [], [], []
    undelivered = customers - customers * 3 // 10  # the last 30 % of the orders are new orders
    for o in range(1, customers + 1):
        n, delivered = rng.randint(5, 15), o <= undelivered
        orders.append((o, d, w, perm[o - 1], now, rng.randint(1, 10) if delivered else None, n, 1))
        for k in range(1, n + 1):
            amount = 0.0 if delivered else round(rng.uniform(0.01, 9999.99), 2)
            lines.append(
                (
                    o,
                    d,
                    w,
                    k,
                    rng.randint(1, items),
                    w,
                    now if delivered else None,
                    5,
                    amount,
                    astring(rng, 24, 24),
                )
            )
        if not delivered:
            new.append((o, d, w))
    _insert(cur, "orders", orders)
    _insert(cur, "order_line", lines)
    if new:
        _insert(cur, "new_order", new)
