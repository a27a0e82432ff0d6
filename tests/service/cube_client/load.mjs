// Loads Cube queries through the real @cubejs-client/core against a live `smq serve` and prints JSON.
// usage: node load.mjs <base-url> <api-key> <queries.json>   (tests/service/test_cube.py runs it)
import { readFileSync } from "node:fs";
import cube from "@cubejs-client/core";

const [baseUrl, apiKey, queriesFile] = process.argv.slice(2);
const api = cube(apiKey, { apiUrl: `${baseUrl}/cubejs-api/v1` });
const out = { meta: null, results: [], sql: null, error: null };
try {
  const meta = await api.meta();
  out.meta = meta.cubes.map((c) => ({ name: c.name, measures: c.measures.map((m) => m.name), dimensions: c.dimensions.map((d) => d.name) }));
  const queries = JSON.parse(readFileSync(queriesFile, "utf8"));
  for (const query of queries) {
    const resultSet = await api.load(query);
    out.results.push({ rows: resultSet.tablePivot(), raw: resultSet.rawData() });
  }
  out.sql = (await api.sql(queries[0])).sql();
  try {
    await api.load({ measures: ["OrdersModel.orderCnt"] });
  } catch (err) {
    out.error = { message: err.message, status: err.status };
  }
} catch (err) {
  out.error = { message: String(err && err.message), status: err && err.status, fatal: true };
}
process.stdout.write(JSON.stringify(out));
