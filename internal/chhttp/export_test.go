package chhttp

// Decode is decode, for the test of current ClickHouse's Native output (chDB has no HTTP
// interface).
var Decode = decode
