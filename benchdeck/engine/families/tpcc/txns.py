"""The five TPC-C transactions (TPC-C 5.11 clause 2), as one terminal runs them without keying
or think time. Each runs on an open transaction and returns False when it rolled back on
purpose (the 1 % of New-Orders with an unused item number, clause 2.4.1.4); the caller commits.
"""

# ruff: noqa: S608 - no SQL text is built from values: every value is a bound parameter
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from benchdeck.engine.families.tpcc.schema import DISTRICTS, last_name, nurand

NAMES = ("new_order", "payment", "order_status", "delivery", "stock_level")
# The spec's minimum mix (clause 5.2.3), New-Order taking the rest: ~45/43/4/4/4.
WEIGHTS = (45, 43, 4, 4, 4)


@dataclass(frozen=True, slots=True)
class Terminal:
    """What a worker needs: its home warehouse and the scale of the load."""

    w: int
    warehouses: int
    items: int
    customers: int
    for_update: str = " FOR UPDATE"


def _customer(cur: Any, t: Terminal, rng: random.Random, w: int, d: int) -> int:
    """60 % by last name (the middle one of those with that name, clause 2.5.2.2), else by id."""
    if rng.random() < 0.6:
        cur.execute(
            "SELECT c_id FROM customer WHERE c_w_id = %s AND c_d_id = %s AND c_last = %s ORDER BY c_first",
            (w, d, last_name(nurand(rng, 255, 0, min(999, t.customers - 1)))),
        )
        ids = [r[0] for r in cur.fetchall()]
        if ids:
            return int(ids[(len(ids) - 1) // 2])
    return nurand(rng, 1023, 1, t.customers)


def new_order(cur: Any, t: Terminal, rng: random.Random) -> bool:
    w, d, c = t.w, rng.randint(1, DISTRICTS), nurand(rng, 1023, 1, t.customers)
    n, rollback = rng.randint(5, 15), rng.random() < 0.01
    picks = sorted(nurand(rng, 8191, 1, t.items) for _ in range(n))  # sorted: fewer deadlocks
    supply = [w if t.warehouses == 1 or rng.random() >= 0.01 else rng.randint(1, t.warehouses) for _ in picks]
    if rollback:
        picks[-1] = t.items + 1  # an unused item: the transaction rolls back
    cur.execute(
        "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
        (w, d, c),
    )
    cur.fetchall()
    cur.execute("SELECT w_tax FROM warehouse WHERE w_id = %s", (w,))
    cur.fetchall()
    cur.execute(
        f"SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = %s AND d_id = %s{t.for_update}", (w, d)
    )
    (_, o_id), *_ = cur.fetchall()
    cur.execute("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = %s AND d_id = %s", (w, d))
    local = int(all(s == w for s in supply))
    cur.execute(
        "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
        "o_all_local) VALUES (%s, %s, %s, %s, CURRENT_TIMESTAMP, NULL, %s, %s)",
        (o_id, d, w, c, n, local),
    )
    cur.execute("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (%s, %s, %s)", (o_id, d, w))
    for k, (i, sw) in enumerate(zip(picks, supply, strict=True), start=1):
        cur.execute("SELECT i_price FROM item WHERE i_id = %s", (i,))
        rows = cur.fetchall()
        if not rows:
            return False
        qty = rng.randint(1, 10)
        cur.execute(
            f"SELECT s_quantity, s_dist_info FROM stock WHERE s_w_id = %s AND s_i_id = %s{t.for_update}",
            (sw, i),
        )
        (s_qty, dist), *_ = cur.fetchall()
        new_qty = s_qty - qty if s_qty >= qty + 10 else s_qty - qty + 91
        cur.execute(
            "UPDATE stock SET s_quantity = %s, s_ytd = s_ytd + %s, s_order_cnt = s_order_cnt + 1, "
            "s_remote_cnt = s_remote_cnt + %s WHERE s_w_id = %s AND s_i_id = %s",
            (new_qty, qty, int(sw != w), sw, i),
        )
        cur.execute(
            "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
            "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) "
            "VALUES (%s, %s, %s, %s, %s, %s, NULL, %s, %s, %s)",
            (o_id, d, w, k, i, sw, qty, round(qty * float(rows[0][0]), 2), dist),
        )
    return True


def payment(cur: Any, t: Terminal, rng: random.Random) -> bool:
    w, d, amount = t.w, rng.randint(1, DISTRICTS), round(rng.uniform(1, 5000), 2)
    cw, cd = (
        (w, d)
        if t.warehouses == 1 or rng.random() < 0.85
        else (rng.randint(1, t.warehouses), rng.randint(1, DISTRICTS))
    )
    cur.execute("UPDATE warehouse SET w_ytd = w_ytd + %s WHERE w_id = %s", (amount, w))
    cur.execute("SELECT w_name FROM warehouse WHERE w_id = %s", (w,))
    cur.fetchall()
    cur.execute("UPDATE district SET d_ytd = d_ytd + %s WHERE d_w_id = %s AND d_id = %s", (amount, w, d))
    cur.execute("SELECT d_name FROM district WHERE d_w_id = %s AND d_id = %s", (w, d))
    cur.fetchall()
    c = _customer(cur, t, rng, cw, cd)
    cur.execute(
        f"SELECT c_credit FROM customer WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s{t.for_update}",
        (cw, cd, c),
    )
    cur.fetchall()
    cur.execute(
        "UPDATE customer SET c_balance = c_balance - %s, c_ytd_payment = c_ytd_payment + %s, "
        "c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
        (amount, amount, cw, cd, c),
    )
    cur.execute(
        "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
        "VALUES (%s, %s, %s, %s, %s, CURRENT_TIMESTAMP, %s, %s)",
        (c, cd, cw, d, w, amount, "payment"),
    )
    return True


def order_status(cur: Any, t: Terminal, rng: random.Random) -> bool:
    w, d = t.w, rng.randint(1, DISTRICTS)
    c = _customer(cur, t, rng, w, d)
    cur.execute(
        "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = %s AND c_d_id = %s "
        "AND c_id = %s",
        (w, d, c),
    )
    cur.fetchall()
    cur.execute(
        "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = %s AND o_d_id = %s "
        "AND o_c_id = %s ORDER BY o_id DESC LIMIT 1",
        (w, d, c),
    )
    if rows := cur.fetchall():
        cur.execute(
            "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
            "WHERE ol_w_id = %s AND ol_d_id = %s AND ol_o_id = %s",
            (w, d, rows[0][0]),
        )
        cur.fetchall()
    return True


def delivery(cur: Any, t: Terminal, rng: random.Random) -> bool:
    """All ten districts in one transaction (the spec allows deferred execution; we don't defer)."""
    w, carrier = t.w, rng.randint(1, 10)
    for d in range(1, DISTRICTS + 1):
        cur.execute(
            f"SELECT no_o_id FROM new_order WHERE no_w_id = %s AND no_d_id = %s ORDER BY no_o_id "
            f"LIMIT 1{t.for_update}",
            (w, d),
        )
        rows = cur.fetchall()
        if not rows:
            continue
        o = rows[0][0]
        cur.execute("DELETE FROM new_order WHERE no_w_id = %s AND no_d_id = %s AND no_o_id = %s", (w, d, o))
        cur.execute("SELECT o_c_id FROM orders WHERE o_w_id = %s AND o_d_id = %s AND o_id = %s", (w, d, o))
        (c,), *_ = cur.fetchall()
        cur.execute(
            "UPDATE orders SET o_carrier_id = %s WHERE o_w_id = %s AND o_d_id = %s AND o_id = %s",
            (carrier, w, d, o),
        )
        cur.execute(
            "UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = %s "
            "AND ol_d_id = %s AND ol_o_id = %s",
            (w, d, o),
        )
        cur.execute(
            "SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = %s AND ol_d_id = %s AND ol_o_id = %s",
            (w, d, o),
        )
        (total,), *_ = cur.fetchall()
        cur.execute(
            "UPDATE customer SET c_balance = c_balance + %s, c_delivery_cnt = c_delivery_cnt + 1 "
            "WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s",
            (total or 0, w, d, c),
        )
    return True


def stock_level(cur: Any, t: Terminal, rng: random.Random) -> bool:
    w, d, threshold = t.w, rng.randint(1, DISTRICTS), rng.randint(10, 20)
    cur.execute("SELECT d_next_o_id FROM district WHERE d_w_id = %s AND d_id = %s", (w, d))
    (next_o,), *_ = cur.fetchall()
    cur.execute(
        "SELECT count(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id "
        "WHERE ol_w_id = %s AND ol_d_id = %s AND ol_o_id >= %s AND ol_o_id < %s AND s_quantity < %s",
        (w, d, next_o - 20, next_o, threshold),
    )
    cur.fetchall()
    return True


RUN = (new_order, payment, order_status, delivery, stock_level)
