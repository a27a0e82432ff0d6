WITH "f0" AS (
  SELECT
    DATE("customers".signup_date, 'start of month') AS "g0",
    COUNT("customers".customer_id) AS "a0"
  FROM customers AS "customers"
  GROUP BY
    DATE("customers".signup_date, 'start of month')
), "f1_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    DATE("customers".signup_date) AS "t",
    DATE("customers".signup_date, 'start of month') AS "g0"
  FROM customers AS "customers"
), "f1_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY DATE("conversion_events".order_date) NULLS LAST) AS "id",
    UPPER(TRIM("conversion_events".customer_ref)) AS "entity",
    DATE("conversion_events".order_date) AS "t",
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
    AND "b"."t" > DATE("c"."t", '-30 days')
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
    DATE("spine"."date_day", 'start of month') AS "period",
    CASE
      WHEN STRFTIME('%d', DATE(DATE("spine"."date_day", 'start of month'), '-1 months')) <> STRFTIME('%d', DATE("spine"."date_day", 'start of month'))
      THEN DATE(
        DATE(DATE("spine"."date_day", 'start of month'), '-1 months'),
        'start of month',
        '-1 days'
      )
      ELSE DATE(DATE("spine"."date_day", 'start of month'), '-1 months')
    END AS "read"
  FROM time_spine AS "spine"
), "f2" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("customers".customer_id) AS "a2"
  FROM customers AS "customers"
  INNER JOIN "f2_periods" AS "p"
    ON "p"."read" = DATE("customers".signup_date, 'start of month')
  GROUP BY
    "p"."period"
), "f3_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    DATE("customers".signup_date) AS "t",
    DATE("customers".signup_date) AS "d",
    NULL AS "g0"
  FROM customers AS "customers"
), "f3_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY DATE("conversion_events".order_date) NULLS LAST) AS "id",
    UPPER(TRIM("conversion_events".customer_ref)) AS "entity",
    DATE("conversion_events".order_date) AS "t",
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
    AND "b"."t" > DATE("c"."t", '-30 days')
), "f3_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of month') AS "period"
  FROM time_spine AS "spine"
), "f3" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT(DISTINCT "a"."v") AS "a3"
  FROM "f3_attributed" AS "a"
  INNER JOIN "f3_periods" AS "p"
    ON CASE
      WHEN STRFTIME('%d', DATE("p"."period", '-1 months')) <> STRFTIME('%d', "p"."period")
      THEN DATE(DATE("p"."period", '-1 months'), 'start of month', '-1 days')
      ELSE DATE("p"."period", '-1 months')
    END = DATE("a"."d", 'start of month')
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
    CAST(CAST("m"."a1" AS REAL) AS REAL) / NULLIF(NULLIF("m"."a0", 0), 0)
  ) - (
    CAST(CAST("m"."a3" AS REAL) AS REAL) / NULLIF(NULLIF("m"."a2", 0), 0)
  ) AS "signupToOrderRateChange",
  CAST("m"."a1" AS REAL) / NULLIF("m"."a0", 0) AS "signupToOrderRate"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC NULLS LAST
