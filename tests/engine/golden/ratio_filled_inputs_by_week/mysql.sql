WITH `f0` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN '2022-12-01' AND '2023-02-28'
    AND `orders`.channel = 'web'
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY)
), `f1` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN '2022-12-01' AND '2023-02-28'
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY)
), `merged` AS (
  SELECT
    `g0`,
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`
  FROM (
    SELECT
      `g0`,
      `a0`,
      NULL AS `a1`
    FROM `f0`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      `a1`
    FROM `f1`
  ) AS `stacked`
  GROUP BY
    `g0`
), `result` AS (
  SELECT
    `m`.`g0` AS `metric_time__week`,
    CAST(COALESCE(`m`.`a0`, 0) AS DOUBLE) / NULLIF(COALESCE(`m`.`a1`, 0), 0) AS `webShareFilled`
  FROM `merged` AS `m`
), `periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (WEEKDAY(`spine`.`date_day`)) DAY) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN '2022-12-01' AND '2023-02-28'
)
SELECT
  `p`.`period` AS `metric_time__week`,
  CASE
    WHEN `r`.`metric_time__week` IS NULL
    THEN CAST(COALESCE(NULL, 0) AS DOUBLE) / NULLIF(COALESCE(NULL, 0), 0)
    ELSE `r`.`webShareFilled`
  END AS `webShareFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`metric_time__week` = `p`.`period`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
