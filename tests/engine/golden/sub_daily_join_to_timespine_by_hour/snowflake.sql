WITH "result" AS (
  SELECT
    CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP) AS "PaymentsModel__paidAt__hour",
    COALESCE(COUNT("payments".payment_id), 0) AS "paymentCountEveryHour"
  FROM payments AS "payments"
  WHERE
    "payments".paid_at >= CAST('2023-05-01 00:00:00' AS TIMESTAMP)
    AND "payments".paid_at < CAST('2023-05-04 00:00:00' AS TIMESTAMP)
  GROUP BY
    CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP)
), "periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('hour', "spine"."date_day") AS TIMESTAMP) AS "period"
  FROM (
    SELECT
      DATEADD(HOUR, "steps"."n", CAST("day_spine"."date_day" AS TIMESTAMP)) AS "date_day"
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
  ) AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2023-05-01 00:00:00' AS TIMESTAMP)
    AND "spine"."date_day" < CAST('2023-05-04 00:00:00' AS TIMESTAMP)
)
SELECT
  "p"."period" AS "PaymentsModel__paidAt__hour",
  COALESCE("r"."paymentCountEveryHour", 0) AS "paymentCountEveryHour"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."PaymentsModel__paidAt__hour" = "p"."period"
ORDER BY
  "PaymentsModel__paidAt__hour" ASC
