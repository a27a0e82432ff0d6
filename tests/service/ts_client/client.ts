// A BI front end's use of the API, written against the types openapi-typescript generates from the
// service's OpenAPI document (tests/service/test_ts_client.py). `tsc --noEmit` must pass: a schema that
// regresses to `any` or a free-form object breaks the @ts-expect-error lines below, a renamed or
// retyped field breaks the rest.
import type { components, paths } from "./generated/schema";

type QueryRequest = paths["/v1/databases/{db}/query"]["post"]["requestBody"]["content"]["application/json"];
type QueryResponse = paths["/v1/databases/{db}/query"]["post"]["responses"][200]["content"]["application/json"];
type Problem = paths["/v1/databases/{db}/query"]["post"]["responses"][422]["content"]["application/problem+json"];
type ResultColumn = components["schemas"]["ResultColumn"];
type Format = NonNullable<NonNullable<paths["/v1/databases/{db}/query"]["post"]["parameters"]["query"]>["format"]>;

export const request: QueryRequest = {
  smq: { metrics: ["OrdersModel__orderCount"], group_by: ["OrdersModel__orderDate__month"], limit: 100 },
  limit: 10,
  offset: 0,
  total: true,
};

// @ts-expect-error: an SMQ has no `measures` key (its schema refuses unknown keys)
export const wrongKey: QueryRequest = { smq: { measures: ["OrdersModel__orderCount"] } };

// @ts-expect-error: `limit` is a number
export const wrongLimit: QueryRequest = { smq: { metrics: ["OrdersModel__orderCount"] }, limit: "10" };

export const csv: Format = "csv";
// @ts-expect-error: not a format the service offers
export const xml: Format = "xml";

/** One line per column: its name, semantic type (with the grain of a time) and where it comes from. */
export function describe(answer: QueryResponse): string[] {
  const names: string[] = answer.columns;
  const total: number | null | undefined = answer.total;
  return answer.fields.map((field: ResultColumn, i: number) => {
    const type: "number" | "string" | "time" | "boolean" | "other" | null = field.type;
    const grain: "day" | "week" | "month" | "quarter" | "year" | null | undefined = field.grain;
    const dbType: string | null = field.db_type;
    const element: string | null = field.element;
    // @ts-expect-error: `type` is a closed set of names, not any string
    const wrongType: "decimal" = field.type;
    // @ts-expect-error: a column has no `semantic` field (it is `type`)
    const missing = field.semantic;
    void wrongType; void missing;
    return `${names[i]}: ${type}${grain ? `/${grain}` : ""} (${dbType ?? "?"}) from ${element ?? "raw SQL"} of ${total ?? "?"}`;
  });
}

export function firstValue(answer: QueryResponse): unknown {
  const rows: unknown[][] = answer.rows;
  // @ts-expect-error: rows are arrays, not objects keyed by column
  const wrong: string = answer.rows[0].OrdersModel__orderCount;
  void wrong;
  return rows[0]?.[0];
}

export function explain(problem: Problem): string {
  const code: string = problem.code;
  const where: string | null | undefined = problem.errors[0]?.location.field;
  return `${problem.status} ${code} at ${where ?? "?"}: ${problem.detail}`;
}
