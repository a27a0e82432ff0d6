"""The embedded demo database "shop": a small web shop, generated deterministically.

(Longer than our ~500-line rule on purpose: it is one story read top to bottom -- regions, nations,
customers, suppliers, products, then orders drawing on all of them -- and about a third of it is the
word lists and weights the rows are drawn from; split, each part would need the others to be read.)

Everything here is pure Python (``random.Random`` with fixed seeds, no numpy, no network) and
byte-for-byte reproducible: the same rows come out on every machine and every Python >= 3.11.
The whole test suite compares the compiler's results across engines on this data, so the data is
small enough to load anywhere in seconds, yet it carries the traps a semantic layer must handle:

* **dirty join key** -- ``orders.customer_ref`` points at ``customers.customer_code`` but about 15% of the
  references are lower-case and/or padded with spaces (``' c00042 '``) and 1% point at no customer at all
  (``'C9xxxx'``); the layer joins on ``UPPER(TRIM(customer_ref)) = customer_code`` with a left join.
* **one-to-many fan-out, twice** -- an order has 1 to 6 ``order_items`` and 0 to 3 ``payments``; summing an
  order-level (or payment-level) number after joining the other table double counts.
* **role-playing dimension** -- customers and suppliers both point at ``nations``; an order line reaches a
  nation through its order's customer and through its product's supplier.
* **NULLs** in foreign keys and grouping columns (customers without nation or segment, products without
  category, orders without status, lines without discount, unshipped orders without ``shipped_at``).
* **gaps in time** -- orders run from 2023-01-01 to 2024-12-31 (both days have orders) with seasonality, but
  the shop was closed on both Christmas days, down for two days in June 2023 and for the whole ISO week
  2024-02-05..2024-02-11 (a platform migration), so day- and week-grain gap filling from the
  ``time_spine`` table (2022-01-01..2026-12-31) is visible.
* **rows nobody references** -- a nation with no customers or suppliers, suppliers without products,
  products never sold, customers who never ordered.

All strings are plain ASCII (some with apostrophes, such as ``O'Brien``), so that UPPER/LOWER and
ordering agree across engines. Money is ``Decimal`` with two places. Ids live in distinct ranges
(products from 1001, orders from 100001, payments from 500001) so that a join on the wrong key finds
nothing instead of something plausible.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from random import Random
from typing import TypeVar

T = TypeVar("T")

__all__ = ["Table", "generate", "get_table", "FIRST_ORDER_DATE", "LAST_ORDER_DATE", "CLOSED_DAYS"]

SEED = "smq-demo-shop-v1"

FIRST_ORDER_DATE = dt.date(2023, 1, 1)
LAST_ORDER_DATE = dt.date(2024, 12, 31)
SPINE_START = dt.date(2022, 1, 1)
SPINE_END = dt.date(2026, 12, 31)
# The data is "as of" the end of 2024: nothing happens after this instant.
AS_OF = dt.datetime(2024, 12, 31, 23, 59, 59)


def _days(first: dt.date, last: dt.date) -> list[dt.date]:
    return [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]


# Days on which the shop took no orders at all (gap filling must show them).
CLOSED_DAYS: frozenset[dt.date] = frozenset(
    [dt.date(2023, 12, 25), dt.date(2024, 12, 25)]  # closed for Christmas
    + _days(dt.date(2023, 6, 13), dt.date(2023, 6, 14))  # outage
    + _days(dt.date(2024, 2, 5), dt.date(2024, 2, 11))  # platform migration: a whole ISO week (Mon..Sun)
)

N_CUSTOMERS = 600
N_SUPPLIERS = 40
N_PRODUCTS = 120
N_ORDERS = 5000

CENT = Decimal("0.01")


@dataclass(frozen=True)
class Table:
    """One table of the demo database: its columns with portable SQL types, its rows, its key.

    Types are INTEGER, VARCHAR, DATE, TIMESTAMP, DECIMAL(p,s) and BOOLEAN; row values are ``int``,
    ``str``, ``datetime.date``, ``datetime.datetime`` (naive, whole seconds), ``decimal.Decimal``,
    ``bool`` or ``None``. Rows are sorted by the primary key.
    """

    name: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple, ...]
    primary_key: tuple[str, ...]

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.columns)

    def column(self, name: str) -> list:
        """All values of one column, in row order."""
        i = self.column_names.index(name)
        return [r[i] for r in self.rows]


def _money(x: Decimal | int | str) -> Decimal:
    return Decimal(x).quantize(CENT, rounding=ROUND_HALF_UP)


def _rng(part: str) -> Random:
    # one independent stream per table: changing one table leaves the others' rows unchanged
    # (string seeds are hashed with SHA-512, independent of PYTHONHASHSEED)
    return Random(f"{SEED}/{part}")


def _weighted_index(rng: Random, cumulative: list[float], upto: int | None = None) -> int:
    """Index drawn in proportion to weights given as a cumulative list (optionally only the first `upto`)."""
    n = len(cumulative) if upto is None else upto
    total = cumulative[n - 1]
    return bisect.bisect_right(cumulative, rng.random() * total, 0, n - 1)


def _cumulative(weights: list[float]) -> list[float]:
    out, acc = [], 0.0
    for w in weights:
        acc += w
        out.append(acc)
    return out


def _pick(rng: Random, options: Sequence[tuple[T, float]]) -> T:
    values = [v for v, _ in options]
    return rng.choices(values, weights=[w for _, w in options], k=1)[0]


# --------------------------------------------------------------------------------------------
# geography

REGIONS = [
    (1, "Europe"),
    (2, "North America"),
    (3, "Latin America"),
    (4, "Asia Pacific"),
    (5, "Middle East and Africa"),
]

# nation_id, name, region_id, weight among customers, number of suppliers
NATIONS = [
    (1, "Germany", 1, 14, 6),
    (2, "France", 1, 9, 0),
    (3, "United Kingdom", 1, 10, 3),
    (4, "Italy", 1, 6, 4),
    (5, "Spain", 1, 6, 0),
    (6, "United States", 2, 22, 6),
    (7, "Canada", 2, 7, 0),
    (8, "Brazil", 3, 6, 0),
    (9, "Mexico", 3, 5, 3),
    (10, "China", 4, 0, 10),  # suppliers only: no customer lives there
    (11, "Japan", 4, 5, 4),
    (12, "India", 4, 4, 4),
    (13, "Australia", 4, 4, 0),
    (14, "South Africa", 5, 2, 0),
    (15, "United Arab Emirates", 5, 0, 0),  # nobody: neither customers nor suppliers
]
assert sum(n[4] for n in NATIONS) == N_SUPPLIERS


def _regions() -> Table:
    return Table(
        "regions",
        (("region_id", "INTEGER"), ("region_name", "VARCHAR")),
        tuple(REGIONS),
        ("region_id",),
    )


def _nations() -> Table:
    return Table(
        "nations",
        (("nation_id", "INTEGER"), ("nation_name", "VARCHAR"), ("region_id", "INTEGER")),
        tuple((i, name, region) for i, name, region, _, _ in NATIONS),
        ("nation_id",),
    )


# --------------------------------------------------------------------------------------------
# customers

FIRST_NAMES = [
    "Anna", "Ben", "Carla", "David", "Elena", "Felix", "Grace", "Hugo", "Ines", "Jonas",
    "Karin", "Liam", "Maria", "Noah", "Olivia", "Paul", "Quinn", "Rosa", "Sam", "Tara",
    "Umar", "Vera", "Walter", "Xenia", "Yusuf", "Zoe", "Aiko", "Bruno", "Chloe", "Diego",
    "Emma", "Farid", "Greta", "Hiro", "Isla", "Jamal", "Kofi", "Lena", "Mateo", "Nina",
]
LAST_NAMES = [
    "Adams", "Becker", "Chen", "D'Souza", "Evans", "Fischer", "Garcia", "Hoffmann", "Ito", "Jensen",
    "Khan", "Lopez", "Martin", "Nakamura", "O'Brien", "Patel", "Quinn", "Rossi", "Schmidt", "Tanaka",
    "Urban", "Varga", "Weber", "Xu", "Young", "Zimmer", "Silva", "Moreau", "Novak", "Kowalski",
    "Dubois", "Fernandez", "Muller", "Santos", "Kim", "Nguyen", "Okafor", "Larsen", "Bianchi", "Smith",
]
SEGMENTS = [("consumer", 60), ("corporate", 25), ("small_business", 15)]


@dataclass(frozen=True)
class _Customer:
    customer_id: int
    code: str
    signup_date: dt.date
    activity: float  # relative propensity to order; 0 = never orders


def _customers() -> tuple[Table, list[_Customer]]:
    rng = _rng("customers")
    n = N_CUSTOMERS
    names = rng.sample(range(len(FIRST_NAMES) * len(LAST_NAMES)), n)
    span = (dt.date(2024, 10, 31) - dt.date(2021, 1, 1)).days
    # more sign-ups early on (the shop's launch campaign), then a steady trickle
    signups = sorted(dt.date(2021, 1, 1) + dt.timedelta(days=int(span * rng.random() ** 1.3)) for _ in range(n))
    nation_cum = _cumulative([float(w) for _, _, _, w, _ in NATIONS])
    no_nation = set(rng.sample(range(n), 18))  # 3%
    no_segment = set(rng.sample(range(n), 30))  # 5%
    never_orders = set(rng.sample(range(n), 30))  # registered, never bought anything
    rows, meta = [], []
    for i in range(n):
        cid = i + 1
        code = f"C{cid:05d}"
        k = names[i]
        name = f"{FIRST_NAMES[k // len(LAST_NAMES)]} {LAST_NAMES[k % len(LAST_NAMES)]}"
        nation = None if i in no_nation else NATIONS[_weighted_index(rng, nation_cum)][0]
        segment = None if i in no_segment else _pick(rng, SEGMENTS)
        activity = 0.0 if i in never_orders else rng.lognormvariate(0.0, 0.9)
        if segment == "corporate":
            activity *= 1.5
        rows.append((cid, code, name, nation, segment, signups[i]))
        meta.append(_Customer(cid, code, signups[i], activity))
    table = Table(
        "customers",
        (
            ("customer_id", "INTEGER"),
            ("customer_code", "VARCHAR"),
            ("customer_name", "VARCHAR"),
            ("nation_id", "INTEGER"),
            ("segment", "VARCHAR"),
            ("signup_date", "DATE"),
        ),
        tuple(rows),
        ("customer_id",),
    )
    return table, meta


# --------------------------------------------------------------------------------------------
# suppliers and products

SUPPLIER_PREFIXES = [
    "Acme", "Atlas", "Blue River", "Crescent", "Evergreen", "Golden Gate", "Harbor", "Keystone",
    "Lotus", "Maple", "Northwind", "Orion", "Pacific", "Pioneer", "Red Rock", "Silver Line",
    "Sterling", "Summit", "Vertex", "Zenith",
]
SUPPLIER_SUFFIXES = ["Trading Co.", "Supply Ltd.", "Industries", "Manufacturing", "Goods Inc.", "Imports", "Wholesale", "Works"]

# category, (min, max) list price, share of products, product nouns
CATEGORIES = [
    ("electronics", (19, 899), 24, ["Headphones", "Speaker", "Charger", "Keyboard", "Mouse", "Monitor", "Webcam", "Router", "Power Bank", "Smartwatch"]),
    ("home", (4, 249), 22, ["Lamp", "Blanket", "Mug Set", "Cutting Board", "Kettle", "Toaster", "Vase", "Pillow", "Frying Pan", "Storage Box"]),
    ("garden", (2, 199), 16, ["Hose", "Shovel", "Planter", "Seed Kit", "Gloves", "Pruner", "Bird Feeder", "Watering Can", "Lawn Chair", "Solar Light"]),
    ("toys", (4, 99), 18, ["Puzzle", "Building Blocks", "Plush Bear", "Kite", "Board Game", "Toy Car", "Doll House", "Yo-Yo", "Robot Kit", "Ball"]),
    ("books", (5, 59), 20, ["Cookbook", "Novel", "Atlas", "Field Guide", "Biography", "Workbook", "Comic", "Poetry Collection", "Travel Guide", "Dictionary"]),
    ("sports", (9, 399), 20, ["Yoga Mat", "Dumbbells", "Running Shoes", "Tennis Racket", "Water Bottle", "Bike Helmet", "Jump Rope", "Backpack", "Football", "Tent"]),
]
ADJECTIVES = ["Basic", "Classic", "Compact", "Deluxe", "Eco", "Pro", "Smart", "Ultra", "Travel", "Family"]


@dataclass(frozen=True)
class _Product:
    product_id: int
    list_price: Decimal
    popularity_2023: float
    popularity_2024: float


def _suppliers() -> Table:
    rng = _rng("suppliers")
    combos = rng.sample(range(len(SUPPLIER_PREFIXES) * len(SUPPLIER_SUFFIXES)), N_SUPPLIERS)
    nations = [nid for nid, _, _, _, k in NATIONS for _ in range(k)]
    rng.shuffle(nations)
    rows = []
    for i in range(N_SUPPLIERS):
        c = combos[i]
        name = f"{SUPPLIER_PREFIXES[c // len(SUPPLIER_SUFFIXES)]} {SUPPLIER_SUFFIXES[c % len(SUPPLIER_SUFFIXES)]}"
        rows.append((i + 1, name, nations[i]))
    return Table(
        "suppliers",
        (("supplier_id", "INTEGER"), ("supplier_name", "VARCHAR"), ("nation_id", "INTEGER")),
        tuple(rows),
        ("supplier_id",),
    )


def _products() -> tuple[Table, list[_Product]]:
    rng = _rng("products")
    n = N_PRODUCTS
    # two suppliers are still onboarding and have no products yet
    active_suppliers = list(range(1, N_SUPPLIERS + 1))
    rng.shuffle(active_suppliers)
    active_suppliers = sorted(active_suppliers[:-2])
    cat_cum = _cumulative([float(c[2]) for c in CATEGORIES])
    ids = list(range(n))
    no_category = set(rng.sample(ids, 4))
    special = rng.sample(ids, 11)
    discontinued = set(special[:8])  # sold in 2023 only
    never_sold = set(special[8:])  # new in the catalogue, nobody bought them yet
    seen: set[str] = set()
    rows, meta = [], []
    for i in range(n):
        pid = 1001 + i
        cat, (lo, hi), _, nouns = CATEGORIES[_weighted_index(rng, cat_cum)]
        while True:
            name = f"{rng.choice(ADJECTIVES)} {rng.choice(nouns)}"
            if name not in seen:
                break
            name = f"{name} {rng.choice(['Mini', 'Max', 'Plus', 'Lite', 'XL', 'II', 'III', 'Go'])}"
            if name not in seen:
                break
        seen.add(name)
        # prices skew low; they end in .99, .49 or .00
        whole = lo + int((hi - lo) * rng.random() ** 2.2)
        price = Decimal(whole) + Decimal(_pick(rng, [("0.99", 70), ("0.49", 20), ("0.00", 10)]))
        # every active supplier gets at least one product (the first 38 products), the rest at random
        supplier = active_suppliers[i] if i < len(active_suppliers) else rng.choice(active_suppliers)
        popularity = 0.0 if i in never_sold else rng.lognormvariate(0.0, 1.0) / (1.0 + float(price) / 150.0)
        rows.append((pid, name, None if i in no_category else cat, supplier, price, i in discontinued))
        meta.append(_Product(pid, price, popularity, 0.0 if i in discontinued else popularity))
    table = Table(
        "products",
        (
            ("product_id", "INTEGER"),
            ("product_name", "VARCHAR"),
            ("category", "VARCHAR"),
            ("supplier_id", "INTEGER"),
            ("list_price", "DECIMAL(12,2)"),
            ("is_discontinued", "BOOLEAN"),
        ),
        tuple(rows),
        ("product_id",),
    )
    return table, meta


# --------------------------------------------------------------------------------------------
# orders, order items, payments

MONTH_FACTOR = [0.80, 0.75, 0.90, 0.92, 0.95, 0.95, 0.90, 0.92, 1.00, 1.05, 1.40, 1.65]
WEEKDAY_FACTOR = [1.00, 0.95, 0.95, 1.00, 1.10, 1.25, 1.20]  # Monday .. Sunday
PEAK_DAYS = {
    dt.date(2023, 11, 24): 3.0,  # Black Friday
    dt.date(2023, 11, 27): 2.0,  # Cyber Monday
    dt.date(2024, 11, 29): 3.0,
    dt.date(2024, 12, 2): 2.0,
}
CHANNELS = [("web", 50), ("mobile", 35), ("store", 15)]
LINES_PER_ORDER = [(1, 22), (2, 24), (3, 20), (4, 14), (5, 11), (6, 9)]
QUANTITIES = [(1, 60), (2, 22), (3, 10), (4, 5), (5, 3)]
DISCOUNTS = [(None, 62), (Decimal("0.00"), 6), (Decimal("0.05"), 10), (Decimal("0.10"), 10), (Decimal("0.15"), 5), (Decimal("0.20"), 4), (Decimal("0.25"), 2), (Decimal("0.50"), 1)]
PAYMENT_METHODS = [("card", 55), ("paypal", 25), ("bank_transfer", 12), ("gift_card", 8)]


def _order_days(rng: Random) -> list[dt.date]:
    """The date of every order, sorted: seasonality, weekly rhythm, growth, peaks and closed days."""
    days = _days(FIRST_ORDER_DATE, LAST_ORDER_DATE)
    weights = []
    for d in days:
        if d in CLOSED_DAYS:
            weights.append(0.0)
            continue
        growth = 1.0 + 0.25 * (d - FIRST_ORDER_DATE).days / 730
        weights.append(MONTH_FACTOR[d.month - 1] * WEEKDAY_FACTOR[d.weekday()] * growth * PEAK_DAYS.get(d, 1.0))
    # the first and the last day always have an order: the data spans exactly two years
    picks = [FIRST_ORDER_DATE, LAST_ORDER_DATE] + rng.choices(days, weights=weights, k=N_ORDERS - 2)
    return sorted(picks)


def _status(rng: Random, order_date: dt.date) -> str:
    age = (LAST_ORDER_DATE - order_date).days
    if age <= 3:
        options = [("pending", 55), ("shipped", 40), ("cancelled", 5)]
    elif age <= 14:
        options = [("pending", 8), ("shipped", 50), ("delivered", 30), ("cancelled", 8), ("returned", 4)]
    else:
        options = [("delivered", 70), ("shipped", 8), ("returned", 8), ("cancelled", 10), ("pending", 4)]
    return _pick(rng, options)


def _at(day: dt.date, rng: Random, first_hour: int = 7, last_hour: int = 23) -> dt.datetime:
    seconds = rng.randrange(first_hour * 3600, (last_hour + 1) * 3600)
    return dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=seconds)


def _split(rng: Random, total: Decimal, parts: int) -> list[Decimal]:
    """`total` cut into `parts` positive amounts that add up to it exactly."""
    parts = max(1, min(parts, int(total / CENT)))
    amounts = []
    rest = total
    for k in range(parts - 1, 0, -1):
        share = _money(rest * Decimal(str(round(rng.uniform(0.2, 0.7), 2))))
        share = min(max(share, CENT), rest - CENT * k)
        amounts.append(share)
        rest -= share
    amounts.append(rest)
    return amounts


def _orders(customers: list[_Customer], products: list[_Product]) -> tuple[Table, Table, Table]:
    rng = _rng("orders")
    item_rng = _rng("order_items")
    pay_rng = _rng("payments")

    order_days = _order_days(rng)
    n = len(order_days)
    unmatched = set(rng.sample(range(n), n // 100))  # 1% refer to no customer at all
    dirty = rng.sample(range(n), n * 15 // 100)  # 15% lower-case and/or padded
    dirty_kind = {i: _pick(rng, [("lower", 35), ("lead", 20), ("trail", 20), ("both", 25)]) for i in dirty}
    null_status = set(rng.sample(range(n), n // 50))  # 2% without status
    padded_status = set(rng.sample(range(n), n * 3 // 100))  # 3% with stray spaces around the status

    # customers are sorted by sign-up: the ones who may order on a day are a prefix
    signup = [c.signup_date for c in customers]
    cust_cum = _cumulative([c.activity for c in customers])
    prod_cum = {
        2023: _cumulative([p.popularity_2023 for p in products]),
        2024: _cumulative([p.popularity_2024 for p in products]),
    }

    orders, items, payments = [], [], []
    payment_id = 500000
    for i, day in enumerate(order_days):
        order_id = 100001 + i
        # --- the customer reference, dirty on purpose
        if i in unmatched:
            ref = f"C{rng.randrange(90000, 100000):05d}"
        else:
            eligible = bisect.bisect_right(signup, day)
            ref = customers[_weighted_index(rng, cust_cum, eligible)].code
        kind = dirty_kind.get(i)
        if kind == "lower":
            ref = ref.lower()
        elif kind == "lead":
            ref = " " * rng.randint(1, 2) + ref
        elif kind == "trail":
            ref = ref + " " * rng.randint(1, 3)
        elif kind == "both":
            ref = " " + (ref.lower() if rng.random() < 0.6 else ref) + " "
        # --- status, channel, shipping
        status = None if i in null_status else _status(rng, day)
        channel = _pick(rng, CHANNELS)
        placed_at = _at(day, rng)  # not stored: the shop only keeps the order's date
        shipped = status in ("shipped", "delivered", "returned") or (status is None and rng.random() < 0.6)
        shipped_at = None
        if shipped:
            delay = _pick(rng, [(0, 15), (1, 40), (2, 25), (3, 12), (4, 8)])
            shipped_at = placed_at + dt.timedelta(days=delay, seconds=rng.randrange(2 * 3600, 10 * 3600))
            if shipped_at > AS_OF:  # shipped before the data was taken, whatever the usual delay
                shipped_at = placed_at + dt.timedelta(seconds=int((AS_OF - placed_at).total_seconds()) // 2)
        raw_status = status
        if status is not None and i in padded_status:
            raw_status = _pick(rng, [(status + " ", 50), (" " + status, 25), (" " + status + " ", 25)])
        orders.append((order_id, ref, day, raw_status, channel, shipped_at))

        # --- order lines: distinct products, 1 to 6 of them
        n_lines = _pick(item_rng, LINES_PER_ORDER)
        cum = prod_cum[day.year]
        chosen: list[int] = []
        while len(chosen) < n_lines:
            k = _weighted_index(item_rng, cum)
            if k not in chosen:
                chosen.append(k)
        peak = day in PEAK_DAYS
        total = Decimal(0)
        for line, k in enumerate(chosen, start=1):
            product = products[k]
            quantity = _pick(item_rng, QUANTITIES)
            price = product.list_price
            if item_rng.random() < 0.2:  # the price changed since the catalogue was printed
                price = max(_money(price * Decimal(str(round(item_rng.uniform(0.85, 1.10), 2)))), CENT)
            discount = _pick(item_rng, DISCOUNTS)
            if peak and discount is None and item_rng.random() < 0.6:
                discount = Decimal("0.20")
            items.append((order_id, line, product.product_id, quantity, price, discount))
            total += quantity * price * (1 - (discount or 0))
        total = _money(total)

        # --- payments: none, one, or a split payment
        if status == "cancelled":
            n_pay = 1 if pay_rng.random() < 0.15 else 0
        elif status == "pending":
            n_pay = 1 if pay_rng.random() < 0.4 else 0
        elif status is None:
            n_pay = 1 if pay_rng.random() < 0.7 else 0
        else:
            n_pay = _pick(pay_rng, [(1, 84), (2, 12), (3, 4)])
        if n_pay == 0:
            continue
        amounts = _split(pay_rng, total, n_pay)
        underpaid = n_pay > 1 and pay_rng.random() < 0.1  # the last part of a split payment never arrived
        if underpaid:
            amounts = amounts[:-1]
        paid_at = placed_at + dt.timedelta(seconds=pay_rng.randrange(20, 1800))
        for j, amount in enumerate(amounts):
            if j == 0:
                method = "gift_card" if len(amounts) > 1 and pay_rng.random() < 0.5 else _pick(pay_rng, PAYMENT_METHODS)
            else:
                method = _pick(pay_rng, [("card", 60), ("paypal", 30), ("bank_transfer", 10)])
            if method == "bank_transfer":
                paid_at += dt.timedelta(days=pay_rng.randint(1, 3), seconds=pay_rng.randrange(3600))
            elif j > 0:
                paid_at += dt.timedelta(seconds=pay_rng.randrange(30, 3 * 3600))
            payment_id += 1
            payments.append((payment_id, order_id, min(paid_at, AS_OF), amount, method))

    orders_t = Table(
        "orders",
        (
            ("order_id", "INTEGER"),
            ("customer_ref", "VARCHAR"),
            ("order_date", "DATE"),
            ("status", "VARCHAR"),
            ("channel", "VARCHAR"),
            ("shipped_at", "TIMESTAMP"),
        ),
        tuple(orders),
        ("order_id",),
    )
    items_t = Table(
        "order_items",
        (
            ("order_id", "INTEGER"),
            ("line_number", "INTEGER"),
            ("product_id", "INTEGER"),
            ("quantity", "INTEGER"),
            ("unit_price", "DECIMAL(12,2)"),
            ("discount", "DECIMAL(4,2)"),
        ),
        tuple(items),
        ("order_id", "line_number"),
    )
    payments_t = Table(
        "payments",
        (
            ("payment_id", "INTEGER"),
            ("order_id", "INTEGER"),
            ("paid_at", "TIMESTAMP"),
            ("amount", "DECIMAL(12,2)"),
            ("method", "VARCHAR"),
        ),
        tuple(payments),
        ("payment_id",),
    )
    return orders_t, items_t, payments_t


def _fiscal_quarter(day: dt.date) -> dt.date:
    """The first day of the day's fiscal quarter, the fiscal year starting on February 1st (Feb-Apr, May-Jul,
    Aug-Oct, Nov-Jan): the demo layer's custom granularity `fiscal_quarter` (database.yml time_spine)."""
    month = day.month - (day.month - 2) % 3
    return dt.date(day.year, month, 1) if month > 0 else dt.date(day.year - 1, month + 12, 1)


def _time_spine() -> Table:
    return Table(
        "time_spine",
        (("date_day", "DATE"), ("fiscal_quarter", "DATE")),
        tuple((d, _fiscal_quarter(d)) for d in _days(SPINE_START, SPINE_END)),
        ("date_day",),
    )


# --------------------------------------------------------------------------------------------


@functools.cache
def _generate() -> tuple[Table, ...]:
    customers, customer_meta = _customers()
    products, product_meta = _products()
    orders, order_items, payments = _orders(customer_meta, product_meta)
    return (_regions(), _nations(), customers, _suppliers(), products, orders, order_items, payments, _time_spine())


def generate() -> list[Table]:
    """Every table of the demo database, in dependency order (referenced tables first). Cached."""
    return list(_generate())


def get_table(name: str) -> Table:
    """One table by name."""
    for t in _generate():
        if t.name == name:
            return t
    raise KeyError(name)
