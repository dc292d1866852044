// Package archtest holds the tests that keep mtk's architecture where the compiler does not: the
// import graph points one way (see layers), the engine composes SQL from fragments that carry
// their arguments, and only package platform writes the platform's tables (see platformTables).
// It has no code of its own.
package archtest
