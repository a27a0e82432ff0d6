WITH "f0_rows" AS (
  SELECT
    CAST(DATE_TRUNC('minute', "payments".paid_at) AS TIMESTAMP) AS "t",
    "payments".amount AS "i0"
  FROM payments AS "payments"
), "f0_periods" AS (
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
    WHERE
      "day_spine"."date_day" >= CAST((
        SELECT
          MIN("t")
        FROM "f0_rows"
      ) AS DATE)
      AND "day_spine"."date_day" <= CAST(DATEADD(HOUR, 1, CAST((
        SELECT
          MAX("t")
        FROM "f0_rows"
      ) AS TIMESTAMP)) AS DATE)
  ) AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= DATEADD(HOUR, 1, CAST((
      SELECT
        MAX("t")
      FROM "f0_rows"
    ) AS TIMESTAMP))
    AND "spine"."date_day" BETWEEN CAST('2024-06-01 00:00:00' AS TIMESTAMP) AND CAST('2024-06-02 00:00:00' AS TIMESTAMP)
), "f0_days" AS (
  SELECT
    "t",
    SUM("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    SUM("r"."i0") AS "a0"
  FROM "f0_periods" AS "p"
  INNER JOIN "f0_days" AS "r"
    ON "r"."t" < DATEADD(MINUTE, 1, CAST("p"."period" AS TIMESTAMP))
    AND "r"."t" >= CAST(DATE_TRUNC(
      'hour',
      DATEADD(MINUTE, -1, CAST(DATEADD(MINUTE, 1, CAST("p"."period" AS TIMESTAMP)) AS TIMESTAMP))
    ) AS TIMESTAMP)
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "PaymentsModel__paidAt__minute",
  "m"."a0" AS "paymentsHourToDate"
FROM "f0" AS "m"
ORDER BY
  "PaymentsModel__paidAt__minute" ASC
