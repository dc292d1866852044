-- Credited counts in micro units of an order (facts.CountUnit), no longer 1/10,000: a total of
-- many fractional shares is then its exact sum, rounded once in the answer (CONTRACT "Query:
-- views"). The rows stored before are scaled in place, in the raw table and both rollups, so that
-- every sum reads one unit and a journey taken back later (its credits negated at the new unit)
-- cancels what it credited. ClickHouse runs an UPDATE as a mutation of the parts that exist when
-- it is sent; rows inserted after it are written at the new unit already.
ALTER TABLE credits_raw UPDATE tx_count = tx_count * 100, tx_count_total = tx_count_total * 100,
    tx_count_pending = tx_count_pending * 100, tx_count_refunded = tx_count_refunded * 100 WHERE 1;

ALTER TABLE credits_hourly UPDATE tx_count = tx_count * 100, tx_count_total = tx_count_total * 100,
    tx_count_pending = tx_count_pending * 100, tx_count_refunded = tx_count_refunded * 100 WHERE 1;

ALTER TABLE credits_daily UPDATE tx_count = tx_count * 100, tx_count_total = tx_count_total * 100,
    tx_count_pending = tx_count_pending * 100, tx_count_refunded = tx_count_refunded * 100 WHERE 1;
