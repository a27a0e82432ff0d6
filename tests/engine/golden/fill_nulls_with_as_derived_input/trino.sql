WITH "f0" AS (
  SELECT
    "payments".method AS "g0",
    SUM("payments".amount) AS "a0"
  FROM payments AS "payments"
  WHERE
    "payments".method = 'card'
  GROUP BY
    "payments".method
), "f1" AS (
  SELECT
    "payments".method AS "g0",
    SUM("payments".amount) AS "a1"
  FROM payments AS "payments"
  GROUP BY
    "payments".method
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
  "m"."g0" AS "PaymentsModel__method",
  CAST(COALESCE("m"."a0", 0) AS DOUBLE) / NULLIF("m"."a1", 0) AS "cardShareOfPayments"
FROM "merged" AS "m"
ORDER BY
  "PaymentsModel__method" ASC
