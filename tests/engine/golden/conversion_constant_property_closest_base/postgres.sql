WITH "f0" AS (
  SELECT
    CAST(DATE_TRUNC('month', "orders".order_date) AS DATE) AS "g0",
    "orders".channel AS "g1",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    CAST(DATE_TRUNC('month', "orders".order_date) AS DATE),
    "orders".channel
), "f1_base" AS (
  SELECT
    UPPER(TRIM("orders".customer_ref)) AS "entity",
    CAST("orders".order_date AS DATE) AS "t",
    "orders".channel AS "c0",
    CAST(DATE_TRUNC('month', "orders".order_date) AS DATE) AS "g0",
    "orders".channel AS "g1"
  FROM orders AS "orders"
), "f1_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY CAST("conversion_events".shipped_at AS DATE)) AS "id",
    UPPER(TRIM("conversion_events".customer_ref)) AS "entity",
    CAST("conversion_events".shipped_at AS DATE) AS "t",
    "conversion_events".order_id AS "v",
    "conversion_events".channel AS "c0"
  FROM orders AS "conversion_events"
), "f1_attributed" AS (
  SELECT
    "c"."v",
    "b"."g0",
    "b"."g1",
    ROW_NUMBER() OVER (PARTITION BY "c"."id" ORDER BY "b"."t" DESC NULLS LAST) AS "rn"
  FROM "f1_base" AS "b"
  INNER JOIN "f1_conversions" AS "c"
    ON "b"."entity" = "c"."entity"
    AND "b"."t" <= "c"."t"
    AND "b"."t" > CAST("c"."t" + INTERVAL '-7 day' AS DATE)
    AND "b"."c0" = "c"."c0"
), "f1" AS (
  SELECT
    "g0" AS "g0",
    "g1" AS "g1",
    COUNT("v") AS "a1"
  FROM "f1_attributed"
  WHERE
    "rn" = 1
  GROUP BY
    "g0",
    "g1"
), "merged" AS (
  SELECT
    "g0",
    "g1",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
      "g1",
      "a0",
      (
        SELECT
          "a1"
        FROM "f1"
        WHERE
          FALSE
      ) AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      "g1",
      (
        SELECT
          "a0"
        FROM "f0"
        WHERE
          FALSE
      ) AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0",
    "g1"
)
SELECT
  "m"."g0" AS "metric_time__month",
  "m"."g1" AS "OrdersModel__channel",
  "m"."a1" AS "shippedSameChannelWithinWeek",
  "m"."a0" AS "OrdersModel__ordersPlaced"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC,
  "OrdersModel__channel" ASC
