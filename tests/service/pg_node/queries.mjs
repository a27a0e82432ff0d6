// node-postgres (pg) against smq's PostgreSQL-protocol listener: node queries.mjs PORT KEY OUT.json
// Runs the queries of tests/service/test_pgwire_node.py and writes their rows (or SQLSTATE and message) as JSON.
import pg from "pg";
import { writeFileSync } from "node:fs";

const [port, key, out] = process.argv.slice(2);
pg.types.setTypeParser(1082, (text) => text); // dates as their text, not a JS Date in the local time zone
const config = { host: "127.0.0.1", port: Number(port), database: "shop", user: "node", password: key };
const results = {};

async function attempt(name, fn) {
  try {
    results[name] = { ok: await fn() };
  } catch (err) {
    results[name] = { error: { code: err.code ?? null, message: err.message, hint: err.hint ?? null } };
  }
}

const client = new pg.Client(config);
await client.connect();
await attempt("tables", async () =>
  (await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows);
await attempt("columns", async () =>
  (await client.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
    ["OrdersModel"])).rows);
await attempt("grouped", async () =>
  (await client.query({ text: 'SELECT channel, MEASURE("orderCount") AS orders FROM "OrdersModel" GROUP BY 1 ORDER BY 1', rowMode: "array" })).rows);
await attempt("parameterised", async () =>
  (await client.query({
    text: `SELECT DATE_TRUNC('month', "OrdersModel__orderDate") AS month, SUM(revenue) AS revenue FROM "OrderItemsModel"
           WHERE "OrdersModel__channel" = $1 AND "OrdersModel__orderDate" >= $2 AND "OrdersModel__orderDate" < $3
           GROUP BY 1 ORDER BY 1`,
    values: ["web", "2024-01-01", "2024-04-01"], rowMode: "array",
  })).rows);
await attempt("prepared", async () =>
  (await client.query({ name: "by-status", text: 'SELECT MEASURE("orderCount") AS n FROM "OrdersModel" WHERE status = $1',
    values: ["shipped"], rowMode: "array" })).rows);
await attempt("prepared_again", async () =>
  (await client.query({ name: "by-status", text: 'SELECT MEASURE("orderCount") AS n FROM "OrdersModel" WHERE status = $1',
    values: ["returned"], rowMode: "array" })).rows);
await attempt("unknown_column", async () => (await client.query('SELECT chanel FROM "OrdersModel"')).rows);
await attempt("write", async () => (await client.query('DELETE FROM "OrdersModel"')).rows);
await attempt("after_errors", async () => (await client.query("SELECT 1 AS one")).rows);
await client.end();

for (const [name, password, database] of [["wrong_key", "nope", "shop"], ["unknown_database", key, "shoop"]]) {
  const other = new pg.Client({ ...config, password, database });
  await attempt(name, async () => { await other.connect(); await other.end(); return "connected"; });
}
writeFileSync(out, JSON.stringify(results, null, 2));
