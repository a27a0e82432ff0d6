WITH "f0_rows" AS (
  SELECT
    CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP) AS "t",
    "payments".payment_id AS "i0"
  FROM payments AS "payments"
), "f0_periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('hour', "spine"."date_day") AS TIMESTAMP) AS "period"
  FROM (
    SELECT
      CAST("day_spine"."date_day" AS TIMESTAMP) + INTERVAL ("steps"."n") HOUR AS "date_day"
    FROM time_spine AS "day_spine"
    CROSS JOIN (
      SELECT
        "n0"."d" + "n1"."d" * 10 AS "n"
      FROM (
        SELECT
          0 AS "d"
        UNION ALL
        SELECT
          1 AS "d"
        UNION ALL
        SELECT
          2 AS "d"
        UNION ALL
        SELECT
          3 AS "d"
        UNION ALL
        SELECT
          4 AS "d"
        UNION ALL
        SELECT
          5 AS "d"
        UNION ALL
        SELECT
          6 AS "d"
        UNION ALL
        SELECT
          7 AS "d"
        UNION ALL
        SELECT
          8 AS "d"
        UNION ALL
        SELECT
          9 AS "d"
      ) AS "n0"
      CROSS JOIN (
        SELECT
          0 AS "d"
        UNION ALL
        SELECT
          1 AS "d"
        UNION ALL
        SELECT
          2 AS "d"
        UNION ALL
        SELECT
          3 AS "d"
        UNION ALL
        SELECT
          4 AS "d"
        UNION ALL
        SELECT
          5 AS "d"
        UNION ALL
        SELECT
          6 AS "d"
        UNION ALL
        SELECT
          7 AS "d"
        UNION ALL
        SELECT
          8 AS "d"
        UNION ALL
        SELECT
          9 AS "d"
      ) AS "n1"
      WHERE
        "n0"."d" + "n1"."d" * 10 < 24
    ) AS "steps"
    WHERE
      "day_spine"."date_day" >= CAST((
        SELECT
          MIN("t")
        FROM "f0_rows"
      ) AS DATE)
      AND "day_spine"."date_day" <= CAST((
        SELECT
          MAX("t")
        FROM "f0_rows"
      ) AS DATE)
  ) AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= (
      SELECT
        MAX("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" BETWEEN CAST('2023-03-01 00:00:00' AS TIMESTAMP) AND CAST('2023-03-03 00:00:00' AS TIMESTAMP)
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < CAST("p"."period" AS TIMESTAMP) + INTERVAL 1 HOUR
    AND "r"."t" >= CAST(CAST("p"."period" AS TIMESTAMP) + INTERVAL 1 HOUR AS TIMESTAMP) + INTERVAL (-3) HOUR
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "PaymentsModel__paidAt__hour",
  "m"."a0" AS "paymentsLast3Hours"
FROM "f0" AS "m"
ORDER BY
  "PaymentsModel__paidAt__hour" ASC
