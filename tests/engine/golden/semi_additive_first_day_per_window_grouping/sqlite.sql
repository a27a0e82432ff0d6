SELECT
  "semi"."g0" AS "PaymentsModel__paidAt__quarter",
  SUM("semi"."i0") AS "PaymentsModel__paidOnFirstDayPerMethod"
FROM (
  SELECT
    DATE(
      "payments".paid_at,
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "payments".paid_at) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    ) AS "g0",
    CASE
      WHEN DATE("payments".paid_at) = MIN(DATE("payments".paid_at)) OVER (
        PARTITION BY DATE(
          "payments".paid_at,
          'start of month',
          '-' || (
            (
              CAST(STRFTIME('%m', "payments".paid_at) AS INTEGER) - 1
            ) % 3
          ) || ' months'
        ), "payments".method
      )
      THEN "payments".amount
    END AS "i0"
  FROM payments AS "payments"
) AS "semi"
GROUP BY
  "semi"."g0"
ORDER BY
  "PaymentsModel__paidAt__quarter" ASC NULLS LAST
