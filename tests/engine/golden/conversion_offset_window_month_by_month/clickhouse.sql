WITH "f0" AS (
  SELECT
    toStartOfMonth("customers".signup_date) AS "g0",
    COUNT("customers".customer_id) AS "a0"
  FROM customers AS "customers"
  GROUP BY
    toStartOfMonth("customers".signup_date)
), "f1_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    CAST("customers".signup_date AS Nullable(DATE)) AS "t",
    toStartOfMonth("customers".signup_date) AS "g0"
  FROM customers AS "customers"
), "f1_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY CAST("conversion_events".order_date AS Nullable(DATE))) AS "id",
    UPPER(TRIM("conversion_events".customer_ref)) AS "entity",
    CAST("conversion_events".order_date AS Nullable(DATE)) AS "t",
    UPPER(TRIM("conversion_events".customer_ref)) AS "v"
  FROM orders AS "conversion_events"
), "f1_attributed" AS (
  SELECT
    "c"."v",
    "b"."g0",
    ROW_NUMBER() OVER (PARTITION BY "c"."id" ORDER BY "b"."t" DESC) AS "rn"
  FROM "f1_base" AS "b"
  INNER JOIN "f1_conversions" AS "c"
    ON "b"."entity" = "c"."entity"
    AND "b"."t" <= "c"."t"
    AND "b"."t" > addDays("c"."t", -30)
), "f1" AS (
  SELECT
    "g0" AS "g0",
    COUNT(DISTINCT "v") AS "a1"
  FROM "f1_attributed"
  WHERE
    "rn" = 1
  GROUP BY
    "g0"
), "f2_periods" AS (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
), "f2" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("customers".customer_id) AS "a2"
  FROM customers AS "customers"
  INNER JOIN "f2_periods" AS "p"
    ON addMonths("p"."period", -1) = toStartOfMonth("customers".signup_date)
  GROUP BY
    "p"."period"
), "f3_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    CAST("customers".signup_date AS Nullable(DATE)) AS "t",
    CAST("customers".signup_date AS Nullable(DATE)) AS "d",
    NULL AS "g0"
  FROM customers AS "customers"
), "f3_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY CAST("conversion_events".order_date AS Nullable(DATE))) AS "id",
    UPPER(TRIM("conversion_events".customer_ref)) AS "entity",
    CAST("conversion_events".order_date AS Nullable(DATE)) AS "t",
    UPPER(TRIM("conversion_events".customer_ref)) AS "v"
  FROM orders AS "conversion_events"
), "f3_attributed" AS (
  SELECT
    "c"."v",
    "b"."g0",
    "b"."d",
    ROW_NUMBER() OVER (PARTITION BY "c"."id" ORDER BY "b"."t" DESC) AS "rn"
  FROM "f3_base" AS "b"
  INNER JOIN "f3_conversions" AS "c"
    ON "b"."entity" = "c"."entity"
    AND "b"."t" <= "c"."t"
    AND "b"."t" > addDays("c"."t", -30)
), "f3_periods" AS (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
), "f3" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT(DISTINCT "a"."v") AS "a3"
  FROM "f3_attributed" AS "a"
  INNER JOIN "f3_periods" AS "p"
    ON addMonths("p"."period", -1) = toStartOfMonth("a"."d")
  WHERE
    "a"."rn" = 1
  GROUP BY
    "p"."period"
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1",
    MAX("a2") AS "a2",
    MAX("a3") AS "a3"
  FROM (
    SELECT
      "g0",
      "a0",
      NULL AS "a1",
      NULL AS "a2",
      NULL AS "a3"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1",
      NULL AS "a2",
      NULL AS "a3"
    FROM "f1"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      NULL AS "a1",
      "a2",
      NULL AS "a3"
    FROM "f2"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      NULL AS "a1",
      NULL AS "a2",
      "a3"
    FROM "f3"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "metric_time__month",
  (
    CAST(CAST("m"."a1" AS Nullable(Float64)) AS Nullable(Float64)) / nullIf(nullIf("m"."a0", 0), 0)
  ) - (
    CAST(CAST("m"."a3" AS Nullable(Float64)) AS Nullable(Float64)) / nullIf(nullIf("m"."a2", 0), 0)
  ) AS "signupToOrderRateChange",
  CAST("m"."a1" AS Nullable(Float64)) / nullIf("m"."a0", 0) AS "signupToOrderRate"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC
SETTINGS join_use_nulls = 1
