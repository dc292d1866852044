package archtest

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runPath are the methods of engine.Service that run statements on ClickHouse.
var runPath = []string{"Query", "Run", "Explain"}

// Only package answers runs the engine's statements: it owns the answer's cache, versions and
// single flight, so a second caller of the run path would serve answers the cache never sees.
// Tests may call the run path. The check type-checks every other package that imports the
// engine and lists its uses (calls and method values) of the run path's methods.
func TestOnlyAnswersRunsTheEngine(t *testing.T) {
	list := exec.Command("go", "list", "-export", "-deps", "-f",
		`{{.ImportPath}}|{{.Export}}|{{.Dir}}|{{join .GoFiles ","}}|{{join .Imports ","}}`, "./...")
	list.Dir = "../.." // the module's root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	type pkg struct{ path, dir, files string }
	var importers []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		exports[f[0]] = f[1]
		// Benchmarks time the engine's own statements (the floor run), outside any served path.
		served := !strings.HasPrefix(f[0], "mtk/benchmarks/")
		if served && f[0] != "mtk/engine" && f[0] != "mtk/answers" && slices.Contains(strings.Split(f[4], ","), "mtk/engine") {
			importers = append(importers, pkg{f[0], f[2], f[3]})
		}
	}
	if len(importers) == 0 {
		t.Fatal("no package but answers imports the engine: the scan saw nothing")
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	for _, p := range importers {
		var files []*ast.File
		for _, name := range strings.Split(p.files, ",") {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		for _, use := range runPathUses(t, fset, files, imp) {
			t.Errorf("%s runs the engine (%s): only package answers does (call answers.Service)", p.path, use)
		}
	}
}

// TestRunPathUsesSeesCallsAndMethodValues: the check finds a call and a method value of the run
// path, on a pointer and through an embedding, and leaves the engine's other methods alone.
func TestRunPathUsesSeesCallsAndMethodValues(t *testing.T) {
	const src = `package p
import ("context"; "mtk/engine")
type wrap struct{ *engine.Service }
func f(ctx context.Context, s *engine.Service, w wrap, p *engine.Prepared) {
	s.Run(ctx, p)
	run := w.Explain
	_ = run
	_ = s.Settings("facts_daily")
}
`
	list := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}|{{.Export}}", "./engine")
	list.Dir = "../.."
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "|")
		exports[path] = file
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	got := runPathUses(t, fset, []*ast.File{f}, imp)
	want := []string{"Run at p.go:5:4", "Explain at p.go:6:11"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("found %v, want %v", got, want)
	}
}

// runPathUses type-checks one package's files and lists its uses of the run path's methods.
func runPathUses(t *testing.T, fset *token.FileSet, files []*ast.File, imp types.Importer) []string {
	t.Helper()
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(files[0].Name.Name, fset, files, info); err != nil {
		t.Fatalf("type-check: %v", err)
	}
	var ids []*ast.Ident
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || !slices.Contains(runPath, fn.Name()) {
			continue
		}
		recv := fn.Type().(*types.Signature).Recv()
		if recv == nil {
			continue
		}
		rt := recv.Type()
		if p, ok := rt.(*types.Pointer); ok {
			rt = p.Elem()
		}
		if n, ok := rt.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "mtk/engine" && n.Obj().Name() == "Service" {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b *ast.Ident) int { return int(a.Pos() - b.Pos()) })
	var found []string
	for _, id := range ids {
		found = append(found, id.Name+" at "+fset.Position(id.Pos()).String())
	}
	return found
}
