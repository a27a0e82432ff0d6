WITH "f0_rows" AS (
  SELECT
    toDateTime64(toStartOfHour("payments".paid_at), 6) AS "t",
    "payments".payment_id AS "i0"
  FROM payments AS "payments"
), "f0_periods" AS (
  SELECT DISTINCT
    toDateTime64(toStartOfHour("spine"."date_day"), 6) AS "period"
  FROM (
    SELECT
      addHours(toDateTime64("day_spine"."date_day", 6), "steps"."n") AS "date_day"
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
      ) AS Nullable(DATE))
      AND "day_spine"."date_day" <= CAST((
        SELECT
          MAX("t")
        FROM "f0_rows"
      ) AS Nullable(DATE))
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
    AND "spine"."date_day" BETWEEN CAST('2023-03-01 00:00:00' AS Nullable(DateTime)) AND CAST('2023-03-03 00:00:00' AS Nullable(DateTime))
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
    ON "r"."t" < addHours(toDateTime64("p"."period", 6), 1)
    AND "r"."t" >= addHours(toDateTime64(addHours(toDateTime64("p"."period", 6), 1), 6), -3)
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "PaymentsModel__paidAt__hour",
  "m"."a0" AS "paymentsLast3Hours"
FROM "f0" AS "m"
ORDER BY
  "PaymentsModel__paidAt__hour" ASC
SETTINGS join_use_nulls = 1
