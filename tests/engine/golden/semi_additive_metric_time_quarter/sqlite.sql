SELECT
  "semi"."g0" AS "metric_time__quarter",
  SUM("semi"."i0") AS "PaymentsModel__paidOnLastDay"
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
    "payments".amount AS "i0",
    DATE("payments".paid_at) AS "__day",
    MAX(DATE("payments".paid_at)) OVER (
      PARTITION BY DATE(
        "payments".paid_at,
        'start of month',
        '-' || (
          (
            CAST(STRFTIME('%m', "payments".paid_at) AS INTEGER) - 1
          ) % 3
        ) || ' months'
      )
    ) AS "__window"
  FROM payments AS "payments"
) AS "semi"
WHERE
  "semi"."__day" = "semi"."__window"
GROUP BY
  "semi"."g0"
ORDER BY
  "metric_time__quarter" ASC NULLS LAST
