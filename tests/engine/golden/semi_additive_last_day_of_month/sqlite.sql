WITH "f0" AS (
  SELECT
    "semi"."g0" AS "g0",
    SUM("semi"."i0") AS "a0"
  FROM (
    SELECT
      DATE("payments".paid_at, 'start of month') AS "g0",
      "payments".amount AS "i0",
      DATE("payments".paid_at) AS "__day",
      MAX(DATE("payments".paid_at)) OVER (PARTITION BY DATE("payments".paid_at, 'start of month')) AS "__window"
    FROM payments AS "payments"
  ) AS "semi"
  WHERE
    "semi"."__day" = "semi"."__window"
  GROUP BY
    "semi"."g0"
), "f1" AS (
  SELECT
    DATE("payments".paid_at, 'start of month') AS "g0",
    SUM("payments".amount) AS "a1"
  FROM payments AS "payments"
  GROUP BY
    DATE("payments".paid_at, 'start of month')
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
  "m"."g0" AS "PaymentsModel__paidAt__month",
  "m"."a0" AS "PaymentsModel__paidOnLastDay",
  "m"."a1" AS "PaymentsModel__amountPaid"
FROM "merged" AS "m"
ORDER BY
  "PaymentsModel__paidAt__month" ASC NULLS LAST
