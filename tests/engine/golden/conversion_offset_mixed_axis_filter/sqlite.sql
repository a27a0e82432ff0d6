WITH "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE(DATE("spine"."date_day"), '-7 days') AS "read"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    DATE("p"."period", 'start of month') AS "g0",
    COUNT("customers".customer_id) AS "a0"
  FROM customers AS "customers"
  INNER JOIN "f0_periods" AS "p"
    ON "p"."read" = DATE("customers".signup_date)
  WHERE
    (
      "p"."period" < '2023-05-12' OR "customers".segment = 'corporate'
    )
    AND (
      "customers".signup_date < '2023-05-12' OR "customers".segment = 'corporate'
    )
  GROUP BY
    DATE("p"."period", 'start of month')
), "f1_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    DATE("customers".signup_date) AS "t",
    DATE("customers".signup_date) AS "d",
    "customers".segment AS "f0",
    NULL AS "g0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date < '2023-05-12' OR "customers".segment = 'corporate'
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
    "b"."d",
    "b"."f0",
    ROW_NUMBER() OVER (PARTITION BY "c"."id" ORDER BY "b"."t" DESC) AS "rn"
  FROM "f1_base" AS "b"
  INNER JOIN "f1_conversions" AS "c"
    ON "b"."entity" = "c"."entity"
    AND "b"."t" <= "c"."t"
    AND "b"."t" > DATE("c"."t", '-30 days')
), "f1_periods" AS (
  SELECT
    DATE("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    DATE("p"."period", 'start of month') AS "g0",
    COUNT(DISTINCT "a"."v") AS "a1"
  FROM "f1_attributed" AS "a"
  INNER JOIN "f1_periods" AS "p"
    ON DATE("p"."period", '-7 days') = "a"."d"
  WHERE
    "a"."rn" = 1 AND (
      "p"."period" < '2023-05-12' OR "a"."f0" = 'corporate'
    )
  GROUP BY
    DATE("p"."period", 'start of month')
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
      "a0",
      NULL AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "metric_time__month",
  (
    CAST(CAST("m"."a1" AS REAL) AS REAL) / NULLIF(NULLIF("m"."a0", 0), 0)
  ) AS "signupToOrderRateWeekAgo"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC NULLS LAST
