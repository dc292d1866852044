// Package loadgen sends query bodies to an mtk server under load and sums up what came back: a
// closed loop (a number of callers, each sending its next request when the last is answered) or
// an open model (requests start on a schedule whatever the answers, and latency counts from the
// scheduled start, so a slow server cannot hide its queue: coordinated omission). `mtk bench`
// is its command line.
package loadgen
