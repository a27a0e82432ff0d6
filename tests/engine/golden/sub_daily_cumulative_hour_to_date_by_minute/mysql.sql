WITH `f0_rows` AS (
  SELECT
    CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:00') AS DATETIME) AS `t`,
    `payments`.amount AS `i0`
  FROM payments AS `payments`
), `f0_periods` AS (
  SELECT DISTINCT
    CAST(DATE_FORMAT(`spine`.`date_day`, '%Y-%m-%d %H:%i:00') AS DATETIME) AS `period`
  FROM (
    SELECT
      DATE_ADD(CAST(`day_spine`.`date_day` AS DATETIME), INTERVAL `steps`.`n` MINUTE) AS `date_day`
    FROM time_spine AS `day_spine`
    CROSS JOIN (
      SELECT
        `n0`.`d` + `n1`.`d` * 10 + `n2`.`d` * 100 + `n3`.`d` * 1000 AS `n`
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
      ) AS `n2`
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
      ) AS `n3`
      WHERE
        `n0`.`d` + `n1`.`d` * 10 + `n2`.`d` * 100 + `n3`.`d` * 1000 < 1440
    ) AS `steps`
    WHERE
      `day_spine`.`date_day` >= DATE((
        SELECT
          MIN(`t`)
        FROM `f0_rows`
      ))
      AND `day_spine`.`date_day` <= DATE(
        DATE_ADD(CAST((
          SELECT
            MAX(`t`)
          FROM `f0_rows`
        ) AS DATETIME), INTERVAL 1 HOUR)
      )
  ) AS `spine`
  WHERE
    `spine`.`date_day` >= (
      SELECT
        MIN(`t`)
      FROM `f0_rows`
    )
    AND `spine`.`date_day` <= DATE_ADD(CAST((
      SELECT
        MAX(`t`)
      FROM `f0_rows`
    ) AS DATETIME), INTERVAL 1 HOUR)
    AND `spine`.`date_day` BETWEEN '2024-06-01 00:00:00' AND '2024-06-02 00:00:00'
), `f0_days` AS (
  SELECT
    `t`,
    SUM(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    SUM(`r`.`i0`) AS `a0`
  FROM `f0_periods` AS `p`
  INNER JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(CAST(`p`.`period` AS DATETIME), INTERVAL 1 MINUTE)
    AND `r`.`t` >= CAST(DATE_FORMAT(
      DATE_ADD(
        CAST(DATE_ADD(CAST(`p`.`period` AS DATETIME), INTERVAL 1 MINUTE) AS DATETIME),
        INTERVAL -1 MINUTE
      ),
      '%Y-%m-%d %H:00:00'
    ) AS DATETIME)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `PaymentsModel__paidAt__minute`,
  `m`.`a0` AS `paymentsHourToDate`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
