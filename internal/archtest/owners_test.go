package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// platformTables are the tables that package platform owns: those of the platform's migrations
// (0001_platform.sql but idempotency_records, which is api/idempotency's; 0002_tracking.sql;
// 0012_oauth.sql; 0013_login_tokens.sql). A new platform table belongs here.
var platformTables = []string{
	"workspaces", "users", "memberships", "api_keys", "projects", "connections", "sync_runs",
	"containers", "container_domains", "container_pixels", "triggers", "tracking_links", "link_clicks",
	"oauth_clients", "oauth_codes", "revoked_tokens",
}

// writeStatement finds the table that an SQL statement writes.
var writeStatement = regexp.MustCompile(`(?i)\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(\w+)`)

// readStatement finds the tables that an SQL statement reads: those it selects FROM or JOINs.
// SQL keywords are upper case in mtk's sources, which keeps English prose ("from projects") out.
var readStatement = regexp.MustCompile(`\b(?:FROM|JOIN)\s+(\w+)`)

// Only package platform writes platform tables: every other package asks it (adsync records its
// runs and a connection's outcome through platform.Connections). Migrations (schema/) and tests
// may write them too. The scan reads the string literals of every other non-test Go file, and
// the table names given to pgx's COPY.
func TestOnlyPlatformWritesPlatformTables(t *testing.T) {
	checkPlatformOwns(t, "writes", func(path string) []string { return tablesIn(t, path, writeStatement, true) })
}

// Only package platform reads platform tables: a package that needs a project's time zone, a
// connection's network or a link's click asks platform's services, so that what a row means (a
// deleted project, a revoked key, a click of another workspace's link) is decided in one place,
// and a change of the platform's schema is a change of one package. Tests may read them.
func TestOnlyPlatformReadsPlatformTables(t *testing.T) {
	checkPlatformOwns(t, "reads", func(path string) []string { return tablesIn(t, path, readStatement, false) })
}

// checkPlatformOwns fails t for each non-test Go file outside package platform (and outside
// schema/, the migrations) whose SQL the scan finds to touch a platform table; what names the
// action (writes, reads). It also fails when the scan finds no such use of a platform table in
// package platform itself, which would mean that the scan saw nothing.
func checkPlatformOwns(t *testing.T, what string, scan func(path string) []string) {
	t.Helper()
	const root = "../.." // the module's root
	created := tablesCreated(t, filepath.Join(root, "schema", "postgres"))
	for _, table := range platformTables {
		if !created[table] {
			t.Errorf("platform table %s is created by no migration of schema/postgres", table)
		}
	}
	byPlatform := map[string]bool{}
	eachSource(t, root, func(rel, path string) {
		inPlatform := filepath.Dir(rel) == "platform"
		for _, table := range scan(path) {
			switch {
			case !slices.Contains(platformTables, table):
			case inPlatform:
				byPlatform[table] = true
			default:
				t.Errorf("%s %s platform table %s: only package platform does (call a method of its service)", rel, what, table)
			}
		}
	})
	for _, table := range platformTables {
		if !byPlatform[table] {
			t.Errorf("the scan found no statement that %s %s in package platform", what, table)
		}
	}
}

// tablesCreated lists the tables that the migrations in dir create.
func tablesCreated(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations in %s: %v", dir, err)
	}
	createTable := regexp.MustCompile(`(?i)\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)`)
	out := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range createTable.FindAllStringSubmatch(string(b), -1) {
			out[strings.ToLower(m[1])] = true
		}
	}
	return out
}

// tablesIn lists the tables that statement finds in the SQL of path's string literals and, when
// copies is set, those named in a pgx.Identifier (the target of a COPY).
func tablesIn(t *testing.T, path string, statement *regexp.Regexp, copies bool) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, ok := unquoted(n); ok {
				for _, m := range statement.FindAllStringSubmatch(s, -1) {
					out = append(out, strings.ToLower(m[1]))
				}
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Identifier" {
				for _, e := range n.Elts {
					if lit, ok := e.(*ast.BasicLit); ok && copies {
						if s, ok := unquoted(lit); ok {
							out = append(out, strings.ToLower(s))
						}
					}
				}
				return false
			}
		}
		return true
	})
	return out
}

// unquoted is the value of a string literal.
func unquoted(lit *ast.BasicLit) (string, bool) {
	if lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// Only package ingest/conversions writes conversion_outbox: the queue (Queue), its deliverer, the
// purge and the operator's retry are there, and ingest/outbox, the transport of the outboxes
// drained into ClickHouse, knows nothing of it. Tests may write it too. It also fails when the
// scan finds no write of it in ingest/conversions, which would mean that the scan saw nothing.
func TestOnlyConversionsWritesConversionOutbox(t *testing.T) {
	const root, table, owner = "../..", "conversion_outbox", "ingest/conversions"
	byOwner := false
	eachSource(t, root, func(rel, path string) {
		if !slices.Contains(tablesIn(t, path, writeStatement, true), table) {
			return
		}
		if filepath.ToSlash(filepath.Dir(rel)) == owner {
			byOwner = true
		} else {
			t.Errorf("%s writes %s: only package %s does", rel, table, owner)
		}
	})
	if !byOwner {
		t.Errorf("the scan found no statement that writes %s in package %s", table, owner)
	}
}

// eachSource calls f with each non-test Go file under root (its path relative to root, and its
// path), leaving out the migrations, hidden folders and test data: the files the owner checks scan.
func eachSource(t *testing.T, root string, f func(rel, path string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "schema" || rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			f(rel, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
