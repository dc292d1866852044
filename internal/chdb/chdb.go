// Package chdb runs ClickHouse statements in chDB, the current ClickHouse engine as a library,
// so that tests prove mtk's SQL on the ClickHouse users run as well as on the 18.16 server this
// OS ships. The library comes from the npm package @chdb/lib-linux-x64-gnu: scripts/chdb.sh
// installs it under .data/chdb/ and `make test` passes its path in MTK_CHDB_LIB.
//
// chDB runs in a child process (chdbrun): it needs a 64 MB thread stack, holds one process per
// data path and may hang at exit, none of which a test binary should inherit.
package chdb

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"mtk/schema"
)

// LibEnv names the environment variable that holds the path of libchdb.so.
const LibEnv = "MTK_CHDB_LIB"

// DB is one chDB engine over a data directory, in its own process.
type DB struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *json.Encoder
	dec *json.Decoder
}

// Open builds the runner and starts chDB over dir. It fails when MTK_CHDB_LIB names no library.
func Open(dir string) (*DB, error) {
	lib := os.Getenv(LibEnv)
	if lib == "" {
		return nil, errors.New("chdb: " + LibEnv + " is not set; `make test` sets it (scripts/chdb.sh installs the library)")
	}
	if _, err := os.Stat(lib); err != nil {
		return nil, fmt.Errorf("chdb: %s: %w (scripts/chdb.sh installs it)", LibEnv, err)
	}
	bin := filepath.Join(dir, "chdbrun")
	build := exec.Command("go", "build", "-o", bin, "mtk/internal/chdb/chdbrun")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("chdb: build the runner: %v\n%s", err, out)
	}
	// ulimit raises the stack of the runner's threads (glibc's default is the limit at start).
	cmd := exec.Command("bash", "-c", `ulimit -s 65536 && exec "$0" "$@"`, bin, "-lib", lib, "-path", filepath.Join(dir, "data"))
	cmd.Env = append(os.Environ(), "TZ=UTC")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("chdb: start the runner: %w", err)
	}
	return &DB{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(bufio.NewReader(out))}, nil
}

// Query runs one statement and returns its output in format (TabSeparated when empty).
func (d *DB) Query(sql, format string) (string, error) {
	if format == "" {
		format = "TabSeparated"
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enc.Encode(map[string]string{"sql": sql, "format": format}); err != nil {
		return "", fmt.Errorf("chdb: send: %w", err)
	}
	var res struct {
		Out   []byte // base64 in JSON: binary formats (Native) arrive whole
		Error string
	}
	if err := d.dec.Decode(&res); err != nil {
		return "", fmt.Errorf("chdb: the runner stopped: %w", err)
	}
	if res.Error != "" {
		return "", errors.New(res.Error)
	}
	return string(res.Out), nil
}

// Close ends the runner: it leaves at the end of its input (killed if it has not within 10 s).
func (d *DB) Close() error {
	d.in.Close()
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		return <-done
	}
}

// Migrate applies every ClickHouse migration of the schema, in order, as mtk's migrate does.
func (d *DB) Migrate() error {
	migrations, err := schema.Load("clickhouse")
	if err != nil {
		return err
	}
	for _, m := range migrations {
		for _, st := range schema.Statements(m.SQL) {
			if _, err := d.Query(st, ""); err != nil {
				return fmt.Errorf("migration %d_%s on current ClickHouse: %w\n%s", m.Version, m.Name, err, st)
			}
		}
	}
	return nil
}
