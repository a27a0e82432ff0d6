WITH "f0" AS (
  SELECT
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("orders".order_date AS DATE)
    ) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("orders".order_date AS DATE)
    )
), "f1_periods" AS (
  SELECT
    CAST("a"."day" AS DATE) AS "period",
    CAST("b"."day" AS DATE) AS "read"
  FROM (
    SELECT
      "spine"."date_day" AS "day",
      DENSE_RANK() OVER (ORDER BY "spine"."fiscal_quarter") AS "k",
      ROW_NUMBER() OVER (PARTITION BY "spine"."fiscal_quarter" ORDER BY "spine"."date_day") AS "rn"
    FROM time_spine AS "spine"
    WHERE
      NOT "spine"."fiscal_quarter" IS NULL
  ) AS "a"
  INNER JOIN (
    SELECT
      "spine"."date_day" AS "day",
      DENSE_RANK() OVER (ORDER BY "spine"."fiscal_quarter") AS "k",
      ROW_NUMBER() OVER (PARTITION BY "spine"."fiscal_quarter" ORDER BY "spine"."date_day") AS "rn"
    FROM time_spine AS "spine"
    WHERE
      NOT "spine"."fiscal_quarter" IS NULL
  ) AS "b"
    ON "b"."k" = "a"."k" - 1 AND "b"."rn" = "a"."rn"
), "f1" AS (
  SELECT
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("p"."period" AS DATE)
    ) AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON "p"."read" = CAST("orders".order_date AS DATE)
  GROUP BY
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("p"."period" AS DATE)
    )
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
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
    "g0"
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__fiscal_quarter",
  "m"."a0" - "m"."a1" AS "ordersFiscalQuarterGrowth"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__orderDate__fiscal_quarter" ASC
