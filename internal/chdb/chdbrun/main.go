// Command chdbrun runs ClickHouse statements in chDB, the current ClickHouse engine as a library
// (libchdb.so), for the conformance tests: package chdb starts it and talks to it over stdin and
// stdout. It loads the library with dlopen, so that the module builds and vets without it.
//
// Each input line is a JSON object {"sql": "...", "format": "TabSeparated"}; each output line is
// {"out": "<the output, base64>"} or {"error": "..."}. At the end of its input it leaves at once (os.Exit, which
// runs no C exit handlers: chDB may hang in them). It needs a 64 MB thread stack (package chdb
// starts it under `ulimit -s 65536`); it crashes at the default 8 MB.
package main

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void * (*connect_fn)(int, char **);
typedef void * (*query_fn)(void *, const char *, const char *);
typedef char * (*buffer_fn)(void *);
typedef size_t (*length_fn)(void *);
typedef const char * (*error_fn)(void *);
typedef void (*destroy_fn)(void *);

static connect_fn f_connect;
static query_fn f_query;
static buffer_fn f_buffer;
static length_fn f_length;
static error_fn f_error;
static destroy_fn f_destroy;
static void ** conn;

static const char * load(const char * path) {
	void * lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!lib) return dlerror();
	f_connect = (connect_fn) dlsym(lib, "chdb_connect");
	f_query = (query_fn) dlsym(lib, "chdb_query");
	f_buffer = (buffer_fn) dlsym(lib, "chdb_result_buffer");
	f_length = (length_fn) dlsym(lib, "chdb_result_length");
	f_error = (error_fn) dlsym(lib, "chdb_result_error");
	f_destroy = (destroy_fn) dlsym(lib, "chdb_destroy_query_result");
	if (!f_connect || !f_query || !f_buffer || !f_length || !f_error || !f_destroy) return "libchdb.so lacks the chdb_ C API";
	return NULL;
}

static int open_path(char * arg) {
	char * argv[] = {"clickhouse", arg};
	conn = (void **) f_connect(2, argv);
	return conn != NULL && *conn != NULL;
}

// run executes one statement; *out and *err point into the result, which the caller frees.
static void * run(const char * sql, const char * format, char ** out, size_t * len, const char ** err) {
	void * r = f_query(*conn, sql, format);
	*err = r ? f_error(r) : "no result";
	*out = r ? f_buffer(r) : NULL;
	*len = r ? f_length(r) : 0;
	return r;
}

static void destroy(void * r) { if (r) f_destroy(r); }
*/
import "C"

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"unsafe"
)

// The main goroutine stays on the main thread, whose stack is the one ulimit sets.
func init() { runtime.LockOSThread() }

type request struct {
	SQL    string `json:"sql"`
	Format string `json:"format"`
}

// response carries the output as bytes (base64 in JSON), so that a binary format such as
// Native arrives whole.
type response struct {
	Out   []byte `json:"out,omitempty"`
	Error string `json:"error,omitempty"`
}

func main() {
	lib := flag.String("lib", "", "path of libchdb.so")
	path := flag.String("path", "", "data directory")
	flag.Parse()
	if msg := C.load(C.CString(*lib)); msg != nil {
		fail("load %s: %s", *lib, C.GoString(msg))
	}
	if C.open_path(C.CString("--path="+*path)) == 0 {
		fail("chdb_connect --path=%s failed", *path)
	}
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	dec := json.NewDecoder(in)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			os.Exit(0) // the end of the input (or a broken one): leave without C exit handlers
		}
		if err := out.Encode(query(req)); err != nil {
			os.Exit(1)
		}
	}
}

func query(req request) response {
	sql, format := C.CString(req.SQL), C.CString(req.Format)
	defer C.free(unsafe.Pointer(sql))
	defer C.free(unsafe.Pointer(format))
	var buf *C.char
	var n C.size_t
	var errText *C.char
	r := C.run(sql, format, &buf, &n, &errText)
	defer C.destroy(r)
	if errText != nil {
		return response{Error: C.GoString(errText)}
	}
	if buf == nil {
		return response{}
	}
	return response{Out: C.GoBytes(unsafe.Pointer(buf), C.int(n))}
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "chdbrun: "+format+"\n", a...)
	os.Exit(2)
}
