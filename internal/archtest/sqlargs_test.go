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
	"strings"
	"testing"
)

// TestEngineThreadsNoArgumentList: no function of package engine (declared, literal or the type
// of a parameter) takes a *[]any. Such a list is right only while pieces of SQL are appended in
// text order; the compiler composes fragments that carry their own arguments instead.
func TestEngineThreadsNoArgumentList(t *testing.T) {
	list := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", "./engine")
	list.Dir = "../.." // the module's root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, " "); ok {
			exports[path] = file
		}
	}
	files := list.Dir + "/engine"
	src := exec.Command("go", "list", "-f", `{{join .GoFiles " "}}`, "./engine")
	src.Dir = list.Dir
	names, err := src.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range strings.Fields(string(names)) {
		f, err := parser.ParseFile(fset, filepath.Join(files, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	for _, p := range argListParams(t, fset, parsed, imp) {
		t.Errorf("%s takes a *[]any: return a fragment (engine/fragment.go) instead", p)
	}
}

// TestArgListParamsSeesThroughNames: the check finds the list behind an alias, a defined type and
// interface{}, in methods, function literals and function-typed parameters.
func TestArgListParamsSeesThroughNames(t *testing.T) {
	const src = `package p
type list = []any
type args []interface{}
func f(a *[]any) {}
func g(cb func(*list) string) {}
var h = func(x *args) {}
type T struct{}
func (T) m(ok []any, fine *[]string, bad *[]interface{}) {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := argListParams(t, fset, []*ast.File{f}, importer.Default())
	want := []string{"p.go:4:8", "p.go:5:16", "p.go:6:14", "p.go:8:38"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("found %v, want %v", got, want)
	}
}

// argListParams type-checks one package's files and lists the parameters of type *[]any (a
// pointer to a slice of the empty interface, whatever the names on the way) by position.
func argListParams(t *testing.T, fset *token.FileSet, files []*ast.File, imp types.Importer) []string {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(files[0].Name.Name, fset, files, info); err != nil {
		t.Fatalf("type-check: %v", err)
	}
	var found []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			fn, ok := n.(*ast.FuncType)
			if !ok {
				return true
			}
			for _, field := range fn.Params.List {
				ptr, ok := info.TypeOf(field.Type).(*types.Pointer)
				if !ok {
					continue
				}
				if s, ok := ptr.Elem().Underlying().(*types.Slice); ok {
					if i, ok := s.Elem().Underlying().(*types.Interface); ok && i.Empty() {
						found = append(found, fset.Position(field.Pos()).String())
					}
				}
			}
			return true
		})
	}
	return found
}
