"""psycopg 3 against the live listener: the SQL API's answers equal `/query`'s, under the same key and role.

psycopg sends `%s` parameters server-side (the extended protocol: Parse/Bind/Describe/Execute with `$n`),
so these tests run both protocols: plain `execute` of literal SQL goes Parse/Bind too, and
`cursor.execute(..., prepare=True)` keeps a named statement; `conn.execute` with no parameters on a
`ClientCursor` uses the simple protocol.
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from psycopg import sql as pgsql

from tests.service.pgwire_support import ADMIN_KEY, DE_KEY, PgService, assert_same_rows, open_pg_service, pg_service, rest_rows  # noqa: F401


def connect(service: PgService, key: str | None = ADMIN_KEY, **kw: object) -> psycopg.Connection:
    return psycopg.connect(service.dsn(key), autocommit=True, **kw)


CASES = [
    # (SQL, parameters, the equivalent SMQ, /query limit/offset)
    ('SELECT channel, MEASURE("orderCount") AS orders FROM "OrdersModel" GROUP BY channel ORDER BY channel', None,
     {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"], "order_by": ["OrdersModel__channel"]}),
    ("""SELECT channel, DATE_TRUNC('month', "orderDate") AS month, MEASURE("orderCount") AS orders
        FROM "OrdersModel" WHERE status = 'shipped' AND "orderDate" >= '2024-01-01'
        GROUP BY 1, 2 HAVING MEASURE("orderCount") > 10 ORDER BY orders DESC, 1, 2 LIMIT 20""", None,
     {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"],
      "filters": ["OrdersModel__status = 'shipped'", "OrdersModel__orderDate >= '2024-01-01'",
                  "OrdersModel__orderCount > 10"],
      "order_by": ["-OrdersModel__orderCount", "OrdersModel__channel", "OrdersModel__orderDate__month"], "limit": 20}),
    ('SELECT "CustomersModel__segment" AS segment, SUM(revenue) AS revenue, MEASURE("revenuePerUnit") '
     'FROM "OrderItemsModel" WHERE "ProductsModel__category" IN (%s, %s) AND quantity BETWEEN %s AND %s '
     'GROUP BY segment ORDER BY revenue DESC', ("Books", "Toys", 1, 3),
     {"metrics": ["OrderItemsModel__revenue", "revenuePerUnit"], "group_by": ["CustomersModel__segment"],
      "filters": ["ProductsModel__category IN ('Books', 'Toys')", "OrderItemsModel__quantity BETWEEN 1 AND 3"],
      "order_by": ["-OrderItemsModel__revenue"]}),
    ('SELECT DATE_TRUNC(\'quarter\', "orderDate"), MEASURE("returnRate") FROM "OrdersModel" '
     'WHERE "orderDate" >= %s AND "orderDate" < %s GROUP BY 1 ORDER BY 1', ("2023-01-01", "2024-01-01"),
     {"metrics": ["returnRate"], "group_by": ["OrdersModel__orderDate__quarter"],
      "filters": ["OrdersModel__orderDate >= '2023-01-01'", "OrdersModel__orderDate < '2024-01-01'"],
      "order_by": ["OrdersModel__orderDate__quarter"]}),
    ('SELECT MEASURE("orderCount"), MEASURE("customerCount") FROM "OrdersModel" WHERE status <> %s', ("shipped",),
     {"metrics": ["OrdersModel__orderCount", "OrdersModel__customerCount"],
      "filters": ["OrdersModel__status <> 'shipped'"]}),
    ('SELECT status FROM "OrdersModel" WHERE status IS NOT NULL GROUP BY status ORDER BY status LIMIT 3 OFFSET 1', None,
     {"group_by": ["OrdersModel__status"], "filters": ["OrdersModel__status IS NOT NULL"],
      "order_by": ["OrdersModel__status"]}),
    ('SELECT "NationsModel__country", MEASURE("orderCount") FROM "OrdersModel" WHERE NOT "isShipped" '
     'AND "CustomersModel__segment" ILIKE %s GROUP BY 1 ORDER BY 2 DESC, 1', ("%corp%",),
     {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"],
      "filters": ["NOT OrdersModel__isShipped", "LOWER(CustomersModel__segment) LIKE '%corp%'"],
      "order_by": ["-OrdersModel__orderCount", "NationsModel__country"]}),
]


@pytest.mark.parametrize("sql, params, smq", CASES, ids=[f"case{i}" for i in range(len(CASES))])
@pytest.mark.parametrize("prepare", [False, True], ids=["unnamed", "prepared"])
def test_answers_equal_query(pg_service: PgService, client: object, sql: str, params: tuple | None, smq: dict,
                             prepare: bool) -> None:
    with connect(pg_service) as conn:
        rows = conn.execute(sql, params, prepare=prepare).fetchall()
    limit = offset = None
    if "OFFSET 1" in sql:
        limit, offset = 3, 1
    expected = rest_rows(client, smq, **({"limit": limit, "offset": offset} if limit else {}))
    assert_same_rows([list(r) for r in rows], expected["rows"])


def test_column_types_follow_query_fields(pg_service: PgService, client: object) -> None:
    """A date grain is a date, a count an int8, a sum a numeric, a boolean a bool, as /query types them."""
    with connect(pg_service) as conn:
        cur = conn.execute('SELECT DATE_TRUNC(\'month\', "orderDate") AS m, "isShipped", MEASURE("orderCount") AS n, '
                           '"shippedAt" FROM "OrdersModel" GROUP BY 1, 2, 4 LIMIT 1')
        types = [conn.adapters.types.get(d.type_code).name for d in cur.description]
        row = cur.fetchone()
    assert types == ["date", "bool", "int8", "timestamp"]
    fields = rest_rows(client, {"metrics": ["OrdersModel__orderCount"],
                                "group_by": ["OrdersModel__orderDate__month", "OrdersModel__isShipped",
                                             "OrdersModel__shippedAt"], "limit": 1})["fields"]
    assert [f["type"] for f in fields] == ["time", "boolean", "time", "number"]
    assert fields[0]["grain"] == "month" and type(row[0]).__name__ == "date" and isinstance(row[1], bool)


def test_simple_protocol_and_session_chatter(pg_service: PgService) -> None:
    with psycopg.connect(pg_service.dsn(ADMIN_KEY), cursor_factory=psycopg.ClientCursor) as conn:  # BEGIN ... COMMIT
        cur = conn.cursor()
        cur.execute("SET extra_float_digits = 3; SET application_name = 'pytest'")
        cur.execute("SHOW application_name")
        assert cur.fetchone() == ("pytest",)
        cur.execute("SHOW transaction isolation level")
        assert cur.fetchone() == ("read committed",)
        cur.execute("SELECT version(), current_database(), current_schema()")
        version, database, schema = cur.fetchone()
        assert version.startswith("PostgreSQL 15") and database == "shop" and schema == "public"
        cur.execute('SELECT MEASURE("orderCount") FROM "OrdersModel" WHERE channel = %s', ("web",))
        assert cur.fetchone()[0] > 0
        conn.commit()
        cur.execute("DISCARD ALL")


def test_catalog_lists_models_and_columns(pg_service: PgService) -> None:
    with connect(pg_service) as conn:
        tables = [r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables "
                                             "WHERE table_schema = %s ORDER BY 1", ("public",))]
        columns = conn.execute("SELECT column_name, data_type FROM information_schema.columns "
                               "WHERE table_name = %s ORDER BY ordinal_position", ("OrdersModel",)).fetchall()
        described = conn.execute("SELECT a.attname, d.description FROM pg_catalog.pg_attribute a "
                                 "JOIN pg_catalog.pg_description d ON d.objoid = a.attrelid AND d.objsubid = a.attnum "
                                 "WHERE a.attrelid = '\"OrdersModel\"'::regclass AND a.attname = 'channel'").fetchall()
    assert "OrdersModel" in tables and "OrderItemsModel" in tables and len(tables) == 8
    names = dict(columns)
    assert names["channel"] == "text" and names["orderDate"] == "date" and names["orderCount"] == "bigint"
    assert names["CustomersModel__country"] if "CustomersModel__country" in names else names["NationsModel__country"] == "text"
    assert "averageOrderValue" in names and "CustomersModel__customerName" in names
    assert described and "web" in described[0][1]


def test_role_sees_only_its_rows_and_no_hidden_element(pg_service: PgService, client: object) -> None:
    with connect(pg_service, DE_KEY) as conn:
        rows = conn.execute('SELECT "NationsModel__country", MEASURE("orderCount") FROM "OrdersModel" '
                            "GROUP BY 1 ORDER BY 1").fetchall()
        columns = {r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns "
                                              "WHERE table_name = 'OrdersModel'")}
        attributes = {r[0] for r in conn.execute("SELECT attname FROM pg_attribute")}
        with pytest.raises(psycopg.errors.UndefinedColumn) as hidden:
            conn.execute('SELECT "CustomersModel__customerName" FROM "OrdersModel" GROUP BY 1')
    assert [r[0] for r in rows] == ["Germany"]
    expected = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"],
                                  "order_by": ["NationsModel__country"]}, key=DE_KEY)
    assert_same_rows([list(r) for r in rows], expected["rows"])
    assert "CustomersModel__customerName" not in columns | attributes and "CustomersModel__segment" in columns
    assert hidden.value.sqlstate == "42703"


@pytest.mark.parametrize("sql, sqlstate, words", [
    ('INSERT INTO "OrdersModel" (channel) VALUES (\'x\')', "25006", "read-only"),
    ('DELETE FROM "OrdersModel"', "25006", "read-only"),
    ('CREATE TABLE t (x int)', "25006", "read-only"),
    ('SELECT chanel FROM "OrdersModel"', "42703", '"channel"'),
    ('SELECT channel FROM "OrderModel"', "42P01", '"OrdersModel"'),
    ('SELECT AVG(revenue) FROM "OrderItemsModel"', "0A000", "SUM"),
    ('SELECT channel FROM "OrdersModel" JOIN "CustomersModel" ON true', "0A000", "Model__element"),
    ('SELECT channel, MEASURE("orderCount") FROM "OrdersModel" GROUP BY status', "42803", "GROUP BY"),
    ("SELECT DATE_TRUNC('hour', \"orderDate\") FROM \"OrdersModel\"", "0A000", "grains"),
    ('SELECT channel FROM "OrdersModel" WHERE "orderId" = \'abc\'', "22P02", "number"),
    ("SHOW no_such_setting", "42704", "unrecognized"),
    ("SELECT * FROM pg_catalog.pg_no_such_table", "42P01", "pg_class"),
    ("SELEC 1", "0A000", "SELECT"),
])
def test_refusals_carry_sqlstate_and_say_what_is_right(pg_service: PgService, sql: str, sqlstate: str,
                                                       words: str) -> None:
    with connect(pg_service) as conn:
        with pytest.raises(psycopg.Error) as err:
            conn.execute(sql)
        diag = err.value.diag
        assert err.value.sqlstate == sqlstate, (sql, err.value)
        assert words in f"{diag.message_primary} {diag.message_hint or ''}", (sql, diag.message_primary, diag.message_hint)
        assert conn.execute("SELECT 1").fetchone() == (1,)  # the connection stays usable


def test_transaction_failed_state(pg_service: PgService) -> None:
    with psycopg.connect(pg_service.dsn(ADMIN_KEY)) as conn:  # psycopg opens a transaction block
        with pytest.raises(psycopg.errors.UndefinedColumn):
            conn.execute('SELECT nope FROM "OrdersModel"')
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            conn.execute("SELECT 1")
        conn.rollback()
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_wrong_key_and_unknown_database_are_refused(pg_service: PgService) -> None:
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(pg_service.dsn("not-a-key"))
    with pytest.raises(psycopg.OperationalError, match='database "shoop" does not exist.*shop'):
        psycopg.connect(pg_service.dsn(ADMIN_KEY, database="shoop"))
    with pytest.raises(psycopg.OperationalError, match='database "other" does not exist.*layers shop'):
        psycopg.connect(pg_service.dsn("shop-key", database="other"))


def test_open_access_needs_no_password(open_pg_service: PgService, client: object) -> None:
    with psycopg.connect(open_pg_service.dsn(None), autocommit=True) as conn:
        rows = conn.execute('SELECT channel, MEASURE("orderCount") FROM "OrdersModel" GROUP BY 1 ORDER BY 1').fetchall()
    expected = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
                                  "order_by": ["OrdersModel__channel"]})
    assert_same_rows([list(r) for r in rows], expected["rows"])


def test_many_connections_at_once_and_http_stays_responsive(pg_service: PgService) -> None:
    import httpx

    errors: list[BaseException] = []
    results: list[int] = []

    def worker(key: str) -> None:
        try:  # up to 8 statements of one key in progress at once (SMQ_MAX_INFLIGHT_PER_KEY): 4 keys x 3 connections
            with connect(pg_service, key) as conn:
                for _ in range(5):
                    results.append(conn.execute('SELECT MEASURE("orderCount") FROM "OrdersModel"').fetchone()[0])
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    keys = [ADMIN_KEY, "all-key", "shop-key", ADMIN_KEY] * 3
    threads = [threading.Thread(target=worker, args=(key,)) for key in keys]
    for t in threads:
        t.start()
    health = httpx.get(f"{pg_service.http}/v1/health", timeout=10)
    for t in threads:
        t.join(60)
    assert not errors, errors[:3]
    assert len(results) == 60 and len(set(results)) == 1 and health.status_code == 200


def test_cancel_request_stops_the_running_statement(pg_service: PgService) -> None:
    with connect(pg_service) as conn:
        slow = "SELECT count(*) FROM pg_catalog.pg_attribute a, generate_series(1, 2000000000) g"
        timer = threading.Timer(1.0, conn.cancel)
        timer.start()
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled, match="user request"):
            conn.execute(slow)
        timer.join()
        assert time.monotonic() - started < 15  # well before the 30 s timeout: the cancel stopped it
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_identifiers_quoted_by_psycopg(pg_service: PgService) -> None:
    query = pgsql.SQL("SELECT {col}, MEASURE({m}) FROM {t} GROUP BY 1 ORDER BY 1").format(
        col=pgsql.Identifier("channel"), m=pgsql.Identifier("orderCount"), t=pgsql.Identifier("OrdersModel"))
    with connect(pg_service) as conn:
        assert len(conn.execute(query).fetchall()) == 3


def test_sql_api_route_says_where_it_listens(pg_service: PgService, client: object) -> None:
    import httpx

    live = httpx.get(f"{pg_service.http}/v1/sql-api", headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=10).json()
    assert live == {"enabled": True, "host": "127.0.0.1", "port": pg_service.port, "password": "an API key"}
    assert client.get("/v1/sql-api", headers={"Authorization": f"Bearer {ADMIN_KEY}"}).json()["enabled"] is False


WRAPPED = '(SELECT channel, MEASURE("orderCount") AS orders FROM "OrdersModel" GROUP BY channel)'


def test_bi_tool_wrappers(pg_service: PgService, client: object) -> None:
    """Superset's `... FROM (<query>) AS virtual_table ... LIMIT 1000` is one SMQ; an outer aggregate runs over
    the inner answer."""
    with connect(pg_service) as conn:
        folded = conn.execute(f"SELECT channel, orders FROM {WRAPPED} AS virtual_table WHERE orders > %s "
                              "ORDER BY orders DESC LIMIT 1000", (800,)).fetchall()
        total = conn.execute(f"SELECT SUM(orders) AS s, COUNT(*) AS n FROM {WRAPPED} AS t WHERE channel <> %s",
                             ("store",)).fetchone()
    expected = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
                                  "filters": ["OrdersModel__orderCount > 800"], "order_by": ["-OrdersModel__orderCount"]})
    assert_same_rows([list(r) for r in folded], expected["rows"])
    channels = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]})["rows"]
    assert (int(total[0]), total[1]) == (sum(n for c, n in channels if c != "store"), 2)


def test_describe_a_statement_before_binding(pg_service: PgService) -> None:
    """Parse + Describe(S): parameter types from the columns they are compared with, and the result's columns."""
    with connect(pg_service) as conn:
        pgconn = conn.pgconn
        pgconn.prepare(b"s1", b'SELECT channel, MEASURE("orderCount") AS n FROM "OrdersModel" '
                              b'WHERE "orderDate" >= $1 AND "orderId" < $2 GROUP BY 1')
        described = pgconn.describe_prepared(b"s1")
        pgconn.prepare(b"s2", f"SELECT COUNT(*) AS n FROM {WRAPPED} AS t WHERE channel = $1".encode())
        wrapped = pgconn.describe_prepared(b"s2")
    assert [described.fname(i) for i in range(described.nfields)] == [b"channel", b"n"]
    assert [described.ftype(i) for i in range(described.nfields)] == [25, 20]  # text, int8
    assert [described.param_type(i) for i in range(described.nparams)] == [1082, 1700]  # date, numeric
    assert wrapped.nfields == 1 and wrapped.fname(0) == b"n"


def test_binary_results_equal_text_results(pg_service: PgService) -> None:
    """Results in binary format (psycopg `binary=True`, pgJDBC after prepareThreshold): date, bool, numeric, int8,
    float8 and timestamp decode to the same values as in text."""
    sql = ('SELECT DATE_TRUNC(\'month\', "OrdersModel__orderDate") AS m, "OrdersModel__isShipped", SUM(revenue), '
           'MEASURE("lineCount"), MEASURE("averageUnitPrice"), "OrdersModel__shippedAt" FROM "OrderItemsModel" '
           "GROUP BY 1, 2, 6 ORDER BY 1, 2, 6 LIMIT 50")
    with connect(pg_service) as conn:
        binary = conn.execute(sql, binary=True).fetchall()
        text = conn.execute(sql).fetchall()
        numbers = conn.execute("SELECT 0.0001::numeric, -12.5::numeric, 123456789.123::numeric", binary=True).fetchone()
    assert binary == text and len(binary) == 50
    assert [float(n) for n in numbers] == [0.0001, -12.5, 123456789.123]
