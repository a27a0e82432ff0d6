WITH `f0_rows` AS (
  SELECT
    CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) AS `t`,
    `payments`.payment_id AS `i0`
  FROM payments AS `payments`
), `f0_periods` AS (
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
    WHERE
      `day_spine`.`date_day` >= DATE((
        SELECT
          MIN(`t`)
        FROM `f0_rows`
      ))
      AND `day_spine`.`date_day` <= DATE((
        SELECT
          MAX(`t`)
        FROM `f0_rows`
      ))
  ) AS `spine`
  WHERE
    `spine`.`date_day` >= (
      SELECT
        MIN(`t`)
      FROM `f0_rows`
    )
    AND `spine`.`date_day` <= (
      SELECT
        MAX(`t`)
      FROM `f0_rows`
    )
    AND `spine`.`date_day` BETWEEN '2023-03-01 00:00:00' AND '2023-03-03 00:00:00'
), `f0_days` AS (
  SELECT
    `t`,
    COUNT(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    COALESCE(SUM(`r`.`i0`), 0) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(CAST(`p`.`period` AS DATETIME), INTERVAL 1 HOUR)
    AND `r`.`t` >= DATE_ADD(
      CAST(DATE_ADD(CAST(`p`.`period` AS DATETIME), INTERVAL 1 HOUR) AS DATETIME),
      INTERVAL -3 HOUR
    )
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `PaymentsModel__paidAt__hour`,
  `m`.`a0` AS `paymentsLast3Hours`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
