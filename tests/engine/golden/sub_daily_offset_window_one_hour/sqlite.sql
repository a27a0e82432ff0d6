WITH "f0_periods" AS (
  SELECT DISTINCT
    STRFTIME('%Y-%m-%d %H:00:00', "spine"."date_day") AS "period",
    DATETIME(STRFTIME('%Y-%m-%d %H:00:00', "spine"."date_day"), (
      -1
    ) || ' hours') AS "read"
  FROM (
    SELECT
      DATETIME("day_spine"."date_day", (
        "steps"."n"
      ) || ' hours') AS "date_day"
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
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("payments".payment_id) AS "a0"
  FROM payments AS "payments"
  INNER JOIN "f0_periods" AS "p"
    ON "p"."read" = STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at)
  WHERE
    "p"."period" < '2023-01-15 00:00:00'
    AND "payments".paid_at < '2023-01-15 00:00:00'
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "PaymentsModel__paidAt__hour",
  "m"."a0" AS "paymentsAnHourEarlier"
FROM "f0" AS "m"
ORDER BY
  "PaymentsModel__paidAt__hour" ASC NULLS LAST
