// Package figures keeps what the steps of `make bench` measured in one small file of the bench
// output folder (figures.tsv: a figure's name, its value, when it was recorded), each figure
// written by the step that measures it, so that the last step (benchmarks/summary) prints them
// in one table without measuring anything twice.
package figures

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DirEnv names the bench output folder; without it, DefaultDir (make bench runs from the
// repository's root, where the query benchmark writes its JSON too).
const (
	DirEnv     = "MTK_BENCH_OUT"
	DefaultDir = "benchmarks/results"
	fileName   = "figures.tsv"
)

// Figure is one recorded value.
type Figure struct {
	Value float64
	At    time.Time
}

// Path is the figures file.
func Path() string {
	dir := os.Getenv(DirEnv)
	if dir == "" {
		dir = DefaultDir
	}
	return filepath.Join(dir, fileName)
}

// Record sets the named figures (names without tabs or line breaks), keeping the others: a step
// run again replaces its own figures.
func Record(values map[string]float64) error {
	all, err := Load()
	if err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	for name, v := range values {
		if name == "" || strings.ContainsAny(name, "\t\r\n") {
			return fmt.Errorf("figure name %q", name)
		}
		all[name] = Figure{Value: v, At: now}
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", n, strconv.FormatFloat(all[n].Value, 'g', -1, 64), all[n].At.Format(time.RFC3339))
	}
	path := Path()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Load reads every recorded figure (none when the file does not exist yet).
func Load() (map[string]Figure, error) {
	all := map[string]Figure{}
	f, err := os.Open(Path())
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s:%d: want name, value and time", Path(), line)
		}
		v, err := strconv.ParseFloat(parts[1], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", Path(), line, err)
		}
		at, err := time.Parse(time.RFC3339, parts[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", Path(), line, err)
		}
		all[parts[0]] = Figure{Value: v, At: at}
	}
	return all, sc.Err()
}
