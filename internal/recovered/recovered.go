// Package recovered turns a panic into an error, for the code that runs outside a request's
// handler (the outbox loops, the credit worker, the conversion forwarder, the listeners, the jobs,
// a query's single-flight run): a panic there would otherwise end the whole process, API
// included. The runner that holds those loops (internal/runner) logs the error once, as any
// failed step's, and goes on at its next cycle.
package recovered

import (
	"fmt"
	"runtime/debug"
)

// Panic is a recovered panic: its value and the stack of the goroutine that raised it.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string { return fmt.Sprintf("panic: %v\n%s", p.Value, p.Stack) }

// Call runs f and returns its error, or the panic it raised as a *Panic.
func Call(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &Panic{Value: v, Stack: debug.Stack()}
		}
	}()
	return f()
}
