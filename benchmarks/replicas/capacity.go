package main

import (
	"context"
	"errors"
)

func runCapacity(ctx context.Context, f flags) error { return errors.New("not yet") }
