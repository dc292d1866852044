// Package archtest holds the test that keeps mtk's import graph pointing one way (see
// Layers); it has no code of its own.
package archtest
