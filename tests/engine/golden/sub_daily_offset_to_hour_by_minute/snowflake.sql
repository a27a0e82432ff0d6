WITH "f0_periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('minute', "spine"."date_day") AS TIMESTAMP) AS "period"
  FROM (
    SELECT
      DATEADD(MINUTE, "steps"."n", CAST("day_spine"."date_day" AS TIMESTAMP)) AS "date_day"
    FROM time_spine AS "day_spine"
    CROSS JOIN (
      SELECT
        "n0"."d" + "n1"."d" * 10 + "n2"."d" * 100 + "n3"."d" * 1000 AS "n"
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
      ) AS "n2"
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
      ) AS "n3"
      WHERE
        "n0"."d" + "n1"."d" * 10 + "n2"."d" * 100 + "n3"."d" * 1000 < 1440
    ) AS "steps"
  ) AS "spine"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("payments".payment_id) AS "a0"
  FROM payments AS "payments"
  INNER JOIN "f0_periods" AS "p"
    ON CAST(DATE_TRUNC('hour', "p"."period") AS TIMESTAMP) = CAST(DATE_TRUNC('minute', "payments".paid_at) AS TIMESTAMP)
  WHERE
    "p"."period" BETWEEN CAST('2024-06-01 00:00:00' AS TIMESTAMP) AND CAST('2024-06-03 00:00:00' AS TIMESTAMP)
    AND "payments".paid_at BETWEEN CAST('2024-06-01 00:00:00' AS TIMESTAMP) AND CAST('2024-06-03 00:00:00' AS TIMESTAMP)
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "PaymentsModel__paidAt__minute",
  "m"."a0" AS "paymentsAtStartOfHour"
FROM "f0" AS "m"
ORDER BY
  "PaymentsModel__paidAt__minute" ASC
