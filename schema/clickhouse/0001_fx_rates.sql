-- Daily foreign-exchange rates: one unit of base buys rate units of quote on day.
-- ReplacingMergeTree keeps the latest version per (base, quote, day); readers still use
-- argMax(rate, version) because merges may not have happened.
CREATE TABLE IF NOT EXISTS fx_rates (
    day     Date,
    base    FixedString(3),
    quote   FixedString(3),
    rate    Decimal(18, 8),
    version UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(day)
ORDER BY (base, quote, day);
