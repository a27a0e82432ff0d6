WITH `result` AS (
  SELECT
    CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) AS `PaymentsModel__paidAt__hour`,
    COALESCE(COUNT(`payments`.payment_id), 0) AS `paymentCountEveryHour`
  FROM payments AS `payments`
  WHERE
    `payments`.paid_at >= '2023-05-01 00:00:00'
    AND `payments`.paid_at < '2023-05-04 00:00:00'
  GROUP BY
    CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME)
), `periods` AS (
  SELECT DISTINCT
    CAST(DATE_FORMAT(`spine`.`date_day`, '%Y-%m-%d %H:00:00') AS DATETIME) AS `period`
  FROM (
    SELECT
      DATE_ADD(CAST(`day_spine`.`date_day` AS DATETIME), INTERVAL `steps`.`n` HOUR) AS `date_day`
    FROM time_spine AS `day_spine`
    CROSS JOIN (
      SELECT
        `n0`.`d` + `n1`.`d` * 10 AS `n`
      FROM (
        SELECT
          0 AS `d`
        UNION ALL
        SELECT
          1 AS `d`
        UNION ALL
        SELECT
          2 AS `d`
        UNION ALL
        SELECT
          3 AS `d`
        UNION ALL
        SELECT
          4 AS `d`
        UNION ALL
        SELECT
          5 AS `d`
        UNION ALL
        SELECT
          6 AS `d`
        UNION ALL
        SELECT
          7 AS `d`
        UNION ALL
        SELECT
          8 AS `d`
        UNION ALL
        SELECT
          9 AS `d`
      ) AS `n0`
      CROSS JOIN (
        SELECT
          0 AS `d`
        UNION ALL
        SELECT
          1 AS `d`
        UNION ALL
        SELECT
          2 AS `d`
        UNION ALL
        SELECT
          3 AS `d`
        UNION ALL
        SELECT
          4 AS `d`
        UNION ALL
        SELECT
          5 AS `d`
        UNION ALL
        SELECT
          6 AS `d`
        UNION ALL
        SELECT
          7 AS `d`
        UNION ALL
        SELECT
          8 AS `d`
        UNION ALL
        SELECT
          9 AS `d`
      ) AS `n1`
      WHERE
        `n0`.`d` + `n1`.`d` * 10 < 24
    ) AS `steps`
  ) AS `spine`
  WHERE
    `spine`.`date_day` >= '2023-05-01 00:00:00'
    AND `spine`.`date_day` < '2023-05-04 00:00:00'
)
SELECT
  `p`.`period` AS `PaymentsModel__paidAt__hour`,
  COALESCE(`r`.`paymentCountEveryHour`, 0) AS `paymentCountEveryHour`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`PaymentsModel__paidAt__hour` = `p`.`period`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
