WITH "f0_periods" AS (
  SELECT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    CAST(DATE_TRUNC('month', "p"."period") AS DATE) AS "g0",
    COUNT("customers".customer_id) AS "a0"
  FROM customers AS "customers"
  INNER JOIN "f0_periods" AS "p"
    ON CAST("p"."period" + INTERVAL '-7' DAY AS DATE) = CAST("customers".signup_date AS DATE)
  WHERE
    (
      "p"."period" < CAST('2023-05-12' AS DATE) OR "customers".segment = 'corporate'
    )
    AND (
      "customers".signup_date < CAST('2023-05-12' AS DATE)
      OR "customers".segment = 'corporate'
    )
  GROUP BY
    CAST(DATE_TRUNC('month', "p"."period") AS DATE)
), "f1_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    CAST("customers".signup_date AS DATE) AS "t",
    CAST("customers".signup_date AS DATE) AS "d",
    "customers".segment AS "f0",
    NULL AS "g0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date < CAST('2023-05-12' AS DATE)
    OR "customers".segment = 'corporate'
), "f1_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY CAST("conversion_events".order_date AS DATE)) AS "id",
    UPPER(TRIM("conversion_events".customer_ref)) AS "entity",
    CAST("conversion_events".order_date AS DATE) AS "t",
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
    AND "b"."t" > CAST("c"."t" + INTERVAL '-30' DAY AS DATE)
), "f1_periods" AS (
  SELECT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    CAST(DATE_TRUNC('month', "p"."period") AS DATE) AS "g0",
    COUNT(DISTINCT "a"."v") AS "a1"
  FROM "f1_attributed" AS "a"
  INNER JOIN "f1_periods" AS "p"
    ON CAST("p"."period" + INTERVAL '-7' DAY AS DATE) = "a"."d"
  WHERE
    "a"."rn" = 1
    AND (
      "p"."period" < CAST('2023-05-12' AS DATE) OR "a"."f0" = 'corporate'
    )
  GROUP BY
    CAST(DATE_TRUNC('month', "p"."period") AS DATE)
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
    CAST(CAST("m"."a1" AS DOUBLE) AS DOUBLE) / NULLIF(NULLIF("m"."a0", 0), 0)
  ) AS "signupToOrderRateWeekAgo"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC
